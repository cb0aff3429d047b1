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

from agents.checking.work import RequestShape
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
from monitor.output.audit import audit_reason, audit_reason_of
from monitor.records.models import AnswerEvent, Verdict
from monitor.sampling.policy import (
    Candidate,
    Decision,
    Sampler,
    SamplingPolicy,
    hash_fraction,
)

if TYPE_CHECKING:
    import faust

    from agents.checking.work import Checked
    from agents.stream.check_agent import CheckProcessor, RecordMeta, ShedHook, VerdictHook
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

    sample, admit = judge_hooks(settings, metrics, processor, labels, sampler, runner.shedding)
    processor.hooks.append(sample)
    processor.request_hook = admit
    metrics.judge_enabled.set(1)
    # a check process builds the request of each answer the judge's sample takes, admitted by
    # the request hook, and while the judge sheds load sends only a note of each, counted by
    # the shed hook
    processor.judge_rates = (settings.judge_sample_rate, settings.judge_oversample_rate)
    processor.judge_requests = RequestShape(
        settings.judge_max_evidence_chars, settings.judge_batch_size
    )
    processor.judge_shedding = runner.shedding
    processor.shed_hook = shed_hook(settings, metrics, processor, labels)
    attach_judge_agent(app, runner, channels["judge-requests"])
    return runner


def judge_hooks(
    settings: Settings,
    metrics: Metrics,
    processor: CheckProcessor,
    labels: AppLabels,
    sampler: Sampler,
    shed: Callable[[], Decision | None],
) -> tuple[VerdictHook, ShedHook]:
    """The verdict hook that plans a judge request per answer and buffers it with the batch's
    output records, and the request hook that admits a request a check process built
    (`Checked.judge_request`) the same way: the judge is asked whether it sheds load now, then
    the sampler's budgets; a request let through is published, a dropped one counted alike.
    (Both also driven by `ragmon bench --section stages` and the digest.)"""
    child = Children()  # labels() takes a lock and builds a key: looked up once per label set
    max_chars = settings.judge_max_evidence_chars
    drop = _dropper(settings, metrics, processor, labels, child)
    drop_checked = _checked_dropper(settings, drop)

    def publish(event_id: str, app: str | None, value: bytes, estimation: bool) -> None:
        processor.emit("judge-requests", event_id.encode("utf-8"), value)
        if estimation:
            child(metrics.estimation_answers, (labels(app), "sent")).inc()

    def sample(event: AnswerEvent, verdict: Verdict, meta: RecordMeta) -> None:
        # A full local queue stands for the judge's: every worker runs a judge agent on its
        # share of `judge-requests`, fed by every worker's check agent alike.
        request, decision = plan_judge_request(
            event,
            verdict,
            sampler,
            max_chars,
            now=processor.checked_at,
            claim_cap=settings.answer_claim_weight,
            shed=shed,
        )
        if request is not None:
            # orjson: ~6 µs for a request, the standard library's ~39
            publish(event.event_id, event.app, dumps(request.to_dict()), request.estimation)
        elif decision.dropped:
            audited = audit_reason(verdict, settings.audit_sample_rate) is not None
            why = None
            if audited:  # only the audit record says why it was sampled
                why = sample_reason(
                    event, verdict, settings.judge_sample_rate, settings.judge_oversample_rate
                )
            drop(event.event_id, event.app, decision.reason, why, audited)

    def admit(result: Checked) -> None:
        prepared = result.judge_request
        assert prepared is not None
        decision = shed()  # the batch went out while the judge took requests; it may not now
        if decision is None:
            candidate = Candidate(
                result.event_id, result.app or "", prepared.items, prepared.est_tokens
            )
            decision = sampler.admit(candidate, prepared.reason)
        if decision.sampled:
            publish(result.event_id, result.app, prepared.value, prepared.estimation)
        elif decision.dropped:
            drop_checked(result, decision.reason, prepared.reason)

    return sample, admit


def shed_hook(
    settings: Settings, metrics: Metrics, processor: CheckProcessor, labels: AppLabels
) -> ShedHook:
    """Counts the drop of an answer a check process noted (`Checked.judge_shed`) as the judge
    hook counts one it sheds itself."""
    drop_checked = _checked_dropper(
        settings, _dropper(settings, metrics, processor, labels, Children())
    )

    def shed(result: Checked) -> None:
        assert result.judge_shed is not None
        drop_checked(result, *result.judge_shed)

    return shed


def _dropper(
    settings: Settings,
    metrics: Metrics,
    processor: CheckProcessor,
    labels: AppLabels,
    child: Children,
) -> Callable[[str, str | None, str, str | None, bool], None]:
    """What a dropped judge request leaves: its counter, the audited answer's record of what
    became of it, and the estimates' sample shrinking."""

    def drop(event_id: str, app: str | None, reason: str, why: str | None, audited: bool) -> None:
        child(metrics.judge_dropped, (reason,)).inc()
        if audited:
            # the audited answer says `sampled_for_judge`; the page says what became of it
            record = judge_dropped_record(event_id, app, reason, processor.checked_at, why)
            processor.emit("audit", event_id.encode("utf-8"), dumps(record))
        # a drop shrinks the estimates' uniform sample: counted (docs/estimation.md)
        if hash_fraction(event_id) < settings.judge_sample_rate:
            child(metrics.estimation_answers, (labels(app), "dropped")).inc()

    return drop


def _checked_dropper(
    settings: Settings, drop: Callable[[str, str | None, str, str | None, bool], None]
) -> Callable[[Checked, str, str], None]:
    """`drop` for an answer a check process sent back without its verdict (a note of the drop,
    or a request the worker then drops): whether it is audited follows from its id and
    failure (`audit_reason_of`); `why` it was sampled goes into its drop record if so."""

    def drop_checked(result: Checked, reason: str, why: str) -> None:
        audited = audit_reason_of(result.event_id, result.failed, settings.audit_sample_rate)
        drop(result.event_id, result.app, reason, why, audited is not None)

    return drop_checked


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
