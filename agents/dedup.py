"""Suppressing redelivered events (same event_id within a horizon).

Two layers, because Kafka delivery is at-least-once:

- `RecentIds`, in each check agent's memory: a redelivery to the same worker process (consumer
  retry, producer retry, a producer republishing a batch) is skipped before any check runs, so
  neither the counters nor the windows see it twice.
- `SeenIds`, in the aggregate agent: the ids its windows counted, in memory for look-ups and in
  a windowed Faust table (changelog-backed) for restarts and rebalances. `scores` is keyed by
  app, so every copy of an event reaches the same aggregate partition, and the table moves
  with that partition: the windowed rates count an event once within the horizon whichever
  worker checked each copy. A score record carries a whole check batch of one app, and the
  table holds one entry per score record (the ids it counted), so a batch costs one changelog
  write instead of one per event; the in-memory index is rebuilt from the table after every
  recovery. Re-reading a record whose entry was written finds all its ids: nothing is counted
  twice; a record whose entry was not written was not committed either and counts again.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
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


class SeenIds:
    """Event ids counted within `horizon` seconds (plus, separately, answers whose judge
    correction was applied), at most `max_ids` of each kind in memory (oldest forgotten first).

    `table` is the WindowWrapper of a tumbling(horizon) Faust table keyed by score record
    (`partition:offset`); `remember` must run while iterating the stream, where the table
    writes its changelog to the current event's partition.
    """

    KINDS = ("scores", "judge")

    def __init__(self, table: Any, horizon: float, max_ids: int) -> None:
        self.table = table
        self.horizon = horizon
        self.max_ids = max_ids
        self.index: dict[str, dict[str, float]] = {kind: {} for kind in self.KINDS}

    def __len__(self) -> int:
        return sum(len(ids) for ids in self.index.values())

    def seen(self, event_id: str, at: float, kind: str = "scores") -> bool:
        t = self.index[kind].get(event_id)
        return t is not None and abs(at - t) <= self.horizon

    def add(self, event_id: str, at: float, kind: str = "scores") -> None:
        ids = self.index[kind]
        ids.pop(event_id, None)  # re-inserted at the end: insertion order stays time order
        ids[event_id] = at
        if len(ids) > self.max_ids:
            del ids[next(iter(ids))]

    def remember(self, record_key: str, ids: list[str], at: float, kind: str = "scores") -> None:
        """Persist the ids a score record counted first: one table entry, one changelog write."""
        self.table[record_key] = {"t": at, "kind": kind, "ids": ids}

    def prune(self, now: float) -> int:
        """Forget ids older than the horizon; returns how many."""
        limit, dropped = now - self.horizon, 0
        for ids in self.index.values():
            while ids:
                first = next(iter(ids))
                if ids[first] >= limit:
                    break
                del ids[first]
                dropped += 1
        return dropped

    def rebuild(self, stored: Iterable[Any] | None = None) -> int:
        """The index from the table's entries (after a recovery); returns the ids loaded."""
        if stored is None:
            stored = list(self.table.table.data.values())
        entries = sorted(
            (v["t"], v.get("kind", "scores"), v["ids"])
            for v in stored
            if isinstance(v, Mapping)
            and isinstance(v.get("t"), int | float)
            and isinstance(v.get("ids"), list)
            and v.get("kind", "scores") in self.KINDS
        )
        self.index = {kind: {} for kind in self.KINDS}
        for t, kind, ids in entries:
            for event_id in ids:
                if isinstance(event_id, str):
                    self.add(event_id, t, kind)
        return len(self)
