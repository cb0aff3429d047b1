"""The judge runner: takes judge requests from `judge-requests`, calls the LLM with bounded
concurrency, publishes to `verdicts`, counts claims under tier `judge`, keeps canary agreement
gauges, feeds the audit, and sends the windows a judge record on `scores` (keyed by app): per
judged answer its judge calls and, for an answer of the uniform (base-rate) sample judged whole,
the label sums of the support and hallucination estimates, in the bucket where the answer was
counted (`created_at` of the request). The judge's verdicts do not change the cheap counts
(monitor/estimation).

`submit` never awaits: a full queue drops the request and counts it (`judge_dropped_total
{reason="queue_full"}`), so neither the Faust consumer nor the check path waits on the LLM.

Its Prometheus observer is agents.judging.observer; building it from the settings and putting it
on a Faust app is agents.judging.wiring.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import structlog

from agents.output.records import judge_delta, labelled, score_entry, score_record
from agents.semantic.opinion import SemanticOpinion
from agents.telemetry.counting import Children
from agents.telemetry.metrics import Metrics
from monitor.judge.answer import AgreementWindow, says_supported
from monitor.judge.client import AnswerOutcome, JudgeClient
from monitor.judge.record import judge_record
from monitor.judge.request import JudgeRequest, RequestInvalid, parse_request
from monitor.sampling.policy import JUDGE_DOWN, QUEUE_FULL, Decision

log = structlog.get_logger("ragmon.judge")
__all__ = ["Done", "JudgeRunner", "Publish"]

Publish = Callable[[dict[str, Any]], Awaitable[Any]]
#: called once a submitted request is finished with (acks its message)
Done = Callable[[], object]


def _finish(done: Done | None) -> None:
    if done is not None:
        try:
            done()
        except Exception:  # an ack that fails must not end the worker task that called it
            log.exception("judge request ack failed")


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
        #: Once the queue is full the check path sheds until it has drained to this depth (a
        #: quarter of it): a request reaches the queue a broker round trip after it was built,
        #: so resuming at the first free slot built a request for every sampled answer of that
        #: round trip, all but one dropped on arrival (604 per 40,000 answers on the e2e bench)
        self.resume_depth = queue_size - max(1, queue_size // 4)
        self._shed = False
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
        `shed`): the queue is full, or was and has not drained to `resume_depth` yet; or the
        judge is down. None when it should."""
        if self.queue.full():
            self._shed = True
        elif self._shed and self.queue.qsize() <= self.resume_depth:
            self._shed = False
        if self._shed:
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
