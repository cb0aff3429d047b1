"""The check path's one call into the judge: decide and build, never await. Pure.

Usage in the check agent, after `verdict = check_event(event, options)`::

    request, decision = plan_judge_request(event, verdict, sampler)
    if request is not None:
        await judge_requests_topic.send(key=event.event_id, value=request.to_dict())
    elif decision.dropped:
        metrics.judge_dropped.labels(reason=decision.reason).inc()

The hash test runs first, so unsampled answers (the vast majority) cost one SHA-256.
"""

from __future__ import annotations

from dataclasses import replace

from monitor.judge.request import JudgeRequest, build_request, judge_items
from monitor.models import AnswerEvent, Verdict
from monitor.sampling import Decision, Sampler, candidate_for, hash_fraction


def plan_judge_request(
    event: AnswerEvent,
    verdict: Verdict,
    sampler: Sampler,
    max_evidence_chars: int = 6_000,
    now: float | None = None,
) -> tuple[JudgeRequest | None, Decision]:
    if verdict.error is not None:
        return None, Decision(False, "nothing_to_judge")
    candidate = candidate_for(event, verdict, judgeable_claims=0, est_tokens=0)
    rate, _ = sampler.rate_for(candidate)
    if hash_fraction(event.event_id) >= rate:
        return None, Decision(False, "not_sampled")
    items = judge_items(verdict, max_evidence_chars)
    request = build_request(
        event, verdict, items, reason="", batch_size=sampler.policy.batch_size, now=now
    )
    decision = sampler.decide(
        replace(candidate, judgeable_claims=len(items), est_tokens=request.est_tokens)
    )
    if not decision.sampled:
        return None, decision
    return replace(request, reason=decision.reason), decision
