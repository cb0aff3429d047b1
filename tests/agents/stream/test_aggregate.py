from __future__ import annotations

import json
from typing import Any

import pytest
from aiokafka.partitioner import DefaultPartitioner

from agents.output.records import COUNT_FIELDS, add_vectors, score_entry, score_record
from agents.stream.aggregate import WindowAggregator, partition_for_app
from agents.stream.window_store import CountedRecords
from monitor.settings import load_settings
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

    def observe(self, figures: Any, examples: Any = ()) -> list[Any]:
        self.observed.append((figures, list(examples)))
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
    assert exported["search"] == {
        "events": 1,
        "validity": 0.75,
        "support": 0.5,
        "hallucination": 0.4,
        "coverage": 0.8,
    }
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


def test_judge_correction_replaces_the_cheap_verdicts_in_the_original_bucket() -> None:
    agg, store, _, _, clock = make(window=300, step=60)
    clock.now = 130
    cheap = vec(events=1, claims=4, cited_claims=3, decided_claims=2, supported_claims=1)
    agg.handle(batch("search", score_entry("e1", 125, 125, False, cheap)))
    # The judge says the unverifiable cited claim is supported and the cheap "supported"
    # one is not: decided +1, supported +1 -1, unsupported +1.
    delta = vec(decided_claims=1, unsupported_claims=1, judge_calls=2)
    correction = batch("search", score_entry("e1", 0, 125, False, delta), kind="judge")
    clock.now = 190  # judged a minute later: lands in the bucket of 125, not of 190
    done = agg.handle(correction, source="0:9")
    assert done.corrected == 1 and done.counted == 0
    assert store.sums[("search", 120)] == add_vectors(cheap, delta)
    assert ("search", 180) not in store.sums
    counts = agg.rolling("search", 190)
    assert counts[0] == 1  # still one event
    assert agg.publish(190)["search"]["support"] == pytest.approx(1 / 3)
    # Redelivered correction (another record): applied once.
    assert agg.handle(correction, source="0:10").duplicates == 1
    assert agg.rolling("search", 190) == counts
    # A correction for an answer whose bucket has left the window changes nothing.
    clock.now = 1000
    late = batch("search", score_entry("e2", 0, 125, False, delta), kind="judge")
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
    assert figures.values["hallucination"] == pytest.approx(4 / 10)
    assert examples == ["e1", "e2"]


@pytest.mark.parametrize("app", ["search", "docs-qa", "support-bot", "other", "é-app"])
def test_partition_for_app_is_the_producers_partitioner(app: str) -> None:
    for n in (1, 3, 4, 12):
        assert partition_for_app(app, n) == DefaultPartitioner()(app.encode(), list(range(n)), [])
