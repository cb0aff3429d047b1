"""The check path's one call into the judge: decide and build, never await. Pure.

Usage in the check agent, after `verdict = check_event(event, options)`::

    request, decision = plan_judge_request(event, verdict, sampler)
    if request is not None:
        await judge_requests_topic.send(key=event.event_id, value=request.to_dict())
    elif decision.dropped:
        metrics.judge_dropped.labels(reason=decision.reason).inc()

The hash test runs first, so unsampled answers (the vast majority) cost one SHA-256, plus a
scan of the verdict for those in the oversampling band.

`shed` sheds load at the source. It is asked only for sampled answers (a question about the
judge's state asked of every answer, right after its check, costs a few microseconds of cold
code) and returns QUEUE_FULL, JUDGE_DOWN or None. While the judge's queue is full, a request
built now would be dropped on arrival; while the judge is in its cool-down after a refused
connection, its call would fail at once. Either way the request is not built, published,
consumed and parsed first. Canaries still go: they are few and the agreement gauges depend on
them.
"""

from __future__ import annotations

from collections.abc import Callable

from monitor.checks.scoring import claim_tally
from monitor.judge.request import JudgeRequest, build_request, judge_items
from monitor.records.models import AnswerEvent, Verdict
from monitor.sampling.policy import (
    NOT_SAMPLED,
    Candidate,
    Decision,
    Sampler,
    SampleReason,
    hash_fraction,
    is_doubtful,
)


def sample_reason(
    event: AnswerEvent, verdict: Verdict, base_rate: float, oversample_rate: float
) -> SampleReason | None:
    """Why the judge's sample takes this answer, or None: the sampling rule alone, before any
    budget or a full queue (which drop a sampled answer's request and count it). The audit
    record's `sampled_for_judge` is this being not None."""
    if verdict.error is not None:
        return None
    if event.gold_label is not None:
        return "canary"
    # Cheapest test first: the hash, then (only in the oversampling band) the verdict scan.
    u = hash_fraction(event.event_id)
    if u < base_rate:
        return "base"
    if u < oversample_rate and is_doubtful(verdict):
        return "oversample"
    return None


def plan_judge_request(
    event: AnswerEvent,
    verdict: Verdict,
    sampler: Sampler,
    max_evidence_chars: int = 6_000,
    now: float | None = None,
    claim_cap: int = 0,
    shed: Callable[[], Decision | None] | None = None,
) -> tuple[JudgeRequest | None, Decision]:
    if verdict.error is not None:
        return None, Decision(False, "nothing_to_judge")
    policy = sampler.policy
    reason = sample_reason(event, verdict, policy.base_rate, policy.oversample_rate)
    if reason is None:
        return None, NOT_SAMPLED
    if reason != "canary" and shed is not None:
        shedding = shed()
        if shedding is not None:
            return None, shedding
    request = prepare_request(
        event,
        verdict,
        reason,
        policy.base_rate,
        max_evidence_chars,
        policy.batch_size,
        now,
        claim_cap,
    )
    decision = sampler.admit(
        Candidate(event.event_id, event.app or "", len(request.items), request.est_tokens),
        reason,
    )
    return (request if decision.sampled else None), decision


def prepare_request(
    event: AnswerEvent,
    verdict: Verdict,
    reason: SampleReason,
    base_rate: float,
    max_evidence_chars: int = 6_000,
    batch_size: int = 5,
    now: float | None = None,
    claim_cap: int = 0,
) -> JudgeRequest:
    """The request for an answer the sample takes (`reason` from `sample_reason`), before any
    budget: what a check process builds next to the check, so only the request crosses back
    to the worker, whose sampler then admits it or drops it (agents/stream/judge_wiring.py)."""
    items = judge_items(verdict, max_evidence_chars, event)
    # The estimates' sample is the base-rate hash sample only: its inclusion probability is
    # known and equal for every answer, canaries and doubtful answers included. Answers only
    # the oversampling picked stay out of it (their verdicts triage, they are not labels).
    u = hash_fraction(event.event_id)  # again, for the few sampled answers only
    estimation = u < base_rate and not _weighed_down(verdict, claim_cap)
    return build_request(event, verdict, items, reason, batch_size, now, estimation)


def _weighed_down(verdict: Verdict, claim_cap: int) -> bool:
    """More claims than the per-answer weight (RAGMON_ANSWER_CLAIM_WEIGHT): the answer enters
    the estimates with its weighted cheap counts (monitor.estimation.window.capped_vector),
    so its judge verdicts are no labels."""
    if claim_cap <= 0 or len(verdict.claims) <= claim_cap:
        return False
    valid = {c.citation.index for c in verdict.citations if c.valid}
    return claim_tally(verdict.claims, valid).claims > claim_cap
