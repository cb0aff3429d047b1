"""Vendor envelopes through the stream (real broker, real worker): the verdicts on the audit
topic, the counters and the window gauges are what the offline checks of the same bytes say, and
every unreadable envelope is a dead letter with its reason. The cases are the unit tests' (built
with the vendors' SDKs, expectations worked out by hand: tests/unit/monitor/inputs)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from tests.integration.conftest import Namespace, WorkerProcess, consume, produce, wait_until
from tests.integration.test_pipeline import Key, Offline, _key, exported_counters, total
from tests.unit.monitor.inputs.vendor_cases import Case, all_cases, require_sdks

pytestmark = pytest.mark.integration
require_sdks()


def _claims(record: dict[str, Any]) -> list[tuple[str, list[int], str]]:
    return [(c["text"], c["citation_indexes"], c["verdict"]) for c in record["claims"]]


def _citations(record: dict[str, Any]) -> list[tuple[Any, ...]]:
    fields = ("raw", "format", "doc_id", "status", "error", "excerpt")
    return [tuple(c.get(f) for f in fields) for c in record["citations"]]


@dataclass
class Streamed:
    cases: list[Case]
    offline: Offline
    expected: dict[str, dict[str, Any]]  # event_id → offline verdict record
    metrics: dict[Key, float]
    worker: WorkerProcess
    ns: Namespace
    bootstrap: str


@pytest.fixture(scope="module")
def streamed(broker: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Streamed]:
    from monitor.check import check_bytes
    from monitor.config.settings import load_settings
    from monitor.output.verdict_io import verdict_to_dict
    from monitor.records.models import Rejection

    options = load_settings().check_options()
    cases = all_cases()
    offline = Offline()
    expected = {}
    records: list[tuple[bytes | None, bytes]] = []
    for case in cases:
        value = json.dumps(case.envelope).encode()
        outcome = check_bytes(value, options)
        offline.add(outcome)
        if not isinstance(outcome, Rejection):
            expected[outcome.event_id] = verdict_to_dict(outcome)
        records.append((case.envelope["event_id"].encode(), value))
    ns = Namespace("vendors")
    worker = WorkerProcess(
        broker.bootstrap, ns, tmp_path_factory.mktemp("vendors"), {"RAGMON_AUDIT_SAMPLE_RATE": "1"}
    )
    worker.start()
    try:
        worker.wait_assigned()
        produce(broker.bootstrap, ns.topic("answers"), records)

        def done() -> dict[Key, float] | None:
            m = worker.metrics()
            return m if total(m, "ragmon_events_total") >= len(records) else None

        metrics = wait_until(done, timeout=120, interval=0.5, what="all envelopes processed")
        yield Streamed(cases, offline, expected, metrics, worker, ns, broker.bootstrap)
    finally:
        worker.stop()


def test_counters_equal_offline_totals(streamed: Streamed) -> None:
    assert exported_counters(streamed.metrics) == streamed.offline.counters
    rejected = sum(1 for c in streamed.cases if c.rejected)
    assert total(streamed.metrics, "ragmon_events_total", outcome="rejected") == rejected


def test_window_gauges_equal_the_offline_ratios(streamed: Streamed) -> None:
    window = streamed.offline.window["vendors"]

    def published() -> dict[Key, float] | None:
        m = streamed.worker.metrics()
        return m if m.get(_key("ragmon_window_events", app="vendors")) == window["events"] else None

    m = wait_until(published, timeout=30, what="window gauges")
    for key, value in streamed.offline.ratios("vendors").items():
        assert m[key] == pytest.approx(value, rel=1e-12), key


def test_verdicts_on_the_audit_topic_equal_the_offline_ones(streamed: Streamed) -> None:
    audited = consume(streamed.bootstrap, streamed.ns.topic("audit"), len(streamed.expected))
    got = {}
    for message in audited:
        record = json.loads(message.value)
        got[record["event_id"]] = record
    assert set(got) == set(streamed.expected)
    for event_id, want in streamed.expected.items():
        record = got[event_id]
        assert _claims(record) == _claims(want), event_id
        assert _citations(record) == _citations(want), event_id
        assert record["scores"] == want["scores"], event_id
    # the hand-worked expectations hold on the stream too (one per format, spot-checked)
    by_id = {c.envelope["event_id"]: c for c in streamed.cases}
    for event_id, record in got.items():
        case = by_id[event_id]
        assert [tuple(c) for c in _claims(record)] == [(t, list(i), v) for t, i, v in case.claims]


def test_unreadable_envelopes_are_dead_letters_with_their_reason(streamed: Streamed) -> None:
    bad = [c for c in streamed.cases if c.rejected]
    letters = consume(streamed.bootstrap, streamed.ns.topic("dlq"), len(bad))
    got = {json.loads(m.value)["event_id"]: json.loads(m.value) for m in letters}
    for case in bad:
        assert case.rejected is not None
        letter = got[case.envelope["event_id"]]
        assert letter["reason"] == case.rejected[0]
        assert case.rejected[1] in letter["error"]
        assert letter["app"] == "vendors"


def test_input_format_reads_a_topic_of_keyless_envelopes(
    broker: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """RAGMON_INPUT_FORMAT reaches the worker's check processes: Gemini envelopes without the
    `format` key are checked, not dead-lettered as answer events without an answer."""
    cases = [c for c in all_cases() if c.fmt == "gemini.generate_content" and not c.rejected]
    records: list[tuple[bytes | None, bytes]] = []
    for case in cases:
        keyless = {k: v for k, v in case.envelope.items() if k != "format"}
        records.append((None, json.dumps(keyless).encode()))
    ns = Namespace("keyless")
    env = {"RAGMON_INPUT_FORMAT": "gemini.generate_content", "RAGMON_CHECK_PROCESSES": "1"}
    worker = WorkerProcess(broker.bootstrap, ns, tmp_path_factory.mktemp("keyless"), env)
    worker.start()
    try:
        worker.wait_assigned()
        produce(broker.bootstrap, ns.topic("answers"), records)

        def done() -> dict[Key, float] | None:
            m = worker.metrics()
            return m if total(m, "ragmon_events_total") >= len(records) else None

        m = wait_until(done, timeout=120, interval=0.5, what="keyless envelopes processed")
        assert total(m, "ragmon_events_total", outcome="checked") == len(records)
        assert total(m, "ragmon_dlq_total") == 0
        cited = sum(len(c.citations) for c in cases)
        assert total(m, "ragmon_citations_total") == cited
    finally:
        worker.stop()
