from __future__ import annotations

from typing import Any

import pytest
from aiokafka.partitioner import DefaultPartitioner
from faust.windows import TumblingWindow

from agents.aggregate import WindowAggregator, partition_for_app
from agents.records import score_record
from monitor.settings import load_settings
from tests.agents.helpers import fresh_metrics, samples, value


class FakeTable:
    """The parts of a Faust tumbling table the aggregator uses, with a settable event time."""

    def __init__(self, step: float) -> None:
        self.window = TumblingWindow(step)
        self.data: dict[Any, list[int]] = {}
        self.now = 0.0

    def get(self, key: Any, default: Any = None) -> Any:
        return self.data.get(key, default)


class FakeWindowSet:
    def __init__(self, table: FakeTable, key: str) -> None:
        self.table, self.key = table, key

    def apply(self, op: Any, value: Any) -> None:
        k = (self.key, self.table.window.current(self.table.now))
        self.table.data[k] = op(self.table.data.get(k), value)


class FakeWrapper:
    def __init__(self, step: float) -> None:
        self.table = FakeTable(step)

    def __getitem__(self, key: str) -> FakeWindowSet:
        return FakeWindowSet(self.table, key)


class FakeSeen:
    def __init__(self) -> None:
        self.ids: set[str] = set()

    def check_and_mark(self, event_id: str) -> bool:
        if event_id in self.ids:
            return True
        self.ids.add(event_id)
        return False


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


def record(event_id: str | None, app: str, failed: bool = False, **counts: int) -> dict[str, Any]:
    return score_record(
        event_id=event_id,
        app=app,
        counts={"events": 1, **counts},
        event_time=0,
        processed_at=0,
        failed=failed,
    )


def make(
    window: float = 300, step: float = 60, partitions: int = 4
) -> tuple[WindowAggregator, FakeWrapper, Any, FakeAlerting, Clock]:
    settings = load_settings(window_seconds=window, window_step_seconds=step)
    wrapper, metrics, alerting, clock = (
        FakeWrapper(step),
        fresh_metrics(),
        FakeAlerting(),
        Clock(0.0),
    )
    agg = WindowAggregator(
        settings,
        metrics,
        wrapper,
        partitions,
        seen=FakeSeen(),
        alerting=alerting,
        clock=clock,  # type: ignore[arg-type]
    )
    agg.sync_ownership(range(partitions))
    return agg, wrapper, metrics, alerting, clock


def at(wrapper: FakeWrapper, clock: Clock, t: float) -> None:
    wrapper.table.now = t
    clock.now = t


def test_rolling_window_sums_the_last_buckets_only() -> None:
    agg, wrapper, _, _, clock = make(window=300, step=60)
    assert agg.n_buckets == 5
    for t, eid in ((1000, "a"), (1100, "b"), (1290, "c")):
        at(wrapper, clock, t)
        agg.handle(record(eid, "search", citations=2, valid_citations=1))
    # At 1300 the window holds buckets starting at 1080..1260: "a" (bucket 960) is out.
    counts = agg.rolling("search", 1300)
    assert counts[:4] == [2, 0, 4, 2]
    assert agg.rolling("search", 1100)[0] == 2  # a (bucket 960) and b (1080); c is later
    assert agg.rolling("search", 1800) == [0] * len(counts)


def test_publish_sets_ratio_gauges_and_drops_undefined_ones() -> None:
    agg, wrapper, metrics, alerting, clock = make()
    at(wrapper, clock, 500)
    agg.handle(
        record(
            "e1",
            "search",
            citations=4,
            valid_citations=3,
            claims=5,
            cited_claims=4,
            decided_claims=2,
            supported_claims=1,
            unsupported_claims=2,
        )
    )
    agg.handle(record(None, "other", rejected=1))
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


def test_redelivered_score_records_are_not_counted_twice() -> None:
    agg, wrapper, metrics, _, clock = make()
    at(wrapper, clock, 100)
    assert agg.handle(record("e1", "search", claims=2)) == "counted"
    assert agg.handle(record("e1", "search", claims=2)) == "duplicate"
    assert agg.handle(record(None, "search", rejected=1)) == "counted"  # no id: no dedup
    assert agg.rolling("search", 100)[0] == 2
    assert value(metrics, "ragmon_duplicate_events_total", app="search") == 1
    assert agg.handle({"not": "a score record"}) == "ignored"


def test_apps_owned_by_another_worker_lose_their_series() -> None:
    agg, wrapper, metrics, alerting, clock = make(partitions=4)
    at(wrapper, clock, 100)
    apps = ["search", "docs-qa", "support-bot", "billing"]
    for app in apps:
        agg.handle(record(f"id-{app}", app, citations=1, valid_citations=1))
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
    agg, wrapper, _, alerting, clock = make()
    at(wrapper, clock, 100.0)
    agg.handle(record("e1", "search", failed=True, claims=4, unsupported_claims=2))
    clock.now = 100.5
    agg.handle(record("e2", "search", failed=True, claims=4, unsupported_claims=2))
    clock.now = 101.2
    agg.handle(record("e3", "search", claims=2))
    assert len(alerting.observed) == 2
    figures, examples = alerting.observed[-1]
    assert figures.app == "search" and figures.events == 3
    assert figures.values["hallucination"] == pytest.approx(4 / 10)
    assert examples == ["e1", "e2"]


@pytest.mark.parametrize("app", ["search", "docs-qa", "support-bot", "other", "é-app"])
def test_partition_for_app_is_the_producers_partitioner(app: str) -> None:
    for n in (1, 3, 4, 12):
        assert partition_for_app(app, n) == DefaultPartitioner()(app.encode(), list(range(n)), [])
