"""Counter increments summed over a batch of events and applied once at its end.

`Counter.labels(...)` validates and locks on every call and `inc` with an exemplar validates
the exemplar; per event and per citation/claim that was a visible share of the check agent's
time. Here each label set's child is looked up once and cached, and a batch adds one `inc` per
label set. Scrapes between two batches see the counters as of the last batch (at most one
batch, ~0.1 s, behind).
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter

LabelKey = tuple[Counter, tuple[str, ...]]


class Children:
    """Each label set's child of a counter, looked up once (label values in declared order)."""

    def __init__(self) -> None:
        self._children: dict[LabelKey, Any] = {}

    def __call__(self, counter: Counter, labels: tuple[str, ...]) -> Any:
        key = (counter, labels)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = counter.labels(*labels)
        return found


class BatchCounters:
    def __init__(self) -> None:
        self._pending: dict[LabelKey, int] = {}
        self._exemplars: dict[LabelKey, dict[str, str]] = {}
        self.child = Children()

    def add(self, counter: Counter, labels: tuple[str, ...], n: int = 1) -> None:
        key = (counter, labels)
        pending = self._pending
        pending[key] = pending.get(key, 0) + n

    def exemplar(self, counter: Counter, labels: tuple[str, ...], exemplar: dict[str, str]) -> None:
        """Attach `exemplar` to this label set's increment of the batch (the last one wins)."""
        self._exemplars[(counter, labels)] = exemplar

    def flush(self) -> None:
        pending, exemplars = self._pending, self._exemplars
        self._pending, self._exemplars = {}, {}
        for key, n in pending.items():  # zeros too: a ratio's series exist from the start
            self.child(*key).inc(n, exemplar=exemplars.get(key))

    def __len__(self) -> int:
        return len(self._pending)
