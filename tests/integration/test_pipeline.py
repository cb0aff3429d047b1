"""The streaming monitor on a real broker, against the offline checks of the same events.

One worker process consumes 500 standard-mix events with malformed records interleaved. Its
exported counters must equal totals computed here with monitor.check over the same bytes, its
window gauges must equal the ratios of those totals, every malformed record must be in the DLQ
with its reason, origin and bytes. Then a batch is redelivered (same worker: skipped before the
checks; restarted worker: counted by the new process but not by the windows).

The tests of this module run in order on one worker (module fixture): the last two redeliver.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from agents.stream.app import GAUGE_INTERVAL
from tests.conftest import standard_mix
from tests.integration.conftest import (
    Namespace,
    WorkerProcess,
    consume,
    produce,
    wait_until,
)

# In file order, not shuffled (`make test` shuffles within modules): the module's worker is
# shared, and the restart test replaces it with a fresh process whose memory holds no dedup,
# so the redelivery test must run before it.
pytestmark = [pytest.mark.integration, pytest.mark.random_order(disabled=True)]

N_EVENTS = 500
COUNTERS = (
    "ragmon_events_total",
    "ragmon_citations_total",
    "ragmon_citation_errors_total",
    "ragmon_claims_total",
    "ragmon_claim_counts_total",
    "ragmon_dlq_total",
)
MALFORMED: list[tuple[str, bytes]] = [
    ("invalid_json", b'{"event_id": "bad-json", "answer": "cut sho'),
    ("schema_violation", json.dumps({"event_id": 123, "answer": "ids are strings"}).encode()),
    (
        "schema_violation",
        json.dumps({"event_id": "bad-types", "app": "search", "answer": ["a", "list"]}).encode(),
    ),
    ("too_large", json.dumps({"event_id": "bad-big", "answer": "x" * 5_000_000}).encode()),
    ("invalid_utf8", b'{"event_id": "bad-utf8", "answer": "caf\xe9 \xff\xfe"}'),
    ("not_an_object", b'["event_id", "answer"]'),
    ("empty", b""),
]
Key = tuple[str, frozenset[tuple[str, str]]]


def _key(name: str, **labels: str) -> Key:
    return (name, frozenset(labels.items()))


@dataclass
class Offline:
    """What the checking core says about the same bytes, tallied independently of agents/."""

    counters: Counter[Key] = field(default_factory=Counter)
    window: dict[str, Counter[str]] = field(default_factory=dict)

    def add(self, outcome: Any) -> None:
        from monitor.records.models import Rejection

        if isinstance(outcome, Rejection):
            app = outcome.app or "other"
            self.counters[_key("ragmon_events_total", app=app, outcome="rejected")] += 1
            self.counters[_key("ragmon_dlq_total", reason=outcome.reason)] += 1
            self.window.setdefault(app, Counter())["events"] += 1
            return
        app = outcome.app or "other"
        c = self.counters
        c[_key("ragmon_events_total", app=app, outcome="checked")] += 1
        w = self.window.setdefault(app, Counter())
        w["events"] += 1
        valid = {r.citation.index for r in outcome.citations if r.valid}
        for r in outcome.citations:
            c[
                _key("ragmon_citations_total", app=app, format=r.citation.format, status=r.status)
            ] += 1
            if r.error:
                c[_key("ragmon_citation_errors_total", app=app, error=r.error)] += 1
            w["citations"] += 1
            w["valid"] += r.valid
        # The claim counts as monitor.checks.scoring.claim_tally defines them (uncited claims past the
        # citation cap and uncited refusals count nowhere; an uncited claim is a hallucination only
        # when the context does not support it, and decided by it), then weighed down to
        # RAGMON_ANSWER_CLAIM_WEIGHT claims per answer.
        from monitor.checks.scoring import is_over_cap
        from monitor.config.options import CheckOptions
        from monitor.estimation.vector import weighted

        tally = Counter[str]()
        for cl in outcome.claims:
            v = cl.support.verdict
            c[_key("ragmon_claims_total", app=app, verdict=v, tier=cl.support.tier)] += 1
            indexes = cl.claim.citation_indexes
            if not indexes and is_over_cap(cl):
                continue
            if not indexes and v == "abstain":  # a refusal is in no rate (docs/uncited.md)
                continue
            cited = bool(indexes)
            # an uncited claim is decided by its grounding in the context, as a cited one by
            # its citations (support_rate = supported / decided claims)
            decided = v != "unverifiable"
            if cited:
                unsupported = v == "not_supported" or not set(indexes) & valid
            else:
                unsupported = v == "not_supported"
            tally["claims"] += 1
            tally["cited"] += cited
            tally["decided"] += decided
            tally["supported"] += decided and v == "supported"
            tally["unsupported"] += unsupported
        names = ["claims", "cited", "decided", "supported", "unsupported"]
        kinds = ["claims", "cited", "decided", "supported", "hallucinated"]
        counts = weighted([tally[n] for n in names], CheckOptions().answer_claim_weight)
        for kind, name, n in zip(kinds, names, counts, strict=True):
            c[_key("ragmon_claim_counts_total", app=app, kind=kind)] += n
            w[name] += n

    def ratios(self, app: str) -> dict[Key, float]:
        """The window gauges a worker without a judge exports for the app: the exact ratios and
        the cheap tier's verdict shares (support and hallucination are estimates that need
        judged answers: tests/integration/test_rates_stream.py)."""
        w = self.window[app]
        share = "ragmon_cheap_verdict_share"
        return {
            _key("ragmon_validity_ratio", app=app): w["valid"] / w["citations"],
            _key("ragmon_coverage_ratio", app=app): w["cited"] / w["claims"],
            _key(share, app=app, verdict="supported"): w["supported"] / w["claims"],
            _key(share, app=app, verdict="not_supported"): w["unsupported"] / w["claims"],
        }


def exported_counters(metrics: dict[Key, float]) -> Counter[Key]:
    return Counter({k: int(v) for k, v in metrics.items() if k[0] in COUNTERS and v})


def total(metrics: dict[Key, float], name: str, **labels: str) -> float:
    want = set(labels.items())
    return sum(v for (n, lbl), v in metrics.items() if n == name and want <= lbl)


@dataclass
class Run:
    worker: WorkerProcess
    ns: Namespace
    bootstrap: str
    valid: list[tuple[bytes, bytes]]
    offline: Offline
    malformed_meta: list[tuple[str, bytes, Any]]
    metrics: dict[Key, float]


@pytest.fixture(scope="module")
def run(broker: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    from monitor.check import check_bytes
    from monitor.config.settings import load_settings

    options = load_settings().check_options()
    events = standard_mix(N_EVENTS)
    valid = [(e["event_id"].encode(), json.dumps(e).encode()) for e in events]
    offline = Offline()
    for _, value in valid:
        offline.add(check_bytes(value, options))
    for reason, value in MALFORMED:
        rejection = check_bytes(value, options)
        assert getattr(rejection, "reason", None) == reason, (reason, rejection)
        offline.add(rejection)

    ns = Namespace("pipeline")
    worker = WorkerProcess(broker.bootstrap, ns, tmp_path_factory.mktemp("pipeline"), {})
    worker.start()
    try:
        worker.wait_assigned()
        # Malformed records between valid ones: the valid events after them must flow on.
        records: list[tuple[bytes | None, bytes]] = []
        bad_positions: dict[int, tuple[str, bytes]] = {}
        for i, record in enumerate(valid):
            if i % 70 == 35 and len(bad_positions) < len(MALFORMED):
                bad = MALFORMED[len(bad_positions)]
                bad_positions[len(records)] = bad
                records.append((None, bad[1]))
            records.append(record)
        metas = produce(broker.bootstrap, ns.topic("answers"), records)
        malformed_meta = [
            (reason, value, metas[pos]) for pos, (reason, value) in bad_positions.items()
        ]
        assert len(malformed_meta) == len(MALFORMED)

        def done() -> dict[Key, float] | None:
            m = worker.metrics()
            processed = total(m, "ragmon_events_total")
            return m if processed >= N_EVENTS + len(MALFORMED) else None

        metrics = wait_until(done, timeout=120, interval=0.5, what="all events processed")
        state = Run(worker, ns, broker.bootstrap, valid, offline, malformed_meta, metrics)
        yield state
        worker = state.worker  # a test may have replaced it
    finally:
        worker.stop()


def test_counters_equal_offline_totals(run: Run) -> None:
    assert exported_counters(run.metrics) == run.offline.counters


def test_window_gauges_equal_ratios_of_the_totals(run: Run) -> None:
    apps = sorted(run.offline.window)

    def published() -> dict[Key, float] | None:
        m = run.worker.metrics()
        ok = all(
            m.get(_key("ragmon_window_events", app=app)) == run.offline.window[app]["events"]
            for app in apps
        )
        return m if ok else None

    m = wait_until(published, timeout=20, what="window gauges")
    checked_apps = [a for a in apps if run.offline.window[a]["claims"]]
    assert checked_apps == ["docs-qa", "search", "support-bot"]
    for app in checked_apps:
        for key, expected in run.offline.ratios(app).items():
            assert m[key] == pytest.approx(expected, rel=1e-12), (key, app)
    # Rejected events count in the window (dlq_rate) but have no ratios.
    assert _key("ragmon_validity_ratio", app="other") not in m


def test_malformed_records_are_dead_lettered_with_reason_origin_and_bytes(run: Run) -> None:
    letters = consume(run.bootstrap, run.ns.topic("dlq"), len(MALFORMED))
    assert len(letters) == len(MALFORMED)
    by_origin = {}
    for letter in letters:
        record = json.loads(letter.value)
        by_origin[(record["partition"], record["offset"])] = record
    for reason, value, meta in run.malformed_meta:
        record = by_origin[(meta.partition, meta.offset)]
        assert record["reason"] == reason
        assert record["topic"] == run.ns.topic("answers")
        assert record["error"], reason
        kept = base64.b64decode(record["value_b64"])
        assert record["value_bytes"] == len(value)
        assert record["sha256"] == hashlib.sha256(value).hexdigest()
        if reason == "too_large":
            assert record["truncated"] is True
            assert kept == value[: len(kept)] and 0 < len(kept) < len(value)
        else:
            assert record["truncated"] is False
            assert kept == value


def test_redelivered_batch_is_not_counted_twice(run: Run) -> None:
    batch = run.valid[:100]
    produce(run.bootstrap, run.ns.topic("answers"), list(batch))

    def seen() -> dict[Key, float] | None:
        m = run.worker.metrics()
        return m if total(m, "ragmon_events_total", outcome="duplicate") >= len(batch) else None

    m = wait_until(seen, timeout=60, what="duplicates counted")
    assert total(m, "ragmon_events_total", outcome="duplicate") == len(batch)
    assert total(m, "ragmon_duplicate_events_total") == len(batch)
    counters = exported_counters(m)
    duplicates = Counter({k: v for k, v in counters.items() if ("outcome", "duplicate") in k[1]})
    assert counters - duplicates == run.offline.counters

    # The window's gauges are published once a GAUGE_INTERVAL, not per record: read them only
    # after two publications later than the duplicates' count (a redelivery counted twice would
    # show there as more events than the offline tally).
    counted_at = time.monotonic()

    def window() -> dict[str, float] | None:
        if time.monotonic() - counted_at < 2.5 * GAUGE_INTERVAL:
            return None
        got = run.worker.metrics()
        out = {app: got.get(_key("ragmon_window_events", app=app)) for app in run.offline.window}
        return out if all(v is not None for v in out.values()) else None

    published = wait_until(window, timeout=20, what="window gauges after the duplicates")
    assert published == {app: w["events"] for app, w in run.offline.window.items()}


def test_restarted_worker_keeps_window_dedup_from_the_changelog(
    run: Run, tmp_path_factory: pytest.TempPathFactory
) -> None:
    assert run.worker.stop() == 0
    worker = WorkerProcess(run.bootstrap, run.ns, tmp_path_factory.mktemp("restart"), {})
    run.worker = worker.start()  # the module fixture stops this one
    worker.wait_assigned()
    # The new process rebuilt the windows from the changelog before seeing any new event.
    windows = run.offline.window

    def recovered() -> bool:
        m = worker.metrics()
        return all(
            m.get(_key("ragmon_window_events", app=a)) == w["events"] for a, w in windows.items()
        )

    wait_until(recovered, timeout=60, what="windows recovered")
    batch = run.valid[200:250]
    produce(run.bootstrap, run.ns.topic("answers"), list(batch))

    def counted() -> dict[Key, float] | None:
        m = worker.metrics()
        return m if total(m, "ragmon_duplicate_events_total") >= len(batch) else None

    m = wait_until(counted, timeout=60, what="window duplicates")
    # Fresh process memory: it checks and counts the events again (counters are per process,
    # Prometheus sums their rates); the windowed rates do not count them again.
    checked = total(m, "ragmon_events_total", outcome="checked")
    assert checked >= len(batch)
    assert total(m, "ragmon_duplicate_events_total") == checked
    for app, w in windows.items():
        assert m[_key("ragmon_window_events", app=app)] == w["events"]
