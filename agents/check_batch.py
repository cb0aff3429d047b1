"""The check agent's batches: answers are checked one by one as they arrive, their output
records are published per batch.

A batch ends after `size` answers, or when its first answer has waited `within` seconds (a timer
flushes it when no further answer comes), and before every offset commit: `guard_commits` makes
the producer's flush, which Faust awaits before it commits offsets, publish the pending batch
first. So an answer's offset is never committed while its records are only in memory
(at-least-once), and the stream keeps Faust's automatic acks.

Manual acks were tried first (Faust's `Stream.take_events`, then acking after each batch) and
dropped: right after a partition takeover, recovery's `flow_control.resume()` clears the agents'
queues, and with acks held back the fetched-but-unprocessed answers were lost (the kill -9
fault test caught it, ~1 run in 6 under load).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from agents.check_agent import CheckProcessor, RecordMeta
from agents.outbox import Outbox, Publish


class CheckBatches:
    def __init__(
        self,
        processor: CheckProcessor,
        outbox: Outbox,
        publish: Callable[[], Publish],
        size: int,
        within: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.processor = processor
        self.outbox = outbox
        self.publish = publish  # looked up at each flush (tests replace RagmonApp.publish)
        self.size = size
        self.within = within
        self.clock = clock
        self.pending = 0  # answers checked whose records are not published yet
        self.first_at = 0.0
        self._lock = asyncio.Lock()

    async def run(self, stream: Any) -> None:
        """The agent's body."""
        handle = self.processor.handle
        async for event in stream.events():
            msg = event.message
            meta = RecordMeta(msg.topic, msg.partition, msg.offset, msg.timestamp, msg.key)
            handle(event.value, meta)
            if not self.pending:
                self.first_at = self.clock()
            self.pending += 1
            if self.pending >= self.size or self.clock() - self.first_at >= self.within:
                await self.flush()

    async def tick(self) -> None:
        """Timer: end a batch that has waited long enough for more answers."""
        if self.pending and self.clock() - self.first_at >= self.within:
            await self.flush()

    async def flush(self) -> None:
        async with self._lock:
            if not self.pending:
                return
            # The counters and the outbox are taken without an await in between.
            self.pending = 0
            self.processor.flush()
            await self.outbox.publish(self.publish())

    def guard_commits(self, producer: Any) -> None:
        """Make `producer.flush()` (awaited by Faust before every offset commit and on a
        rebalance) publish the pending batch first."""
        flush_producer = producer.flush

        async def flush() -> None:
            await self.flush()
            await flush_producer()

        producer.flush = flush
