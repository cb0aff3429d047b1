"""The clock of `ragmon bench --section stages`: exclusive thread CPU time per stage, what a
stage switch costs, and the worker's functions wrapped where its modules look them up so the
clock charges each stage."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any


class Stopwatch:
    """Exclusive thread CPU time per stage: a stage entered inside another stops the other's
    clock until it returns."""

    def __init__(self, clock: Callable[[], int] = time.thread_time_ns) -> None:
        self.clock = clock
        self.ns: dict[str, int] = {}
        self.stack: list[str] = []
        self.current = "other"
        self.last = clock()
        self.switches = 0
        #: put before every stage entered by name: "child." while a check process's part runs
        self.prefix = ""

    def enter(self, stage: str) -> None:
        now = self.clock()
        self.ns[self.current] = self.ns.get(self.current, 0) + now - self.last
        self.stack.append(self.current)
        self.current, self.last = self.prefix + stage, now
        self.switches += 1

    def leave(self) -> None:
        now = self.clock()
        self.ns[self.current] = self.ns.get(self.current, 0) + now - self.last
        self.current, self.last = self.stack.pop(), now
        self.switches += 1

    @contextlib.contextmanager
    def stage(self, name: str) -> Iterator[None]:
        self.enter(name)
        try:
            yield
        finally:
            self.leave()

    def wrap(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        enter, leave = self.enter, self.leave

        def timed(*args: Any, **kwargs: Any) -> Any:
            enter(name)
            try:
                return fn(*args, **kwargs)
            finally:
                leave()

        return timed


def switch_cost_ns(samples: int = 20_000) -> float:
    """What one stage switch itself costs in thread CPU time (subtracted per switch)."""
    watch = Stopwatch()
    start = time.thread_time_ns()
    for _ in range(samples):
        watch.enter("x")
        watch.leave()
    return (time.thread_time_ns() - start) / (2 * samples)


@contextlib.contextmanager
def _patched(watch: Stopwatch, detail: bool = False) -> Iterator[None]:
    """The worker's functions, timed where the worker's modules look them up; `detail`: also
    the parts of the uncited claims' grounding."""
    from agents.checking import work
    from agents.output import audit_record
    from agents.stream import check_agent
    from monitor import check as check_module
    from monitor.checks import contrast, grounding, support

    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, stage: str) -> None:
        original = getattr(owner, name)
        saved.append((owner, name, original))
        setattr(owner, name, watch.wrap(stage, original))

    def maybe(owner: Any, name: str, stage: str) -> None:
        if hasattr(owner, name):  # names of a module another branch is rewriting
            patch(owner, name, stage)

    # The grounding of uncited claims, inside the check (pure core only: a compiled module
    # calls its own functions directly, whatever its attributes say)
    maybe(check_module, "ground_uncited", "grounding")
    maybe(check_module, "context_of", "grounding")
    if detail:
        for name in ("verbatim", "claim_core", "claim_terms", "index_evidence", "lexical_support"):
            maybe(grounding, name, f"grounding.{name}")
        for name in ("signals", "restated", "contrasts"):  # what lexical_support calls
            maybe(support, name, f"grounding.lexical_support.{name}")
        for name in (
            "_split",
            "sentence_index",
            "_align",
            "unit_mismatch",
            "_initial_missing",
            "_entity_swap",
        ):
            maybe(contrast, name, f"grounding.lexical_support.contrasts.{name}")
    patch(work, "decode_event", "decode")
    patch(work, "check_event", "check")
    patch(audit_record.AuditBuilder, "build", "audit")
    patch(audit_record, "encode_record", "serialise")
    patch(check_agent, "dumps", "serialise")
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)
