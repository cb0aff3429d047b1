"""Suppressing redelivered events (same event_id within a horizon).

Two layers, because Kafka delivery is at-least-once:

- `RecentIds`, in each check agent's memory: a redelivery to the same worker process (consumer
  retry, producer retry, a producer republishing a batch) is skipped before any check runs, so
  neither the counters nor the windows see it twice.
- `WindowedSeen`, in the aggregate agent: a Faust windowed table (changelog-backed) keyed by
  event_id. `scores` is keyed by app, so every copy of an event reaches the same aggregate
  partition, and the table moves with that partition on a rebalance or a restart: the windowed
  rates count an event once within the horizon whichever worker checked each copy.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any


class RecentIds:
    """Event ids seen in the last `horizon` seconds, at most `max_entries` of them (oldest
    forgotten first, so memory stays bounded whatever the rate)."""

    def __init__(
        self, horizon: float, max_entries: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.horizon = horizon
        self.max_entries = max_entries
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._seen)

    def check_and_add(self, event_id: str) -> bool:
        """True when `event_id` was already seen within the horizon; else remember it."""
        if self.horizon <= 0:
            return False
        now = self._clock()
        seen = self._seen
        limit = now - self.horizon
        while seen and next(iter(seen.values())) < limit:
            seen.popitem(last=False)
        if event_id in seen:
            return True
        seen[event_id] = now
        if len(seen) > self.max_entries:
            seen.popitem(last=False)
        return False


class WindowedSeen:
    """Dedup state in a tumbling windowed Faust table (`size` = horizon, values 1).

    An id seen within the horizon is in the current window or the one before, so both are
    looked up: redeliveries within `horizon` are always caught, up to 2 × horizon sometimes.
    Only call `check_and_mark` while iterating a stream (the table writes its changelog to the
    partition of the current event).
    """

    def __init__(self, table: Any, horizon: float) -> None:
        self.table = table  # the WindowWrapper returned by Table(...).tumbling(horizon, ...)
        self.horizon = horizon

    def check_and_mark(self, event_id: str) -> bool:
        if self.horizon <= 0:
            return False
        windows = self.table[event_id]
        if windows.current() or windows.delta(self.horizon):
            return True
        self.table[event_id] = 1
        return False
