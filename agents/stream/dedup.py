"""Suppressing redelivered events (same event_id within a horizon).

Two layers, because Kafka delivery is at-least-once:

- `RecentIds`, in each check agent's memory: a redelivery to the same worker process (consumer
  retry, producer retry, a producer republishing a batch) is skipped before any check runs, so
  neither the counters nor the windows see it twice.
- in the aggregate agent (agents/stream/window_store.py), the ids its windows counted, persisted with
  the counts in the window table's changelog. `scores` is keyed by app, so every copy of an
  event reaches the same aggregate partition, and the table moves with that partition: the
  windowed rates count an event once within the horizon whichever worker checked each copy.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable


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
