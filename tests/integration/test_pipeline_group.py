"""Two workers in one consumer group on a real broker: they split the partitions, and the sum of
their counters equals the offline totals exactly (each event counted once); each app's window
gauges are exported by exactly one worker, with the ratios of the totals."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from tests.conftest import standard_mix
from tests.integration.conftest import Namespace, produce, wait_until
from tests.integration.test_pipeline import Offline, _key, exported_counters, total

pytestmark = pytest.mark.integration

N_EVENTS = 500


def test_two_workers_split_partitions_and_count_each_event_once(
    broker: Any, start_worker: Any
) -> None:
    from monitor.check import check_bytes
    from monitor.config.settings import load_settings

    options = load_settings().check_options()
    events = standard_mix(N_EVENTS, seed=23)
    records = [(e["event_id"].encode(), json.dumps(e).encode()) for e in events]
    offline = Offline()
    for _, value in records:
        offline.add(check_bytes(value, options))

    ns = Namespace("group")
    workers = [start_worker(ns), start_worker(ns)]

    def split() -> list[list[int]] | None:
        parts = [w.answers_partitions() for w in workers]
        if all(parts) and sorted(parts[0] + parts[1]) == [0, 1, 2, 3]:
            return parts
        return None

    parts = wait_until(split, timeout=90, interval=0.5, what="two-worker assignment")
    assert not set(parts[0]) & set(parts[1])

    produce(broker.bootstrap, ns.topic("answers"), records)

    def all_counted() -> list[dict[Any, float]] | None:
        metrics = [w.metrics() for w in workers]
        done = sum(total(m, "ragmon_events_total") for m in metrics) >= N_EVENTS
        return metrics if done else None

    metrics = wait_until(all_counted, timeout=120, interval=0.5, what="events counted")
    per_worker = [total(m, "ragmon_events_total", outcome="checked") for m in metrics]
    assert all(n > 0 for n in per_worker), per_worker
    summed: Counter[Any] = Counter()
    for m in metrics:
        summed.update(exported_counters(m))
    assert summed == offline.counters

    apps = sorted(offline.window)

    def gauges() -> list[dict[Any, float]] | None:
        metrics = [w.metrics() for w in workers]
        for app in apps:
            owners = [m for m in metrics if _key("ragmon_window_events", app=app) in m]
            if len(owners) != 1:
                return None
            if owners[0][_key("ragmon_window_events", app=app)] != offline.window[app]["events"]:
                return None
        return metrics

    metrics = wait_until(gauges, timeout=30, what="one owner per app")
    for app in apps:
        (owner,) = [m for m in metrics if _key("ragmon_window_events", app=app) in m]
        for key, expected in offline.ratios(app).items():
            assert owner[key] == pytest.approx(expected, rel=1e-12), (key, app)
