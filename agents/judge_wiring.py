"""Connects the check path to the judge: sampled answers → `judge-requests` → judge agent.

The sampling decision runs inside the check agent (hash of the event id first, so the evidence
excerpts are only built for the few answers that can be sampled); publishing is `send_soon`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agents.judge_agent import attach_judge_agent, build_judge_runner, topic_publisher
from agents.metrics import AppLabels
from monitor.judge.request import build_request, judge_items
from monitor.models import AnswerEvent, Verdict
from monitor.sampling import (
    Candidate,
    Sampler,
    SamplingPolicy,
    candidate_for,
    hash_fraction,
    is_doubtful,
)

if TYPE_CHECKING:
    from agents.app import RagmonApp
    from agents.check_agent import RecordMeta


def install_judge(rapp: RagmonApp, labels: AppLabels, client: Any = None) -> None:
    settings, metrics = rapp.settings, rapp.metrics
    policy = SamplingPolicy(
        base_rate=settings.judge_sample_rate,
        oversample_rate=settings.judge_oversample_rate,
        calls_per_minute=settings.judge_calls_per_minute,
        tokens_per_hour=settings.judge_tokens_per_hour,
        batch_size=settings.judge_batch_size,
    )
    sampler = Sampler(policy)
    requests = rapp.channels["judge-requests"]

    def sample(event: AnswerEvent, verdict: Verdict, meta: RecordMeta) -> None:
        quick = Candidate(
            event.event_id,
            event.app or "",
            judgeable_claims=1,
            est_tokens=0,
            doubtful=is_doubtful(verdict),
            canary=event.gold_label is not None,
        )
        rate, _ = sampler.rate_for(quick)
        if hash_fraction(event.event_id) >= rate:
            return
        items = judge_items(verdict)
        request = build_request(event, verdict, items, "base", batch_size=policy.batch_size)
        decision = sampler.decide(candidate_for(event, verdict, len(items), request.est_tokens))
        if decision.dropped:
            metrics.judge_dropped.labels(reason=decision.reason).inc()
        if not decision.sampled:
            return
        request = replace(request, reason=decision.reason)
        requests.send_soon(key=event.event_id.encode("utf-8"), value=request.to_dict())

    rapp.processor.hooks.append(sample)
    runner = build_judge_runner(
        settings,
        metrics,
        labels,
        publish=topic_publisher(rapp.channels["verdicts"]),
        audit=topic_publisher(rapp.channels["audit_json"]),
        client=client,
    )
    attach_judge_agent(rapp.faust, runner, requests)
