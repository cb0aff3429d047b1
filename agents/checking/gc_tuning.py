"""Python's cyclic garbage collector set for a stream of answers.

An answer's check allocates thousands of container objects (verdicts, records, the results a
check process sends back) that reference counting frees within the batch. With CPython's
default first-generation threshold (700 allocations) a collection runs every few answers,
examines whatever of the current batch is still alive, and moves it to the older generations,
which are then collected again: ~11 µs of the worker's ~55 µs of per-answer work beside Faust
in `ragmon bench --section stages` (measured with the collector off). A threshold of 50,000
lets nearly all of them die before any collection sees them; the cyclic garbage that waits
longer is bounded by the same count (a few MB).
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 50_000


def tune_gc() -> None:
    """Call once start-up is done: what it built (modules, the app) is never garbage and
    leaves every later collection (`gc.freeze`); then the first generation's threshold."""
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, gen1, gen2)
