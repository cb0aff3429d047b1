"""A rebalance commits what the worker checked before it forgets which offsets it acked.

Faust's `Consumer.on_partitions_revoked` (faust-streaming 0.15.3) first drops its bookkeeping of
the revoked partitions (acked offsets, committed offsets), then suspends the streams, waits for
the events in flight and commits. The commit finds nothing acked on those partitions any more,
so everything acked since the last periodic commit (up to `broker_commit_interval`, 2.8 s of
traffic) is read and checked again after every rebalance, by this worker or the next owner.
With eager rebalancing every partition is revoked, including the ones the worker gets back.

Here the same steps run with the bookkeeping dropped after that commit. What the commit covers
was checked and its records published first (the check agent's producer-flush guard), so the
next owner starts right after it; what was only fetched, not taken by an agent, stays
uncommitted and is read again, as before.

Shown by: tests/integration/test_scale_out.py (a worker joining under traffic: 0 answers
checked twice; 200 and 218 of 1,200 without the fix).
"""

from __future__ import annotations

from typing import Any

from faust.transport.consumer import CONSUMER_PARTITIONS_REVOKED, Consumer
from faust.utils.tracing import traced_from_parent_span
from mode import Service

_ATTR = "_ragmon_commit_before_forgetting"


def install(app: Any) -> None:
    """Use the reordered revocation for this app's consumer (other apps in the process keep
    Faust's own)."""
    setattr(app, _ATTR, True)
    if getattr(Consumer, "_ragmon_revoke", False):
        return
    original = Consumer.on_partitions_revoked

    async def on_partitions_revoked(self: Any, revoked: set[Any]) -> None:
        if not getattr(self.app, _ATTR, False):
            await original(self, revoked)
            return
        await commit_then_forget(self, revoked)

    # Faust's wrappers kept: the consumer's diagnostic flag while revoking (as the method it
    # replaces is decorated), and the tracing of its step below
    @Service.transitions_to(CONSUMER_PARTITIONS_REVOKED)
    async def commit_then_forget(self: Any, revoked: set[Any]) -> None:
        span = self.app._start_span_from_rebalancing("on_partitions_revoked")
        # Faust's tracing wrapper, as Faust calls it: the step keeps its span under the
        # rebalance's (an app with a tracer sees the same spans with or without the fix)
        T = traced_from_parent_span(span)
        with span:
            if self._active_partitions is not None:
                self._active_partitions.difference_update(revoked)
            self._paused_partitions.difference_update(revoked)
            # suspends the streams, waits for the events in flight, commits (Faust's own step)
            await T(self._on_partitions_revoked, partitions=revoked)(revoked)
            # That commit returns without committing when it found a periodic one in flight,
            # begun before the last acks: once more, with nothing acked since.
            if not self.app.should_stop:
                await self.commit(revoked)
            for tp in revoked:
                self._gap.pop(tp, None)
                self._acked.pop(tp, None)
                self._acked_index.pop(tp, None)
                self._read_offset.pop(tp, None)
                self._committed_offset.pop(tp, None)

    Consumer.on_partitions_revoked = on_partitions_revoked  # type: ignore[method-assign]
    Consumer._ragmon_revoke = True  # type: ignore[attr-defined]
