"""Judge requests built in a check process (`Checked.judge_request`) and admitted in the worker
(the request hook of `judge_wiring.judge_hooks`) must leave what the worker's own judge hook leaves when it plans
the same answers: the same requests published, the same drops (a judge shedding load, the
budgets) with their audit records, the same counters."""

from __future__ import annotations

import json
import pickle
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from prometheus_client import CollectorRegistry

from agents.checking.work import Checked, CheckWork, RequestShape
from agents.output.audit import AuditTrail
from agents.stream.check_agent import CheckProcessor, RecordMeta
from agents.stream.judge_wiring import judge_hooks
from agents.telemetry.metrics import AppLabels, build_metrics
from monitor.config.settings import load_settings
from monitor.sampling.policy import JUDGE_DOWN, QUEUE_FULL, Decision, Sampler, SamplingPolicy
from tests.conftest import standard_mix

pytest.importorskip("monitor.check")

CLOCK = 1_800_000_000.0
SETTINGS: dict[str, Any] = {
    "judge_enabled": True,
    "judge_sample_rate": 0.2,
    "judge_oversample_rate": 0.6,
    "judge_max_evidence_chars": 1_500,
    "judge_batch_size": 2,
    "audit_sample_rate": 0.3,  # some drops audited, some not
}


def worker(shed_every: int) -> tuple[CheckProcessor, list[tuple[str, bytes | None, Any]]]:
    """A worker's processor with the judge's hooks on a sampler whose token budget runs out
    (its clock stands still) and a judge that sheds every `shed_every`-th time it is asked."""
    settings = load_settings(**SETTINGS)
    metrics = build_metrics(CollectorRegistry())
    out: list[tuple[str, bytes | None, Any]] = []

    def emit(role: str, key: bytes | None, value: bytes) -> None:
        record = json.loads(value)
        if role == "audit":
            record.pop("audited_at", None)
            record.pop("judged_at", None)  # when a drop was counted: a clock
        out.append((role, key, record))

    audit = AuditTrail(
        settings, metrics, send=lambda key, value: emit("audit", key.encode(), value)
    )
    labels = AppLabels(settings.app_allowlist, settings.max_apps)
    processor = CheckProcessor(
        settings, metrics, emit, app_labels=labels, audit=audit, clock=lambda: CLOCK
    )
    policy = SamplingPolicy(
        base_rate=settings.judge_sample_rate,
        oversample_rate=settings.judge_oversample_rate,
        calls_per_minute=0,
        tokens_per_hour=60_000,
        batch_size=settings.judge_batch_size,
    )
    sampler = Sampler(policy, clock=lambda: 0.0)
    asked = [0]

    def shed() -> Decision | None:
        asked[0] += 1
        if asked[0] % shed_every:
            return None
        return QUEUE_FULL if asked[0] % (2 * shed_every) else JUDGE_DOWN

    sample, admit = judge_hooks(settings, metrics, processor, labels, sampler, shed)
    processor.hooks.append(sample)
    processor.request_hook = admit
    processor.judge_rates = (settings.judge_sample_rate, settings.judge_oversample_rate)
    processor.judge_requests = RequestShape(
        settings.judge_max_evidence_chars, settings.judge_batch_size
    )
    return processor, out


def counters(processor: CheckProcessor) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in processor.metrics.registry.collect()
        if family.type == "counter"
        for s in family.samples
        if s.name.endswith("_total")
    }


def test_requests_built_in_a_check_process_leave_what_the_worker_hook_leaves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events = standard_mix(400, seed=5)
    events[7] = {**events[7], "gold": {"label": "supported"}}  # a canary: comes back whole
    raws = [json.dumps(e).encode() for e in events]
    metas = [RecordMeta("answers", i % 4, i, 1000.0 + i) for i in range(len(raws))]

    live, live_out = worker(shed_every=5)  # checked in the worker: the hook plans each answer
    for raw, meta in zip(raws, metas, strict=True):
        live.handle(raw, meta)
    live.flush()

    built, built_out = worker(shed_every=5)  # as with check processes: requests come back
    # a check process reads its own clock (`CheckWork.check`'s default): the worker's here
    defaults = CheckWork.check.__defaults__ or ()
    monkeypatch.setattr(CheckWork.check, "__defaults__", (lambda: CLOCK, *defaults[1:]))
    work = replace(
        built.work,
        hook_rate=0.0,
        judge_rates=built.judge_rates,
        judge_requests=built.judge_requests,
    )
    batch = [(r, m.where()) for r, m in zip(raws, metas, strict=True)]
    results = pickle.loads(pickle.dumps(work.run_batch(batch)))
    prepared = [r for r in results if isinstance(r, Checked) and r.judge_request is not None]
    assert len(prepared) > 40
    assert all(r.event is None and r.verdict is None for r in prepared)
    assert sum(isinstance(r, Checked) and r.event is not None for r in results) == 1  # canary
    for result, raw, meta in zip(results, raws, metas, strict=True):
        built.apply(result, raw, meta)
    built.flush()

    assert built_out == live_out
    assert counters(built) == counters(live)
    dropped = {
        labels[0][1]: value
        for (name, labels), value in counters(live).items()
        if name == "ragmon_judge_dropped_total"
    }
    # every way a sampled answer's request can end is exercised
    assert {"queue_full", "judge_down", "budget_tokens"} <= set(dropped)
    assert sum(role == "judge-requests" for role, _, _ in live_out) > 10
    drops = [r for role, _, r in live_out if role == "audit" and r.get("outcome") == "dropped"]
    assert {r["sampled_because"] for r in drops} == {"base", "oversample"}


@pytest.mark.parametrize(
    ("hook", "shed", "noted"),
    [
        ("request_hook", None, lambda r: r.judge_request is not None),
        ("shed_hook", "queue_full", lambda r: r.judge_shed is not None),
    ],
    ids=["request", "shed"],
)
def test_a_failing_judge_hook_costs_no_answer(
    hook: str, shed: str | None, noted: Callable[[Checked], bool]
) -> None:
    """A bug in the hook that admits a check process's request, or counts its note of a drop
    while the judge sheds, must not cost the answer or those after it."""
    processor, _ = worker(shed_every=1_000)
    work = replace(
        processor.work,
        hook_rate=0.0,
        judge_rates=processor.judge_rates,
        judge_requests=processor.judge_requests,
    )
    raws = [json.dumps(e).encode() for e in standard_mix(80, seed=3)]
    metas = [RecordMeta("answers", 0, i, 1000.0 + i) for i in range(len(raws))]
    results = work.run_batch([(r, m.where()) for r, m in zip(raws, metas, strict=True)], shed)
    assert any(isinstance(r, Checked) and noted(r) for r in results)

    def broken(result: Any) -> None:
        raise RuntimeError(f"a bug in the {hook}")

    setattr(processor, hook, broken)
    for result, raw, meta in zip(results, raws, metas, strict=True):
        processor.apply(result, raw, meta)
    assert processor.processed["checked"] == len(raws)
