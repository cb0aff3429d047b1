from __future__ import annotations

import json
from typing import Any

import pytest
from aiokafka.partitioner import DefaultPartitioner

from agents.output.records import COUNT_FIELDS, score_entry, score_record, vector_to_counts
from agents.stream.aggregate import WindowAggregator, partition_for_app
from agents.stream.window_store import CountedRecords
from monitor.config.settings import load_settings
from monitor.estimation.ppi import labelled_from, population_from, ppi_mean
from monitor.estimation.window import answer_sums, label_sums
from tests.agents.helpers import fresh_metrics, samples, value


class Stored:
    """The dedup table: remembered entries by record key."""

    def __init__(self) -> None:
        self.entries: dict[str, Any] = {}

    def __setitem__(self, key: str, value: Any) -> None:
        self.entries[key] = value


class FakeAlerting:
    def __init__(self) -> None:
        self.observed: list[Any] = []
        self.restored: list[str] = []
        self.forgotten: list[str] = []

    def observe(
        self, figures: Any, examples: Any = (), candidates: Any = (), totals: Any = None
    ) -> list[Any]:
        self.observed.append((figures, list(examples)))
        self.candidates = (list(candidates), totals)
        return []

    def restore(self, app: str) -> None:
        self.restored.append(app)

    def forget(self, app: str) -> None:
        self.forgotten.append(app)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def vec(**counts: int) -> list[int]:
    return [counts.get(name, 0) for name in COUNT_FIELDS]


def entry(event_id: str | None, at: float, failed: bool = False, **counts: int) -> list[Any]:
    return score_entry(event_id, at, at, failed, vec(events=1, **counts))


def batch(app: str, *entries: list[Any], kind: str = "scores") -> dict[str, Any]:
    return json.loads(json.dumps(score_record(app, list(entries), kind)))


def make(
    window: float = 300, step: float = 60, partitions: int = 4
) -> tuple[WindowAggregator, CountedRecords, Any, FakeAlerting, Clock]:
    settings = load_settings(window_seconds=window, window_step_seconds=step)
    metrics, alerting, clock = fresh_metrics(), FakeAlerting(), Clock(0)
    store = CountedRecords(Stored(), step, horizon=3600, max_ids=1000)
    agg = WindowAggregator(
        settings,
        metrics,
        store,
        partitions,
        alerting=alerting,
        clock=clock,  # type: ignore[arg-type]
    )
    agg.sync_ownership(range(partitions))
    return agg, store, metrics, alerting, clock


def test_rolling_window_sums_the_last_buckets_only() -> None:
    agg, _, _, _, clock = make(window=300, step=60)
    assert agg.n_buckets == 5
    clock.now = 1300
    for t, eid in ((1000, "a"), (1100, "b"), (1290, "c")):
        agg.handle(batch("search", entry(eid, t, citations=2, valid_citations=1)))
    # At 1300 the window holds buckets starting at 1080..1260: "a" (bucket 960) is out.
    counts = agg.rolling("search", 1300)
    assert counts[:4] == [2, 0, 4, 2]
    assert agg.rolling("search", 1100)[0] == 2  # a (bucket 960) and b (1080); c is later
    assert agg.rolling("search", 1800) == [0] * len(counts)


def test_a_batch_costs_one_table_write_holding_counts_and_ids() -> None:
    agg, store, _, _, clock = make(step=60)
    clock.now = 200
    done = agg.handle(
        batch("search", *(entry(f"e{i}", 170 + i, claims=1) for i in range(20))),
        source="0:5",
    )
    assert (done.counted, done.duplicates) == (20, 0)
    ((key, written),) = store.table.entries.items()
    assert key == "0:5"
    assert written["ids"] == [f"e{i}" for i in range(20)] and written["t"] == 200
    buckets = dict((start, vector) for start, vector in written["buckets"])
    assert sorted(buckets) == [120, 180] and buckets[120][4] == buckets[180][4] == 10
    assert store.get("search", 125) == buckets[120]


def test_a_record_read_again_after_a_crash_is_skipped_whole() -> None:
    agg, _, metrics, _, clock = make()
    clock.now = 100
    record = batch("other", entry(None, 100, rejected=1), entry(None, 100, rejected=1))
    assert agg.handle(record, source="2:9").counted == 2
    again = agg.handle(record, source="2:9")  # same position on `scores`: its entry exists
    assert (again.counted, again.duplicates) == (0, 2)
    assert agg.rolling("other", 100)[:2] == [2, 2]
    assert value(metrics, "ragmon_duplicate_events_total", app="other") == 2


def test_publish_sets_ratio_gauges_and_drops_undefined_ones() -> None:
    agg, _, metrics, alerting, clock = make()
    clock.now = 500
    agg.handle(
        batch(
            "search",
            entry(
                "e1",
                500,
                citations=4,
                valid_citations=3,
                claims=5,
                cited_claims=4,
                decided_claims=2,
                supported_claims=1,
                unsupported_claims=2,
            ),
        )
    )
    agg.handle(batch("other", entry(None, 500, rejected=1)))
    exported = agg.publish(510)
    got = exported["search"]
    assert (got["events"], got["validity"], got["coverage"]) == (1, 0.75, 0.8)
    # the cheap tier's own shares; no judged answer: no estimate, no series
    assert (got["cheap_support"], got["cheap_hallucination"]) == (0.2, 0.4)
    assert got["support"] is None and got["hallucination"] is None
    assert samples(metrics, "ragmon_support_ratio") == {}
    assert samples(metrics, "ragmon_hallucination_ratio_lower") == {}
    assert value(metrics, "ragmon_window_judged_claims", app="search") == 0
    assert value(metrics, "ragmon_cheap_verdict_share", app="search", verdict="supported") == 0.2
    assert value(metrics, "ragmon_validity_ratio", app="search") == 0.75
    assert value(metrics, "ragmon_window_events", app="other") == 1
    assert samples(metrics, "ragmon_validity_ratio").keys() == {frozenset({("app", "search")})}
    assert set(alerting.restored) == {"search", "other"}
    # Once the window has passed, the events gauge says 0 and the ratios disappear.
    agg.publish(510 + 400)
    assert value(metrics, "ragmon_window_events", app="search") == 0
    assert samples(metrics, "ragmon_validity_ratio") == {}


def test_redelivered_answers_are_not_counted_twice() -> None:
    agg, _, metrics, _, clock = make()
    clock.now = 100
    done = agg.handle(batch("search", entry("e1", 100, claims=2), entry("e1", 100, claims=2)))
    assert (done.counted, done.duplicates) == (1, 1)  # twice in one batch
    again = agg.handle(batch("search", entry("e1", 101, claims=2), entry(None, 101, rejected=1)))
    assert (again.counted, again.duplicates) == (1, 1)  # no id: no dedup
    assert agg.rolling("search", 101)[:5] == [2, 1, 0, 0, 2]
    assert value(metrics, "ragmon_duplicate_events_total", app="search") == 2
    assert agg.handle({"not": "a score record"}).ignored


def test_windows_and_ids_are_rebuilt_from_the_stored_entries() -> None:
    agg, store, _, _, clock = make()
    clock.now = 100
    agg.handle(batch("search", entry("e1", 100, claims=2), entry("e2", 100)), source="1:7")
    agg.handle(batch("other", entry(None, 100, rejected=1)), source="1:8")
    stored = list(store.table.entries.items())
    fresh = CountedRecords(Stored(), 60, horizon=3600, max_ids=1000)  # a new worker
    assert fresh.rebuild(stored) == 2
    assert fresh.sums == store.sums and fresh.counted("1:8")
    assert fresh.seen("e1", 200) and not fresh.seen("e3", 200)
    assert not fresh.seen("e1", 100 + 3601)  # beyond the horizon


def _answer(event_id: str, at: float, score: float) -> list[Any]:
    """One checked answer of one judgeable claim with its estimation sums."""
    counts = dict(claims=1, cited_claims=1, **answer_sums([score], 0, 0))
    return score_entry(event_id, at, at, False, vec(events=1, **counts))


def _label(event_id: str, at: float, score: float, supported: bool) -> list[Any]:
    """The judge's record for it: one call, its label sums (estimation sample)."""
    sums = label_sums([score], int(supported), int(not supported))
    return score_entry(event_id, 0, at, False, vec(judge_calls=1, **sums))


def test_judge_labels_land_in_the_original_bucket_and_make_the_estimates() -> None:
    agg, store, metrics, _, clock = make(window=300, step=60)
    clock.now = 130
    scores = {"e1": 0.9, "e2": 0.2, "e3": 0.7, "e4": 0.4}
    agg.handle(batch("search", *(_answer(e, 125, f) for e, f in scores.items())))
    before = list(store.sums[("search", 120)])
    clock.now = 190  # judged a minute later: lands in the bucket of 125, not of 190
    judged = {"e1": True, "e2": False, "e3": True}
    labels = batch(
        "search", *(_label(e, 125, scores[e], ok) for e, ok in judged.items()), kind="judge"
    )
    done = agg.handle(labels, source="0:9")
    assert done.corrected == 3 and done.counted == 0
    assert ("search", 180) not in store.sums
    now = store.sums[("search", 120)]
    # the cheap counts are untouched; the label sums are added
    assert now[: COUNT_FIELDS.index("judge_calls")] == before[: COUNT_FIELDS.index("judge_calls")]
    assert now[COUNT_FIELDS.index("lab_n")] == 3 and now[COUNT_FIELDS.index("lab_s")] == 2
    want = ppi_mean(
        labelled_from([1, 0, 1], [0.9, 0.2, 0.7]), population_from([0.9, 0.2, 0.7, 0.4])
    )
    assert want is not None
    exported = agg.publish(190)["search"]
    assert exported["support"] == pytest.approx(want.value)
    assert exported["support_lower"] == pytest.approx(want.lower)
    assert value(metrics, "ragmon_support_ratio", app="search") == pytest.approx(want.value)
    assert value(metrics, "ragmon_support_ratio_upper", app="search") == pytest.approx(want.upper)
    assert value(metrics, "ragmon_window_judged_claims", app="search") == 3
    # Redelivered labels (another record): applied once.
    counts = agg.rolling("search", 190)
    assert agg.handle(labels, source="0:10").duplicates == 3
    assert agg.rolling("search", 190) == counts
    # Labels for an answer whose bucket has left the window change nothing.
    clock.now = 1000
    late = batch("search", _label("e4", 125, 0.4, True), kind="judge")
    assert agg.handle(late).stale == 1


def test_apps_owned_by_another_worker_lose_their_series() -> None:
    agg, _, metrics, alerting, clock = make(partitions=4)
    clock.now = 100
    apps = ["search", "docs-qa", "support-bot", "billing"]
    for app in apps:
        agg.handle(batch(app, entry(f"id-{app}", 100, citations=1, valid_citations=1)))
    agg.publish(100)
    assert {dict(k)["app"] for k in samples(metrics, "ragmon_window_events")} == set(apps)
    kept = {partition_for_app("search", 4)}
    agg.sync_ownership(kept)
    still = {dict(k)["app"] for k in samples(metrics, "ragmon_window_events")}
    assert still == {a for a in apps if partition_for_app(a, 4) in kept}
    assert set(alerting.forgotten) == set(apps) - still
    agg.publish(101)  # a standby copy of the other apps' buckets is not exported
    assert {dict(k)["app"] for k in samples(metrics, "ragmon_window_events")} == still


def test_alert_rules_see_the_rolling_figures_at_most_once_a_second() -> None:
    agg, _, _, alerting, clock = make()
    clock.now = 100.0
    agg.handle(batch("search", entry("e1", 100, True, claims=4, unsupported_claims=2)))
    clock.now = 100.5
    agg.handle(batch("search", entry("e2", 100.5, True, claims=4, unsupported_claims=2)))
    clock.now = 101.2
    agg.handle(batch("search", entry("e3", 101.2, claims=2)))
    assert len(alerting.observed) == 2
    figures, examples = alerting.observed[-1]
    assert figures.app == "search" and figures.events == 3
    assert figures.values["cheap_hallucination"] == pytest.approx(4 / 10)
    assert examples == ["e1", "e2"]
    # the failing answers of the window go along with their counts, to be ranked per rule
    candidates, totals = alerting.candidates
    assert [(eid, c["claims"], c["unsupported_claims"]) for eid, c in candidates] == [
        ("e1", 4, 2),
        ("e2", 4, 2),
    ]
    assert (totals["claims"], totals["unsupported_claims"]) == (10, 4)


@pytest.mark.parametrize("app", ["search", "docs-qa", "support-bot", "other", "é-app"])
def test_partition_for_app_is_the_producers_partitioner(app: str) -> None:
    for n in (1, 3, 4, 12):
        assert partition_for_app(app, n) == DefaultPartitioner()(app.encode(), list(range(n)), [])


def test_rules_are_evaluated_on_the_timer_when_no_answer_arrives() -> None:
    """A drift's last answers arrive within a second of the previous evaluation: the alert must
    not wait for another answer (it fired 28 s late, and only when one came)."""
    agg, _, _, alerting, clock = make()
    agg.sync_ownership(range(4))
    clock.now = 100.0
    agg.handle(batch("search", entry("e1", 100, citations=4, valid_citations=4)))
    clock.now = 100.4  # within the second: not evaluated on arrival
    agg.handle(batch("search", entry("e2", 100.4, True, citations=4)))
    assert len(alerting.observed) == 1
    agg.publish(101.5)  # the gauge timer, no new answer
    assert len(alerting.observed) == 2
    figures, _ = alerting.observed[-1]
    assert figures.at == 101.5 and figures.values["validity"] == pytest.approx(4 / 8)
    agg.publish(101.9)  # at most once a second
    assert len(alerting.observed) == 2
    # the window empties with the clock: the rules see an app without events
    agg.publish(1000.0)
    figures, _ = alerting.observed[-1]
    assert figures.events == 0 and figures.values["validity"] is None


def test_candidates_name_each_answers_counts_only_when_read() -> None:
    from agents.stream.aggregate import Candidates

    kept = [("a", (1, 0, 2)), ("b", (1, 0, 0, 0, 3))]
    lazy = Candidates(list(kept))
    assert len(lazy) == 2 and bool(lazy)
    eager = [(eid, vector_to_counts(v)) for eid, v in kept]
    assert list(lazy) == eager
    assert lazy[1] == eager[1] and lazy[-1] == eager[-1]
    assert list(lazy[1:]) == eager[1:]
    assert lazy[0][1]["citations"] == 2 and lazy[1][1]["claims"] == 3
    assert not Candidates([])
