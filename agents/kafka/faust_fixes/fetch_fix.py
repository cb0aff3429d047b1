"""A worker fetches records only of the partitions that were active when it asked.

Faust (faust-streaming 0.15.3) hands its live set of active partitions to the consumer thread,
which waits up to a second in aiokafka's `Fetcher.fetched_records(partitions)` for records. A
rebalance or a table recovery pauses partitions meanwhile, from the other thread, by removing
them from that same set; when it becomes empty, aiokafka reads "no partitions given" and
returns the records of every assigned partition. Faust then drops those of paused partitions
without delivering them, but the consumer's position has moved past them. After a partition
takeover that skipped a whole partition, or the rest of one: the records between the
recovery's seek to the committed offset and the end, never checked (the kill -9 test,
reproduced with a victim killed before its first commit).

Here the thread gets a copy of the set as it was when the fetch began, and an empty set
fetches nothing. Records of a partition paused during a fetch are still dropped by Faust, as
before, and brought back by the seek to the committed offsets at the end of the recovery
(agents/kafka/faust_fixes/resume_fix.py).

Shown by: tests/integration/test_faults_crash.py (kill -9, `kill_after` "early": the victim dies
before its first commit; failed 2 of 2 runs without this fix and the resume fix).
"""

from __future__ import annotations

import asyncio
from typing import Any

from faust.transport.drivers.aiokafka import AIOKafkaConsumerThread

_ATTR = "_ragmon_fetch_snapshot"
IDLE_S = 0.1  # an empty fetch waits this long, so the drain loop does not spin


def install(app: Any) -> None:
    """Fetch from a snapshot of the active partitions for this app (other apps in the process
    keep Faust's own behaviour)."""
    setattr(app, _ATTR, True)
    if getattr(AIOKafkaConsumerThread, "_ragmon_fetch_snapshot", False):
        return
    original = AIOKafkaConsumerThread.getmany

    async def getmany(self: Any, active_partitions: Any, timeout: float) -> Any:
        if not getattr(self.app, _ATTR, False) or active_partitions is None:
            return await original(self, active_partitions, timeout)
        snapshot = set(active_partitions)  # a copy: the caller's set changes under the fetch
        if not snapshot:
            await asyncio.sleep(min(timeout, IDLE_S))
            return {}
        return await original(self, snapshot, timeout)

    AIOKafkaConsumerThread.getmany = getmany  # type: ignore[method-assign]
    AIOKafkaConsumerThread._ragmon_fetch_snapshot = True  # type: ignore[attr-defined]
