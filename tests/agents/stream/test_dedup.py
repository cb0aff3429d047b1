from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agents.stream.dedup import RecentIds


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
