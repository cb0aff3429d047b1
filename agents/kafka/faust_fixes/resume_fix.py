"""The end of a table recovery, reordered so that no stream event is dropped without an ack.

Faust's `Recovery.on_recovery_completed` resumes the stream partitions (`answers`, `scores`)
first, then awaits `consumer.perform_seek()` (a broker round trip, ~0.1-0.2 s), then calls
`flow_control.resume()`, which empties every agent queue. The consumer's flow is already
active at that point (recovery resumed it to read the changelogs), so during the seek the
fetcher delivers stream records from the old fetch position; the agent checks and acks some,
and the ones still queued are then thrown away without an ack. The drain loop has meanwhile
moved its read offset past them, so the seek does not bring them back: they are never checked
in this process (lost until the next restart), and the hole they leave in the consumer's acked
offsets stops `Consumer._new_offset` from ever committing that partition again. Seen after a
worker restart under traffic: ~25 events unchecked, 3 of 4 `answers` partitions stuck at their
pre-restart commit.

Here the queues are emptied and the stream partitions seeked while those partitions are still
paused, and only then resumed: nothing can be fetched, queued or acked between the seek and
the resume, so every event from the committed offset on is delivered once more and acked.
A stream partition that has no committed offset (its owner died before its first commit) is
sought back to its first record instead: there is nothing else to go back to.

Shown by: tests/integration/test_restart_commits.py (a worker restarted under traffic checks
every answer again and commits every partition to its end).
"""

from __future__ import annotations

import asyncio
from typing import Any

import structlog
from faust.tables.recovery import Recovery

log = structlog.get_logger("ragmon.recovery")


class SeekThenResumeRecovery(Recovery):
    async def on_recovery_completed(self, generation_id: int = 0) -> None:
        """`Recovery.on_recovery_completed` (faust-streaming 0.15.3) with the stream
        partitions resumed after the seek and the queue clearing, not before."""
        app: Any = self.app
        consumer = app.consumer
        self.log.info("Restore complete!")
        await app.on_rebalance_complete.send()
        self._set_recovery_ended()
        callbacks = [
            asyncio.ensure_future(
                table.on_recovery_completed(
                    self.actives_for_table[table], self.standbys_for_table[table]
                )
            )
            for table in self.tables.values()
        ]
        if callbacks:
            await asyncio.wait(callbacks)
        assignment = consumer.assignment()
        if app.consumer_generation_id != generation_id:
            self.log.warning(
                f"Recovery rebalancing again app id {app.consumer_generation_id} "
                f"param {generation_id}"
            )
            return
        if assignment:
            self.log.info("Seek stream partitions to committed offsets.")
            await self._wait(consumer.perform_seek(), timeout=app.conf.broker_request_timeout)
            await self._rewind_uncommitted(app, consumer, assignment)
        if app.consumer_generation_id != generation_id:
            return  # a new rebalance paused everything again; its recovery resumes
        self.completed.set()
        self.log.dev("Resume stream partitions")
        # No await from here to resume_partitions: the queues are emptied while the stream
        # partitions are paused, so what they held is redelivered from the committed offset.
        app.flow_control.resume()
        consumer.resume_partitions({tp for tp in assignment if not self._is_changelog_tp(tp)})
        consumer.resume_flow()
        await app._fetcher.maybe_start()
        self.tables.on_actives_ready()
        if not app.assignor.assigned_standbys():
            self.tables.on_standbys_ready()
        app.on_rebalance_end()
        self.log.info("Worker ready")

    async def _rewind_uncommitted(self, app: Any, consumer: Any, assignment: set[Any]) -> None:
        """Stream partitions without a committed offset back to their first record.

        The seek to the committed offsets is what brings back records fetched, and dropped,
        during the rebalance; a partition nobody has committed yet (its owner died before its
        first commit) has no offset to go back to, and its position stays wherever that fetch
        left it: at the end, the whole partition skipped. With `earliest` (Faust's default and
        ours) its reading must start at the beginning.
        """
        if app.conf.consumer_auto_offset_reset != "earliest":
            return
        committed = consumer._committed_offset  # set by perform_seek for committed partitions
        uncommitted = {
            tp for tp in assignment if not self._is_changelog_tp(tp) and not committed.get(tp)
        }
        if not uncommitted:
            return
        names = sorted(f"{tp.topic}:{tp.partition}" for tp in uncommitted)
        try:
            earliest = await consumer.earliest_offsets(*uncommitted)
            await consumer.seek_wait({tp: o for tp, o in earliest.items() if o is not None})
        except Exception as exc:  # the broker away again: the next rebalance seeks once more
            log.error(
                "could not rewind uncommitted partitions to their start",
                partitions=names,
                error=f"{type(exc).__name__}: {exc}",
            )
            return
        log.info("uncommitted partitions read from their start", partitions=names)
