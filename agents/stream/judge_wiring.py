"""Connects the check path to the judge: sampled answers → `judge-requests` → judge agent, and the
judge's verdicts back into the windows on `scores` (labels of the support and hallucination
estimates, for answers of the base-rate hash sample).

The sampling decision is `monitor.judge.plan.plan_judge_request` (hash of the event id first, so
evidence excerpts are only built for the few answers that can be sampled); the request is
buffered with the batch's other output records, never awaited per event. Its `created_at` is
the time the check agent counted the answer, which is where the judge's record lands.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agents.checking.judged import JudgePlanning, PlannedRequest, request_bytes
from agents.judging.agent import JudgeRunner, Publish
from agents.judging.wiring import (
    attach_judge_agent,
    build_judge_runner,
    score_publisher,
    topic_publisher,
)
from agents.output.audit import judge_audit_record
from agents.output.jsonout import dumps
from agents.telemetry.counting import Children
from agents.telemetry.metrics import AppLabels
from monitor.judge.plan import plan_judge_request, sample_reason
from monitor.oncall.judge_status import judge_dropped_record
from monitor.output.audit import audit_reason
from monitor.records.models import AnswerEvent, Verdict
from monitor.sampling.policy import Candidate, Decision, Sampler, SamplingPolicy, hash_fraction

if TYPE_CHECKING:
    import faust

    from agents.stream.check_agent import CheckProcessor, RecordMeta
    from agents.telemetry.metrics import Metrics
    from monitor.config.settings import Settings


def install_judge(
    app: faust.App,
    settings: Settings,
    metrics: Metrics,
    processor: CheckProcessor,
    channels: dict[str, Any],
    labels: AppLabels,
    client: Any = None,
    on_record: Publish | None = None,
) -> JudgeRunner:
    """Wire the judge into an app being built; the caller keeps the runner it returns.

    Takes the app's parts rather than the app itself, so this module does not import the app
    factory that imports it."""
    sampler = Sampler(
        SamplingPolicy(
            base_rate=settings.judge_sample_rate,
            oversample_rate=settings.judge_oversample_rate,
            calls_per_minute=settings.judge_calls_per_minute,
            tokens_per_hour=settings.judge_tokens_per_hour,
            batch_size=settings.judge_batch_size,
        )
    )
    runner = build_judge_runner(
        settings,
        metrics,
        labels,
        publish=_tee(topic_publisher(channels["verdicts"]), on_record),
        audit=_policed(settings, topic_publisher(channels["audit_json"])),
        correct=score_publisher(channels["scores"]),
        client=client,
    )

    # a check process builds the requests of the answers the hook's rule takes
    judge_hook(settings, metrics, processor, labels, sampler, runner.shedding)
    metrics.judge_enabled.set(1)
    attach_judge_agent(app, runner, channels["judge-requests"])
    return runner


def judge_planning(settings: Settings, policy: SamplingPolicy) -> JudgePlanning:
    """What a check process needs to build the requests the hook would (the same rule, the
    same request settings)."""
    return JudgePlanning(
        base_rate=policy.base_rate,
        oversample_rate=policy.oversample_rate,
        max_evidence_chars=settings.judge_max_evidence_chars,
        claim_cap=settings.answer_claim_weight,
        batch_size=policy.batch_size,
        audit_sample_rate=settings.audit_sample_rate,
    )


class JudgeHook:
    """Plans a judge request per answer and buffers it with the batch's output records (also
    driven by `ragmon bench --section stages`): as a verdict hook on an answer checked here, or
    (`planned`) on the request a check process built (agents/checking/judged.py). Either way
    the same decision, records and counts."""

    def __init__(
        self,
        settings: Settings,
        metrics: Metrics,
        processor: CheckProcessor,
        labels: AppLabels,
        sampler: Sampler,
        shed: Callable[[], Decision | None],
        planning: JudgePlanning | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics
        self.processor = processor
        self.labels = labels
        self.sampler = sampler
        self.shed = shed
        self.planning = planning or judge_planning(settings, sampler.policy)
        self._child = Children()  # labels() takes a lock and builds a key: once per label set

    def __call__(self, event: AnswerEvent, verdict: Verdict, meta: RecordMeta) -> None:
        # A full local queue stands for the judge's: every worker runs a judge agent on its
        # share of `judge-requests`, fed by every worker's check agent alike.
        planning = self.planning
        request, decision = plan_judge_request(
            event,
            verdict,
            self.sampler,
            planning.max_evidence_chars,
            now=self.processor.checked_at,
            claim_cap=planning.claim_cap,
            shed=self.shed,
        )
        if request is not None:
            self._send(event.event_id, event.app, request_bytes(request), request.estimation)
        elif decision.dropped:
            audited = audit_reason(verdict, planning.audit_sample_rate) is not None
            why = None
            if audited:  # the audited answer says `sampled_for_judge`; the page says what
                why = sample_reason(event, verdict, planning.base_rate, planning.oversample_rate)
            in_base = hash_fraction(event.event_id) < planning.base_rate
            self._dropped(event.event_id, event.app, decision, audited, why, in_base)

    def planned(self, planned: PlannedRequest, event_id: str, app: str | None) -> None:
        """The request a check process built for an answer the sampling rule took."""
        decision = None
        if planned.reason != "canary":
            decision = self.shed()
        if decision is None:
            decision = self.sampler.admit(
                Candidate(event_id, app or "", planned.items, planned.est_tokens),
                planned.reason,  # type: ignore[arg-type]  # a SampleReason, as it was built
            )
        if decision.sampled:
            self._send(event_id, app, planned.value, planned.estimation)
        elif decision.dropped:
            why = planned.reason if planned.audited else None
            self._dropped(event_id, app, decision, planned.audited, why, planned.in_base)

    def _send(self, event_id: str, app: str | None, value: bytes, estimation: bool) -> None:
        self.processor.emit("judge-requests", event_id.encode("utf-8"), value)
        if estimation:
            self._child(self.metrics.estimation_answers, (self.labels(app), "sent")).inc()

    def _dropped(
        self,
        event_id: str,
        app: str | None,
        decision: Decision,
        audited: bool,
        why: str | None,
        in_base: bool,
    ) -> None:
        self._child(self.metrics.judge_dropped, (decision.reason,)).inc()
        if audited:
            # the audited answer says `sampled_for_judge`; the page says what became of it
            record = judge_dropped_record(
                event_id, app, decision.reason, self.processor.checked_at, why
            )
            self.processor.emit("audit", event_id.encode("utf-8"), dumps(record))
        # a drop shrinks the estimates' uniform sample: counted (docs/estimation.md)
        if in_base:
            self._child(self.metrics.estimation_answers, (self.labels(app), "dropped")).inc()


def judge_hook(
    settings: Settings,
    metrics: Metrics,
    processor: CheckProcessor,
    labels: AppLabels,
    sampler: Sampler,
    shed: Callable[[], Decision | None],
    planning: JudgePlanning | None = None,
) -> JudgeHook:
    """The judge's hook (`JudgeHook`), installed on `processor`: on the answers checked in the
    worker, and on the requests its check processes build (`processor.judge_planning`)."""
    hook = JudgeHook(settings, metrics, processor, labels, sampler, shed, planning)
    processor.judge_hook = hook
    processor.judge_planned = hook.planned
    processor.judge_planning = hook.planning
    return hook


def _policed(settings: Settings, publish: Publish) -> Publish:
    """Judge audit records under RAGMON_AUDIT_TEXT and RAGMON_REDACT, like the check's."""

    async def send(record: dict[str, Any]) -> None:
        await publish(judge_audit_record(settings, record))

    return send


def _tee(publish: Publish, also: Publish | None) -> Publish:
    """`publish`, then hand the judge record to `also` (the human-label join: the pair of a
    claim labelled before it was judged)."""
    if also is None:
        return publish

    async def send(record: dict[str, Any]) -> None:
        await publish(record)
        await also(record)

    return send
