"""A second worker joins a group under traffic: no answer is checked twice.

At a rebalance every partition is revoked (eager protocol). Faust forgot what the worker had
acked before committing it, so the answers checked since the last periodic commit were read
and checked again, by the worker itself or by the new owner (agents/kafka/faust_fixes/revoke_fix.py). What must
hold after worker B joins worker A while answers flow:

- every answer is counted exactly once across both workers: the sum of their
  `ragmon_events_total` equals what was published, and A counts no duplicate;
- the group's commit of every `answers` partition reaches the partition's end;
- every published event_id has a score record.

The figures are printed on one `SCALE-OUT` line; run with `-s` to see them.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from agents.output.records import event_ids
from tests.conftest import standard_mix
from tests.integration.conftest import Namespace, consume, group_offsets, wait_until
from tests.integration.test_pipeline import total
from tests.integration.test_restart_commits import Publisher

pytestmark = pytest.mark.integration

N_EVENTS = 1200
RATE = 150.0  # events/s: 8 s of traffic, B joins after ~2 s
JOIN_AFTER = 300  # answers A has counted when B starts
WAIT_S = 120


def test_a_joining_worker_checks_nothing_twice(broker: Any, start_worker: Any) -> None:
    events = standard_mix(N_EVENTS, seed=41)
    records = [(e["event_id"].encode(), json.dumps(e).encode()) for e in events]
    ns = Namespace("scaleout")
    answers = ns.topic("answers")
    a = start_worker(ns)
    wait_until(lambda: a.answers_partitions() == [0, 1, 2, 3], 90, what="A owns every partition")
    publisher = Publisher(broker.bootstrap, answers)
    publisher.start(records, RATE)
    wait_until(
        lambda: total(a.metrics(), "ragmon_events_total") >= JOIN_AFTER,
        WAIT_S,
        interval=0.1,
        what="A checking",
    )
    b = start_worker(ns)
    joined_at = time.monotonic()

    def split() -> bool:
        parts = [a.answers_partitions(), b.answers_partitions()]
        return all(parts) and sorted(parts[0] + parts[1]) == [0, 1, 2, 3]

    wait_until(split, WAIT_S, interval=0.25, what="two-worker assignment")
    rebalance_s = time.monotonic() - joined_at
    publisher.join(60)
    ends = dict(publisher.ends)

    def committed_to_the_end() -> bool:
        offsets = group_offsets(broker.bootstrap, ns.app_id, answers, [0, 1, 2, 3])
        return all(offsets[p][0] == ends.get(p, 0) for p in range(4))

    wait_until(committed_to_the_end, WAIT_S, interval=0.5, what="commits at every partition's end")
    ma, mb = a.metrics(), b.metrics()
    counted = total(ma, "ragmon_events_total") + total(mb, "ragmon_events_total")
    duplicates_a = total(ma, "ragmon_events_total", outcome="duplicate")
    scores = consume(broker.bootstrap, ns.topic("scores"), 10**9, timeout=8)
    scored = {i for r in scores for i in event_ids(json.loads(r.value))}
    print(
        f"\nSCALE-OUT: {N_EVENTS} answers at {RATE:g}/s, B joined after A had counted "
        f"{JOIN_AFTER}+; assignment split {rebalance_s:.1f} s after B started; counted by A "
        f"{total(ma, 'ragmon_events_total'):.0f}, by B {total(mb, 'ragmon_events_total'):.0f}, "
        f"together {counted:.0f} (checked twice: {counted - N_EVENTS:.0f}); A's duplicates "
        f"{duplicates_a:.0f}"
    )
    assert {e["event_id"] for e in events} - scored == set()
    assert duplicates_a == 0
    assert counted == N_EVENTS
