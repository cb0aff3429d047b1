from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agents.dedup import RecentIds, SeenIds


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_recent_ids_suppresses_within_the_horizon_only() -> None:
    clock = Clock()
    ids = RecentIds(horizon=60, max_entries=100, clock=clock)
    assert ids.check_and_add("a") is False
    clock.now += 59
    assert ids.check_and_add("a") is True
    clock.now += 2  # 61 s after the first sighting: forgotten
    assert ids.check_and_add("a") is False
    assert ids.check_and_add("a") is True


def test_recent_ids_bounded_memory_forgets_the_oldest() -> None:
    ids = RecentIds(horizon=3600, max_entries=3, clock=Clock())
    for event_id in "abcd":
        assert ids.check_and_add(event_id) is False
    assert len(ids) == 3
    assert ids.check_and_add("a") is False  # evicted by "d"
    assert ids.check_and_add("d") is True


def test_recent_ids_disabled_with_zero_horizon() -> None:
    ids = RecentIds(horizon=0, max_entries=10, clock=Clock())
    assert ids.check_and_add("a") is False
    assert ids.check_and_add("a") is False
    assert len(ids) == 0


@given(st.lists(st.sampled_from("abcdef"), max_size=60))
def test_recent_ids_without_expiry_reports_exactly_the_repeats(stream: list[str]) -> None:
    ids = RecentIds(horizon=3600, max_entries=100, clock=Clock())
    seen: set[str] = set()
    for event_id in stream:
        assert ids.check_and_add(event_id) is (event_id in seen)
        seen.add(event_id)


class Stored:
    def __init__(self) -> None:
        self.entries: dict[str, Any] = {}

    def __setitem__(self, key: str, value: Any) -> None:
        self.entries[key] = value


def test_seen_ids_within_the_horizon_and_per_kind() -> None:
    seen = SeenIds(Stored(), horizon=100, max_ids=10)
    seen.add("e1", 1000)
    assert seen.seen("e1", 1050) and seen.seen("e1", 1100)
    assert not seen.seen("e1", 1101)
    assert not seen.seen("e1", 1050, kind="judge")  # a judge correction is its own thing
    seen.remember("3:41", ["e1"], 1000)
    assert seen.table.entries == {"3:41": {"t": 1000, "kind": "scores", "ids": ["e1"]}}


def test_seen_ids_prune_by_age_and_bound_by_count() -> None:
    seen = SeenIds(Stored(), horizon=100, max_ids=3)
    for i, t in enumerate((1000, 1010, 1020, 1030)):
        seen.add(f"e{i}", t)
    assert len(seen) == 3 and not seen.seen("e0", 1030)  # the oldest went first
    assert seen.prune(now=1115) == 1  # e1 (1010) is older than 1115 - 100
    assert [i for i in ("e1", "e2", "e3") if seen.seen(i, 1115)] == ["e2", "e3"]


def test_seen_ids_rebuild_skips_what_it_cannot_read() -> None:
    seen = SeenIds(Stored(), horizon=100, max_ids=10)
    seen.add("stale", 5)
    stored = [
        {"t": 2000, "kind": "scores", "ids": ["b", 7]},
        {"t": 1000, "ids": ["a"]},
        {"t": 1500, "kind": "judge", "ids": ["a"]},
        {"t": "x", "ids": ["c"]},
        1,
        None,
        {"t": 1, "kind": "unknown", "ids": ["d"]},
    ]
    assert seen.rebuild(stored) == 3
    assert seen.seen("a", 1000) and seen.seen("a", 1500, kind="judge") and seen.seen("b", 2000)
    assert not seen.seen("stale", 5) and not seen.seen("c", 0)


@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(0, 50)), max_size=40))
def test_seen_ids_rebuilt_answer_like_the_live_index(stream: list[tuple[str, int]]) -> None:
    live = SeenIds(Stored(), horizon=1000, max_ids=100)
    for n, (event_id, t) in enumerate(stream):
        if not live.seen(event_id, t):
            live.add(event_id, t)
            live.remember(str(n), [event_id], t)
    rebuilt = SeenIds(Stored(), horizon=1000, max_ids=100)
    rebuilt.rebuild(live.table.entries.values())
    for event_id in "abcdefg":
        assert rebuilt.seen(event_id, 50) == live.seen(event_id, 50)
