"""Table recovery that reads a changelog to its real end on brokers with a lagging high watermark.

tansu 0.6 reports a partition's end offset as (base offset of the last record batch) + 1, not
(last offset) + 1: after a batch at offsets 5-7 it answers 6. Faust recovers a table by reading
its changelog up to that end offset, so the tail of the last batch (the newest updates) would be
lost on every restart or rebalance. This recovery service probes the real last offset by
fetching from the reported one. On Kafka, which reports the true end, the probe returns exactly
the reported last offset and changes nothing.

Shown by: tests/integration/test_cli_pipeline.py (`last_offsets` against the real broker:
the reported end vs the real last offset).
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

import structlog
from aiokafka import AIOKafkaConsumer, TopicPartition
from faust.tables.manager import TableManager
from faust.types import TP

from agents.kafka.faust_fixes.resume_fix import SeekThenResumeRecovery

log = structlog.get_logger("ragmon.recovery")

PROBE_TIMEOUT = 5.0


async def last_offsets(
    client_kwargs: dict[str, Any], starts: dict[TP, int], timeout: float = PROBE_TIMEOUT
) -> dict[TP, int]:
    """The highest offset found in each partition when reading from `starts` (end of data)."""
    consumer = AIOKafkaConsumer(
        **client_kwargs, enable_auto_commit=False, max_partition_fetch_bytes=64 * 1024
    )
    await consumer.start()
    found: dict[TP, int] = {}
    try:
        tps = {TopicPartition(tp.topic, tp.partition): tp for tp in starts}
        consumer.assign(list(tps))
        for ktp, tp in tps.items():
            consumer.seek(ktp, starts[tp])
        deadline = time.monotonic() + timeout
        ends = await consumer.end_offsets(list(tps))
        while len(found) < len(tps) and time.monotonic() < deadline:
            batch = await consumer.getmany(timeout_ms=200)
            for ktp, records in batch.items():
                if records:
                    found[tps[ktp]] = max(found.get(tps[ktp], -1), records[-1].offset)
            for ktp, tp in tps.items():
                # Read past the reported end: this partition has nothing more to give.
                if tp not in found and await consumer.position(ktp) >= ends[ktp] + 1:
                    found[tp] = starts[tp]
    finally:
        await consumer.stop()
    return found


class ExactEndRecovery(SeekThenResumeRecovery):
    client_kwargs: dict[str, Any]  # set by install()

    async def _build_highwaters(
        self, consumer: Any, tps: set[TP], destination: Counter[TP], title: str
    ) -> None:
        await super()._build_highwaters(consumer, tps, destination, title)
        starts = {
            tp: hw for tp, hw in destination.items() if tp in tps and hw is not None and hw >= 0
        }
        if not starts:
            return
        try:
            found = await asyncio.wait_for(
                last_offsets(self.client_kwargs, starts), PROBE_TIMEOUT * 2
            )
        except Exception as exc:  # fall back to what the broker reported
            log.warning("changelog end probe failed", error=str(exc))
            return
        for tp, last in found.items():
            if last > destination[tp]:
                log.info(
                    "changelog end beyond the reported high watermark",
                    topic=tp.topic,
                    partition=tp.partition,
                    reported=destination[tp],
                    real=last,
                )
                destination[tp] = last


_ATTR = "_ragmon_recovery_client"


def install(app: Any, client_kwargs: dict[str, Any]) -> None:
    """Use ExactEndRecovery (which also resumes streams safely, see
    agents.kafka.faust_fixes.resume_fix) for this Faust app's tables (other apps in the process
    keep Faust's own). Built when Faust first asks for its recovery, as Faust builds its own:
    installing touches neither `app.tables` nor an event loop (Faust's suite showed both:
    a table manager bound to a loop at install, a configuration read before `finalize`)."""
    setattr(app, _ATTR, client_kwargs)
    if getattr(TableManager, "_ragmon_recovery", False):
        return
    original = TableManager.recovery

    def recovery(self: Any) -> Any:
        kwargs = getattr(self.app, _ATTR, None)
        if kwargs is None:
            return original.fget(self)  # type: ignore[attr-defined]
        if self._recovery is None:
            # the arguments Faust's own TableManager.recovery passes
            built = ExactEndRecovery(self.app, self, beacon=self.beacon, loop=self.loop)
            built.client_kwargs = kwargs
            self._recovery = built
        return self._recovery

    TableManager.recovery = property(recovery)  # type: ignore[assignment,method-assign]
    TableManager._ragmon_recovery = True  # type: ignore[attr-defined]
