"""The judge agent: consumes `judge-requests`, calls the LLM with bounded concurrency, publishes
to `verdicts`, counts claims under tier `judge`, keeps canary agreement gauges, feeds the audit,
and sends the windows a judge record on `scores` (keyed by app): per judged answer its judge
calls and, for an answer of the uniform (base-rate) sample judged whole, the label sums of the
support and hallucination estimates, in the bucket where the answer was counted (`created_at`
of the request). The judge's verdicts do not change the cheap counts (monitor/estimation).

`submit` never awaits: a full queue drops the request and counts it (`judge_dropped_total
{reason="queue_full"}`), so neither the Faust consumer nor the check path waits on the LLM.

Wiring (the app factory)::

    runner = build_judge_runner(settings, metrics, app_label,
                                publish=topic_publisher(verdicts_topic),
                                audit=topic_publisher(audit_topic))
    attach_judge_agent(app, runner, judge_requests_topic)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import structlog

from agents.judging.acks import InOrderAcks
from agents.judging.canary import cheap_canary_hook
from agents.kafka import handback
from agents.output.records import judge_delta, labelled, score_entry, score_record
from agents.semantic.opinion import SemanticOpinion
from agents.telemetry.counting import Children
from agents.telemetry.metrics import Metrics
from monitor.judge.answer import AgreementWindow, says_supported
from monitor.judge.client import AnswerOutcome, JudgeClient
from monitor.judge.config import JudgeConfig
from monitor.judge.record import judge_record
from monitor.judge.request import JudgeRequest, RequestInvalid, parse_request
from monitor.sampling.policy import JUDGE_DOWN, QUEUE_FULL, Budget, Decision

log = structlog.get_logger("ragmon.judge")
__all__ = ["JudgeRunner", "MetricsObserver", "attach_judge_agent", "cheap_canary_hook"]

Publish = Callable[[dict[str, Any]], Awaitable[Any]]
#: called once a submitted request is finished with (acks its message)
Done = Callable[[], object]


def _finish(done: Done | None) -> None:
    if done is not None:
        try:
            done()
        except Exception:  # an ack that fails must not end the worker task that called it
            log.exception("judge request ack failed")


class MetricsObserver:
    """JudgeObserver → Prometheus."""

    def __init__(self, metrics: Metrics, *, log_problems: bool = True) -> None:
        self.m = metrics
        self.log_problems = log_problems  # off where the caller reports them (ragmon eval)
        # labels() takes a lock and builds a key each time; a lookup runs once per judged pair
        self._child = Children()
        self._told: set[tuple[str, str, str]] = set()  # problems already logged

    def call(self, model: str, outcome: str) -> None:
        self._child(self.m.judge_requests, (model, outcome)).inc()

    def attempt(
        self, model: str, seconds: float, tokens_in: int, tokens_out: int, cost_usd: float
    ) -> None:
        self.m.judge_latency.labels(model=model).observe(seconds)
        if tokens_in:
            self.m.judge_tokens.labels(model=model, direction="in").inc(tokens_in)
        if tokens_out:
            self.m.judge_tokens.labels(model=model, direction="out").inc(tokens_out)
        if cost_usd:
            self.m.judge_cost.labels(model=model).inc(cost_usd)

    def retry(self, model: str, reason: str) -> None:
        self.m.judge_retries.labels(model=model, reason=reason).inc()

    def cache(self, hit: bool) -> None:
        self._child(self.m.judge_cache, ("hit" if hit else "miss",)).inc()

    def invalid(self, model: str, reason: str) -> None:
        self.m.judge_invalid_replies.labels(model=model, reason=reason).inc()

    def problem(self, model: str, what: str, detail: str) -> None:
        # the server's own words (secrets removed by the client): the one thing that tells an
        # operator why a judge fails, e.g. a response format the server does not take
        key = (model, what, detail)
        if (
            not self.log_problems or key in self._told
        ):  # a server down or misconfigured says the same on every call
            return
        if len(self._told) < 1_000:
            self._told.add(key)
        log.warning("judge problem", model=model, outcome=what, detail=detail)


class JudgeRunner:
    def __init__(
        self,
        client: JudgeClient,
        metrics: Metrics,
        *,
        concurrency: int = 4,
        queue_size: int = 100,
        publish: Publish | None = None,
        audit: Publish | None = None,
        correct: Publish | None = None,
        app_label: Callable[[str | None], str] | None = None,
        canary_window: int = 200,
        semantic: SemanticOpinion | None = None,
    ) -> None:
        self.client = client
        self.semantic = semantic  # a second opinion on the judged claims, in its own thread
        self.metrics = metrics
        self.concurrency = concurrency
        self.queue: asyncio.Queue[tuple[JudgeRequest, Done | None]] = asyncio.Queue(
            maxsize=queue_size
        )
        self.publish = publish
        self.audit = audit
        self.correct = correct
        self.app_label = app_label or (lambda app: app or "other")
        self.judge_agreement = AgreementWindow(canary_window)
        self.max_depth = 0  # highest queue depth seen (benchmarks report it)
        self._tasks: list[asyncio.Task[None]] = []
        # label children resolved once (labels() locks and builds a key on every call)
        self._queue_full = metrics.judge_dropped.labels(reason="queue_full")
        self._child = Children()

    # --- intake: never blocks ----------------------------------------------------------------

    def submit(
        self, value: Mapping[str, Any] | JudgeRequest | Any, done: Done | None = None
    ) -> bool:
        """Queue a request; `done` is called once the request is finished with: judged (or
        failed for good), or dropped here (invalid, queue full). It is not called for a request
        given up by `release` or cut off by `stop`: its message stays unacked, to be read again
        by whoever owns the partition next."""
        try:
            request = value if isinstance(value, JudgeRequest) else parse_request(value)
        except RequestInvalid as exc:
            self.metrics.judge_dropped.labels(reason="invalid_request").inc()
            log.warning("judge request dropped", reason="invalid_request", detail=str(exc))
            _finish(done)
            return False
        self._ensure_started()
        try:
            self.queue.put_nowait((request, done))
        except asyncio.QueueFull:
            self._queue_full.inc()
            if request.estimation:
                app = self.app_label(request.app)
                self._child(self.metrics.estimation_answers, (app, "dropped")).inc()
            _finish(done)
            return False
        depth = self.queue.qsize()
        self.max_depth = max(self.max_depth, depth)
        self.metrics.judge_queue_depth.set(depth)
        return True

    def release(self) -> int:
        """Give up every queued request not yet started (a rebalance or a stop): they are
        dropped here without `done`, so their messages are read again by the next owner.
        Returns how many."""
        released = 0
        while True:
            try:
                self.queue.get_nowait()
            except asyncio.QueueEmpty:
                break
            self.queue.task_done()
            released += 1
        self.metrics.judge_queue_depth.set(0)
        return released

    @property
    def full(self) -> bool:
        """The queue is full: what is submitted now is dropped (the check path sheds it)."""
        return self.queue.full()

    @property
    def down(self) -> bool:
        """The judge refused a connection and is in its cool-down
        (RAGMON_JUDGE_DOWN_COOLDOWN_SECONDS): calls fail at once, so the check path sheds."""
        return self.client.down

    def shedding(self) -> Decision | None:
        """Why the check path should not send a sampled answer now (plan_judge_request's
        `shed`): the queue is full, or the judge is down; None when it should."""
        if self.queue.full():
            return QUEUE_FULL
        return JUDGE_DOWN if self.down else None

    # --- workers -----------------------------------------------------------------------------

    def _ensure_started(self) -> None:
        if not self._tasks:
            self._tasks = [
                asyncio.ensure_future(self._work()) for _ in range(max(1, self.concurrency))
            ]

    async def _work(self) -> None:
        while True:
            request, done = await self.queue.get()
            self.metrics.judge_queue_depth.set(self.queue.qsize())
            try:
                await self.process(request)
            except asyncio.CancelledError:
                raise  # cut off by `stop`: not done, its message is read again
            except Exception:  # one bad request must not stop judging
                log.exception("judge request failed", event_id=request.event_id)
                _finish(done)
            else:
                _finish(done)
            finally:
                self.queue.task_done()

    async def join(self) -> None:
        """Wait until every queued request has been processed (tests, benchmarks, shutdown)."""
        await self.queue.join()

    async def stop(self, close_client: bool = True) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks = []
        if close_client:
            await self.client.aclose()
        if self.semantic is not None:
            self.semantic.close()

    # --- one request -------------------------------------------------------------------------

    async def process(self, request: JudgeRequest) -> dict[str, Any]:
        # the second opinion needs only the items: it runs in its thread while the judge answers
        opinion = (
            asyncio.ensure_future(self.semantic.opinion(request.items))
            if self.semantic is not None and request.items
            else None
        )
        answer: AnswerOutcome | None = None
        try:
            outcomes = await self.client.judge([i.pair for i in request.items])
            if request.gold_answer and request.answer:
                answer = await self.client.judge_answer(
                    request.question, request.answer, request.gold_answer
                )
        except BaseException:
            if opinion is not None:
                opinion.cancel()
            raise
        record = judge_record(request, outcomes, answer, time.time())
        app = self.app_label(request.app)
        if opinion is not None:
            try:
                record["semantic"] = await opinion
            except Exception as exc:  # a second opinion never costs the judge's own record
                log.warning("semantic opinion failed", event_id=request.event_id, error=str(exc))
            else:
                for entry in record["semantic"]["claims"]:
                    self._child(self.metrics.semantic_claims, (app, entry["opinion"])).inc()
        for entry in record["claims"]:
            if entry["verdict"] is not None:
                self._child(self.metrics.claims, (app, entry["verdict"], "judge")).inc()
        if request.gold_label:
            self._canary(app, request, record)
        if self.publish is not None:
            await self.publish(record)
        if self.correct is not None and request.created_at and record["claims"]:
            scores = [i.cheap_score or 0.0 for i in request.items] if request.estimation else None
            delta = judge_delta(record["claims"], scores)
            self._count_estimation(app, request, delta)
            entry = score_entry(request.event_id, 0.0, request.created_at, False, delta)
            await self.correct(score_record(app, [entry], kind="judge"))
        if self.audit is not None:
            await self.audit({"reason": "judge", **record})
            self.metrics.audit_records.labels(reason="judge").inc()
        return record

    def _count_estimation(self, app: str, request: JudgeRequest, delta: list[int]) -> None:
        if not request.estimation:
            return
        outcome = "labelled" if labelled(delta) else "incomplete"
        self._child(self.metrics.estimation_answers, (app, outcome)).inc()

    def _canary(self, app: str, request: JudgeRequest, record: dict[str, Any]) -> None:
        label = request.gold_label or ""
        judged = self.judge_agreement.observe(
            app, says_supported(c["verdict"] for c in record["claims"]), label
        )
        if judged is not None:
            self.metrics.judge_agreement_ratio.labels(app=app).set(judged)


def build_judge_runner(
    settings: Any,
    metrics: Metrics,
    app_label: Callable[[str | None], str] | None = None,
    *,
    publish: Publish | None = None,
    audit: Publish | None = None,
    correct: Publish | None = None,
    client: Any = None,
) -> JudgeRunner:
    """A runner configured from the settings object (budgets enforced on real calls too)."""
    config = JudgeConfig.from_settings(settings)
    judge = JudgeClient(
        config,
        observer=MetricsObserver(metrics),
        budget=Budget(settings.judge_calls_per_minute, settings.judge_tokens_per_hour),
        client=client,
    )
    return JudgeRunner(
        judge,
        metrics,
        concurrency=config.max_in_flight,
        queue_size=settings.judge_queue_size,
        publish=publish,
        audit=audit,
        correct=correct,
        app_label=app_label,
        # loaded at start-up so a missing or altered model stops the worker, not a request
        semantic=SemanticOpinion.load() if getattr(settings, "semantic_enabled", False) else None,
    )


def topic_publisher(topic: Any) -> Publish:
    """Publish records to a Faust topic as JSON bytes, keyed by event id (bytes pass through
    both raw and json topics unchanged)."""

    async def send(record: dict[str, Any]) -> None:
        key = str(record.get("event_id") or "").encode()
        await topic.send(key=key, value=json.dumps(record, ensure_ascii=False).encode())

    return send


def score_publisher(topic: Any) -> Publish:
    """Publish score records (judge records) to `scores` as JSON bytes, keyed by app like
    the check agent's, so they reach the partition that owns the app's window."""

    async def send(record: dict[str, Any]) -> None:
        key = str(record["app"]).encode()
        await topic.send(key=key, value=json.dumps(record, separators=(",", ":")).encode())

    return send


def attach_judge_agent(app: Any, runner: JudgeRunner, requests_topic: Any) -> Any:
    """Register the judge agent on a Faust app; the runner stops with the app.

    A request's message is acked when the runner is done with it and with every earlier one of
    its partition (agents.judging.acks), not when it is queued, so a worker killed with requests
    queued or in flight loses none: the next owner of the partition reads them again (an answer
    judged twice sends its label twice; the window counts it once, by event id). Before a
    rebalance or a stop waits for unacked messages, the queued requests are given up and every
    unfinished message handed back (agents.kafka.handback), so a slow judge never holds a
    rebalance."""
    acks = InOrderAcks()

    async def judge(stream: Any) -> None:
        async for event in stream.noack().events():
            runner.submit(event.value, done=acks.take(event))

    agent = app.agent(requests_topic, name="ragmon.judge")(judge)

    def release(consumer: Any) -> None:
        queued = runner.release()
        unfinished = acks.release(consumer)
        if unfinished:
            log.info("judge requests handed back", queued=queued, unfinished=unfinished)

    handback.on_wait_empty(app, release)

    async def _stop(*_: Any, **__: Any) -> None:
        await runner.stop()

    app.on_before_shutdown.connect(_stop)
    return agent
