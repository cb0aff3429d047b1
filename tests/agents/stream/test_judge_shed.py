"""While the judge sheds load, a batch sent to a check process brings back notes of the drops
instead of the answers and verdicts: the worker must count them as the judge hook counts the
drops it makes itself (counters, the audited answers' drop records, the estimates' sample)."""

from __future__ import annotations

import json
import pickle
from dataclasses import replace
from typing import Any

import pytest

from agents.stream.app import create_app
from agents.stream.check_agent import RecordMeta
from monitor.config.settings import load_settings
from tests.conftest import standard_mix

pytest.importorskip("monitor.check")

SETTINGS: dict[str, Any] = {
    "bootstrap_servers": "kafka://127.0.0.1:9092",
    "metrics_port": 16112,
    "topic_prefix": "shed.",
    "check_processes": 0,  # the pool's side is driven by hand below
    "judge_enabled": True,
    "judge_sample_rate": 0.2,
    "judge_oversample_rate": 0.6,
    "audit_sample_rate": 0.3,  # some drops audited, some not
}


def full_judge() -> Any:
    rapp = create_app(load_settings(**SETTINGS))
    assert rapp.judge is not None
    while not rapp.judge.full:  # no judge task drains the queue here
        rapp.judge.queue.put_nowait((None, None))
    sent: list[tuple[str, Any]] = []

    def emit(role: str, key: bytes | None, value: bytes) -> None:
        if role == "judge-requests":
            sent.append((role, json.loads(value)["event_id"]))
        elif role == "audit":
            record = json.loads(value)
            if record.get("outcome") == "dropped":
                record.pop("judged_at")  # when it was counted: a clock
                sent.append((role, record))

    rapp.processor.emit = emit
    return rapp, sent


def counts(rapp: Any) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in rapp.metrics.registry.collect():
        if family.name in ("ragmon_judge_dropped", "ragmon_estimation_answers"):
            for s in family.samples:
                if s.name.endswith("_total"):
                    out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_notes_count_as_the_judge_hook_counts_its_own_drops() -> None:
    raws = [json.dumps(e).encode() for e in standard_mix(400, seed=11)]
    metas = [RecordMeta("shed.answers", 0, i, 1000.0 + i) for i in range(len(raws))]

    live, live_sent = full_judge()  # checked in the worker: the hook sheds each answer itself
    for raw, meta in zip(raws, metas, strict=True):
        live.processor.handle(raw, meta)

    noted, noted_sent = full_judge()  # as with check processes: notes, pickled there and back
    processor = noted.processor
    work = replace(processor.work, hook_rate=0.0, judge_rates=processor.judge_rates)
    shed = processor.shed_reason()
    assert shed == "queue_full"
    results = pickle.loads(
        pickle.dumps(
            work.run_batch([(r, m.where()) for r, m in zip(raws, metas, strict=True)], shed)
        )
    )
    assert sum(r.judge_shed is not None for r in results) > 20
    assert all(r.verdict is None for r in results if r.judge_shed is not None)
    for result, raw, meta in zip(results, raws, metas, strict=True):
        processor.apply(result, raw, meta)

    assert noted_sent == live_sent
    drops = [r for role, r in live_sent if role == "audit"]
    assert {r["sampled_because"] for r in drops} == {"base", "oversample"}
    assert {r["dropped_because"] for r in drops} == {"queue_full"}
    assert counts(noted) == counts(live)
    dropped = counts(live)[("ragmon_judge_dropped_total", (("reason", "queue_full"),))]
    # every answer the plan would consider was dropped, and only a share of them audited
    assert dropped == sum(r.judge_shed is not None for r in results) > len(drops) > 0
    assert any(k[0] == "ragmon_estimation_answers_total" and v > 0 for k, v in counts(live).items())


def test_no_notes_while_the_judge_takes_requests() -> None:
    rapp = create_app(load_settings(**SETTINGS))
    assert rapp.processor.shed_reason() is None
    rapp_off = create_app(load_settings(**{**SETTINGS, "judge_enabled": False}))
    assert rapp_off.processor.shed_reason() is None  # no judge: nothing to shed
