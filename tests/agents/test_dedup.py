from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from agents.dedup import RecentIds, WindowedSeen


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


class FakeWindows:
    """What WindowedSeen uses of a Faust WindowSet: current() and delta(horizon)."""

    def __init__(
        self, store: dict[tuple[str, int], int], key: str, now: float, size: float
    ) -> None:
        self.store, self.key, self.now, self.size = store, key, now, size

    def _window(self, ts: float) -> int:
        return int(ts // self.size)

    def current(self) -> int:
        return self.store.get((self.key, self._window(self.now)), 0)

    def delta(self, d: float) -> int:
        return self.store.get((self.key, self._window(self.now - d)), 0)


class FakeTumblingTable:
    def __init__(self, size: float) -> None:
        self.size = size
        self.now = 0.0
        self.store: dict[tuple[str, int], int] = {}

    def __getitem__(self, key: str) -> Any:
        return FakeWindows(self.store, key, self.now, self.size)

    def __setitem__(self, key: str, value: int) -> None:
        self.store[(key, int(self.now // self.size))] = value


def test_windowed_seen_catches_redeliveries_across_a_window_boundary() -> None:
    table = FakeTumblingTable(size=100)
    seen = WindowedSeen(table, horizon=100)
    table.now = 95
    assert seen.check_and_mark("e1") is False
    table.now = 105  # next window: found in the previous one
    assert seen.check_and_mark("e1") is True
    table.now = 210  # two windows later: beyond the horizon
    assert seen.check_and_mark("e1") is False


def test_windowed_seen_disabled_with_zero_horizon() -> None:
    table = FakeTumblingTable(size=100)
    seen = WindowedSeen(table, horizon=0)
    assert seen.check_and_mark("e1") is False
    assert seen.check_and_mark("e1") is False
    assert table.store == {}
