"""A CheckWork whose check process dies on a marked answer, for tests/agents/checking/test_check_pool.py.

It lives in an importable module (not in the test file) because a spawned check process
unpickles it by its qualified name.
"""

from __future__ import annotations

import os
from typing import Any

from agents.checking.work import Checked, CheckWork, Source
from monitor.records.models import Rejection

#: an answer whose bytes contain this kills the process that checks it
MARKER = b"POISON-PILL"
EXIT_CODE = 70


class PoisonWork(CheckWork):
    """The real work, except that a marked answer ends its process on the spot (what an OOM
    kill or a crash in compiled code looks like to the pool)."""

    __slots__ = ()

    def run(
        self, raw: bytes | None, source: Source, shed: str | None = None
    ) -> Checked | Rejection:
        if raw is not None and MARKER in raw:
            os._exit(EXIT_CODE)
        return super().run(raw, source, shed)

    def __reduce__(self) -> tuple[Any, ...]:
        # CheckWork.__reduce__ rebuilds a plain CheckWork; the child must get this class.
        _, args = super().__reduce__()
        return (_rebuild, args)


def _rebuild(options: dict[str, Any], audit: Any, *rates: Any) -> PoisonWork:
    from monitor.config.options import CheckOptions

    return PoisonWork(CheckOptions(**options), audit, *rates)


class BrokenWork(CheckWork):
    """A work no check process can rebuild: every process dies in its initializer."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (_refuse, ())


def _refuse() -> BrokenWork:
    # only a check process unpickles the work
    raise RuntimeError("this work cannot be rebuilt in a check process")
