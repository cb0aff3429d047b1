"""Judge verdict cache: bounded (LRU), entries expire after a TTL. Pure.

The key is a hash of everything that determines the reply: prompt version, model, claim and
evidence, so a new prompt or model never reuses an old verdict. Only verdicts are cached, never
failures (a timeout now says nothing about the next call).
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


def cache_key(prompt_version: str, model: str, *texts: str) -> str:
    h = hashlib.sha256()
    for part in (prompt_version, model, *texts):
        data = part.encode("utf-8", "surrogatepass")
        # length-prefixed so ("ab", "c") and ("a", "bc") differ
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


class TTLCache(Generic[V]):
    def __init__(
        self, max_entries: int, ttl_seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_entries = max_entries
        self.ttl = ttl_seconds
        self._clock = clock
        self._data: OrderedDict[str, tuple[float, V]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._data)

    def get(self, key: str) -> V | None:
        entry = self._data.get(key)
        if entry is not None and self._clock() < entry[0]:
            self._data.move_to_end(key)
            self.hits += 1
            return entry[1]
        if entry is not None:
            del self._data[key]
        self.misses += 1
        return None

    def put(self, key: str, value: V) -> None:
        if self.max_entries <= 0:
            return
        self._data[key] = (self._clock() + self.ttl, value)
        self._data.move_to_end(key)
        while len(self._data) > self.max_entries:
            self._data.popitem(last=False)

    @property
    def hit_rate(self) -> float | None:
        total = self.hits + self.misses
        return self.hits / total if total else None
