"""The part of an answer's context that comes from its `data`, built once per distinct value.

Many answers are about the same record (the questions of a stream hit the same business, the
same policy), and walking, rendering and reading a record's attributes and times cost ~130 µs
per answer. So the parts are kept in a small LRU cache keyed by `marshal.dumps(data, 2)`, a
tenth of the cost of `repr(data)` (no float formatting, no escaping), the key it replaced.

Why the key is exact: `data` is decoded JSON (dict, list, str, int, float, bool, None; keys are
strings), and marshal's bytes load back into the very value, with the same types (1, 1.0 and
True differ; floats bit for bit) and the same key order: equal keys mean equal values. Format 2
writes no back-references and no interning marks (those depend on which objects are shared or
interned, not on the value), so equal values give equal keys. A value marshal cannot write (no
JSON) is keyed by its repr, as before. data_text.py's leaves are a function of the value alone
(objects are numbered in walk order, not by id()). What is shared is never changed by a reader:
the leaves, the text, the attributes and the times are read only; `records` and `values` are
filled on first use (grounding.py's _record_text, _stated_values) with what follows from the
leaves alone, so filling them for one answer fills them right for every answer with the same
data. What depends on the answer's documents (Context.stems) is not here.
"""

from __future__ import annotations

import marshal
from collections import OrderedDict
from typing import Any

from monitor.checks.data_claims import attributes, data_times
from monitor.checks.data_text import Leaf, data_lines, render_lines

# Bounded by entries and by characters held (the key and the text), as evidence.py's index cache
CACHE_MAX_ENTRIES = 256
CACHE_MAX_CHARS = 4_000_000


class DataContext:
    """`data`'s leaves, their lines as one text, its attributes and clock times; the records
    and stated values the grounding asks for, filled as it asks (grounding.py)."""

    __slots__ = ("attributes", "leaves", "records", "text", "times", "values")

    def __init__(self, leaves: list[Leaf]) -> None:
        self.leaves = leaves
        self.text = render_lines(leaves) if leaves else ""
        self.attributes = attributes(leaves)
        self.times: frozenset[int] = data_times(leaves) if leaves else frozenset()
        self.records: dict[int, str] = {}
        self.values: list[tuple[str, Any, int]] = []


_cache: OrderedDict[bytes | str, DataContext] = OrderedDict()
_cache_chars = 0


def clear_data_cache() -> None:
    """Forget every memoised data context (benchmarks: each round starts cold)."""
    global _cache_chars
    _cache.clear()
    _cache_chars = 0


def _cache_key(data: Any) -> bytes | str:
    try:
        return marshal.dumps(data, 2)
    except ValueError:  # not decoded JSON (a dict subclass, an object): its repr
        return repr(data)


def data_context(data: Any) -> DataContext:
    """The data-derived part of the context of an answer carrying `data` (memoised)."""
    global _cache_chars
    key = _cache_key(data)
    found = _cache.get(key)
    if found is not None:
        _cache.move_to_end(key)
        return found
    built = DataContext(data_lines(data))
    size = len(key) + len(built.text)
    if size <= CACHE_MAX_CHARS // 4:
        _cache[key] = built
        _cache_chars += size
        while len(_cache) > CACHE_MAX_ENTRIES or _cache_chars > CACHE_MAX_CHARS:
            old, gone = _cache.popitem(last=False)
            _cache_chars -= len(old) + len(gone.text)
    return built
