"""The judge's hook on a request a check process built (agents/checking/judged.py) decides, writes
and counts exactly as the hook on the answer checked in the worker: requests sent, drops for a
full queue and for the budgets, the drop records of audited answers, canaries, the counters."""

from __future__ import annotations

import json
import pickle
from dataclasses import replace
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from agents.checking.work import CheckWork
from agents.output.audit import AuditTrail
from agents.output.outbox import Outbox
from agents.stream.check_agent import CheckProcessor, RecordMeta
from agents.stream.judge_wiring import judge_hook
from agents.telemetry.metrics import AppLabels, build_metrics
from monitor.config.settings import load_settings
from monitor.sampling.policy import QUEUE_FULL, Decision, Sampler, SamplingPolicy
from tests.conftest import standard_mix

CLOCK = 1_800_000_000.0


def _events() -> list[bytes]:
    events = standard_mix(400, seed=11)
    for i in (3, 50, 120):  # canaries: judged whatever the hash says, never shed
        events[i]["gold"] = {"label": "supported"}
    return [json.dumps(e).encode() for e in events]


def _run(events: list[bytes], pooled: bool) -> tuple[list[tuple[str, Any, Any]], Any, int]:
    settings = load_settings(
        judge_enabled=True,
        judge_sample_rate=0.2,
        judge_oversample_rate=0.5,
        judge_calls_per_minute=30,  # the budget drops the later sampled answers
        judge_max_evidence_chars=800,
        audit_sample_rate=0.3,
    )
    metrics = build_metrics(CollectorRegistry())
    outbox = Outbox()
    audit = AuditTrail(settings, metrics, send=lambda k, v: outbox.add("audit", k.encode(), v))
    processor = CheckProcessor(settings, metrics, outbox.add, audit=audit, clock=lambda: CLOCK)
    policy = SamplingPolicy(
        base_rate=settings.judge_sample_rate,
        oversample_rate=settings.judge_oversample_rate,
        calls_per_minute=settings.judge_calls_per_minute,
        tokens_per_hour=settings.judge_tokens_per_hour,
        batch_size=settings.judge_batch_size,
    )
    asked = [0]

    def shed() -> Decision | None:  # every fourth question: the judge's queue is full
        asked[0] += 1
        return QUEUE_FULL if asked[0] % 4 == 0 else None

    labels = AppLabels(settings.app_allowlist, settings.max_apps)
    sampler = Sampler(policy, clock=lambda: 0.0)
    judge_hook(settings, metrics, processor, labels, sampler, shed)
    returned = 0
    for start in range(0, len(events), 64):
        batch = [
            (raw, RecordMeta("answers", i % 4, i, CLOCK - 1.0))
            for i, raw in enumerate(events[start : start + 64], start)
        ]
        if pooled:
            work = replace(processor.work, hook_rate=0.0, judge=processor.judge_planning)
            sent = pickle.loads(pickle.dumps([(raw, meta.where()) for raw, meta in batch]))
            results = pickle.loads(pickle.dumps(work.run_batch(sent)))
            for (raw, meta), result in zip(batch, results, strict=True):
                returned += result.event is not None
                processor.apply(result, raw, meta)
        else:
            for raw, meta in batch:
                processor.handle(raw, meta)
        processor.flush()
    records = []
    for role, key, value in outbox.take():
        record = json.loads(value)
        if role == "audit":
            record.pop("audited_at", None)
        records.append((role, key, record))
    counters = sorted(
        (s.name, sorted(s.labels.items()), s.value)
        for family in metrics.registry.collect()
        if family.type == "counter"
        for s in family.samples
        if s.name.endswith("_total")
    )
    return records, counters, returned


def test_requests_built_in_a_check_process_give_the_same_records_and_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a check process's clock (CheckWork.check's default) fixed like the worker's: the
    # request's created_at is the time the answer was checked
    defaults = CheckWork.check.__defaults__ or ()
    monkeypatch.setattr(CheckWork.check, "__defaults__", ((lambda: CLOCK), *defaults[1:]))
    events = _events()
    here, here_counts, _ = _run(events, pooled=False)
    there, there_counts, returned = _run(events, pooled=True)
    sent = [r for r in here if r[0] == "judge-requests"]
    drops = [r for r in here if r[0] == "audit" and r[2].get("outcome") == "dropped"]
    reasons = {r[2]["dropped_because"] for r in drops}
    # every branch is exercised: sent (canaries among them), shed, over the budget
    assert len(sent) > 10 and {"canary", "base", "oversample"} <= {r[2]["reason"] for r in sent}
    assert "queue_full" in reasons and len(reasons) >= 2, reasons
    assert there == here
    assert there_counts == here_counts
    assert returned == 3  # only the canaries came back whole (for the canary hooks)
