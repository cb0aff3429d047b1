"""What the aggregate agent has counted: one changelog entry per score record.

Each score record the aggregate agent counts becomes one entry of the `ragmon-window` table,
keyed by the record's position on `scores` (`partition:offset`): the count vector it added to
each bucket, and the ids it counted first. In memory the agent keeps what the entries add up
to: the sum per (app, bucket), the id index for redeliveries, the record keys.

One write per record, holding both the counts and the ids, keeps the windows and the dedup state
consistent through a crash (two writes can be cut in between by a kill -9: the counts survive
and the ids not, and the record counts twice). With the offsets committed only after the
producer flushed the write:

- entry written, offset not committed: the record is read again, its key is known, it is
  skipped whole (rejects, which have no id, included);
- entry not written: the offset was not committed either, the record counts again, once.

Copies of an answer in other records (re-checked by another worker, republished) are caught by
the id index within `horizon` seconds. After every recovery (start, rebalance) the in-memory
state is rebuilt from the table's entries. Buckets are `step`-second tumbling slots.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agents.output.records import add_vectors

KINDS = ("scores", "judge")


class CountedRecords:
    def __init__(self, table: Any, step: float, horizon: float, max_ids: int) -> None:
        self.table = table  # WindowWrapper of a tumbling Faust table (or a mapping in tests)
        self.step = step
        self.horizon = horizon
        self.max_ids = max_ids
        self.sums: dict[tuple[str, float], list[int]] = {}
        self.ids: dict[str, dict[str, float]] = {kind: {} for kind in KINDS}
        self.records: dict[str, float] = {}  # record key → when counted

    def bucket(self, at: float) -> float:
        return at - at % self.step

    # --- look-ups -----------------------------------------------------------------------------
    def counted(self, record_key: str) -> bool:
        return record_key in self.records

    def seen(self, event_id: str, at: float, kind: str = "scores") -> bool:
        t = self.ids[kind].get(event_id)
        return t is not None and abs(at - t) <= self.horizon

    def get(self, app: str, at: float) -> list[int] | None:
        return self.sums.get((app, self.bucket(at)))

    def apps(self) -> set[str]:
        return {app for app, _ in self.sums}

    # --- updates ------------------------------------------------------------------------------
    def add_id(self, event_id: str, at: float, kind: str = "scores") -> None:
        if self.horizon <= 0:
            return
        ids = self.ids[kind]
        ids.pop(event_id, None)  # re-inserted at the end: insertion order stays time order
        ids[event_id] = at
        if len(ids) > self.max_ids:
            del ids[next(iter(ids))]

    def commit(
        self,
        record_key: str,
        app: str,
        kind: str,
        ids: list[str],
        buckets: Mapping[float, list[int]],
        at: float,
    ) -> None:
        """Persist one counted record (one table write, inside stream iteration) and add its
        counts to the sums. The ids must already have gone through `add_id`."""
        self.table[record_key] = {
            "t": at,
            "app": app,
            "kind": kind,
            "ids": ids,
            "buckets": [[start, vector] for start, vector in buckets.items()],
        }
        self._apply(record_key, app, buckets, at)

    def _apply(
        self, record_key: str, app: str, buckets: Mapping[float, list[int]], at: float
    ) -> None:
        self.records[record_key] = at
        for start, vector in buckets.items():
            key = (app, start)
            self.sums[key] = add_vectors(self.sums.get(key), vector)

    def prune(self, now: float, keep_buckets_seconds: float) -> None:
        """Forget sums older than `keep_buckets_seconds`, ids and record keys older than the
        horizon (or the kept buckets, whichever is longer)."""
        oldest = self.bucket(now - keep_buckets_seconds)
        for key in [k for k in self.sums if k[1] < oldest]:
            del self.sums[key]
        limit = now - max(self.horizon, keep_buckets_seconds)
        for times in (*self.ids.values(), self.records):
            while times:
                first = next(iter(times))
                if times[first] >= limit:
                    break
                del times[first]

    def rebuild(self, stored: Iterable[Any] | None = None) -> int:
        """The in-memory state from the table's entries (after a recovery); returns how many
        entries were loaded. Anything that is not an entry (an older version's values) is
        skipped."""
        if stored is None:
            stored = [
                (k[0] if isinstance(k, tuple) else k, v) for k, v in self.table.table.data.items()
            ]
        entries = sorted(
            (v["t"], str(key), v)
            for key, v in stored
            if isinstance(v, Mapping)
            and isinstance(v.get("t"), int | float)
            and isinstance(v.get("app"), str)
            and v.get("kind", "scores") in KINDS
        )
        self.sums, self.records = {}, {}
        self.ids = {kind: {} for kind in KINDS}
        for t, key, v in entries:
            for event_id in v.get("ids") or ():
                if isinstance(event_id, str):
                    self.add_id(event_id, t, v.get("kind", "scores"))
            buckets = {
                float(b[0]): [n if isinstance(n, int) else 0 for n in b[1]]
                for b in v.get("buckets") or ()
                if isinstance(b, list) and len(b) == 2 and isinstance(b[1], list)
            }
            self._apply(key, v["app"], buckets, t)
        return len(entries)
