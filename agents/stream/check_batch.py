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

With check processes (`pool`, RAGMON_CHECK_PROCESSES) a batch is collected raw, sent to a
process, and counted here when its results come back, while the next batch is collected: the
agent sends a full batch, then waits for the oldest while more than `depth` are out. "Pending"
then covers the batch being collected and the ones out, and a commit waits for all of them in
the same way.

When the check processes fall behind (`help_at` batches out and not done, RAGMON_CHECK_HELP),
the worker checks the next batch itself, with the same `CheckWork` the processes run, instead
of waiting idle for theirs: on a busy stream the worker's own work takes about half a core, so
where a core would otherwise idle (one check process on two CPUs; the settings' `auto`) its
spare CPU goes to the checks. Where the processes already outnumber the cores it only stalls
the worker's loop (docs/guarantees.md, session 15). The batch joins the queue of batches out as
one already done, so results are still counted in the order the answers came. The price: an
answer that kills the process checking it (a crash in compiled code, the OOM killer) kills the
worker when the worker is the one checking it.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import structlog

from agents.checking.pool import Batch, CheckPool, Results
from agents.output.outbox import Outbox, Publish
from agents.stream.check_agent import CheckProcessor, RecordMeta

log = structlog.get_logger("ragmon.check")

Collected = list[tuple[bytes | None, RecordMeta]]


class CheckBatches:
    def __init__(
        self,
        processor: CheckProcessor,
        outbox: Outbox,
        publish: Callable[[], Publish],
        size: int,
        within: float,
        clock: Callable[[], float] = time.monotonic,
        pool: CheckPool | None = None,
        depth: int = 2,
        help_at: int | None = None,
        on_help: Callable[[int], None] | None = None,
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
        self.pool = pool
        self.depth = depth
        #: the worker checks a batch itself when this many batches out are not done (None: never)
        self.help_at = help_at
        self.on_help = on_help  # gets the number of answers the worker checked itself
        self.collected: Collected = []
        self.out: deque[tuple[Collected, asyncio.Future[Results]]] = deque()
        self._pool_start: asyncio.Future[str] | None = None

    async def run(self, stream: Any) -> None:
        """The agent's body."""
        if self.pool is not None:
            await self._run_pooled(stream, self.pool)
            return
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

    async def _pool_ready(self, pool: CheckPool) -> bool:
        """Start the check processes once for every agent instance (RAGMON_CONCURRENCY > 1
        shares this object); False when they cannot start, and the checks stay here."""
        if self._pool_start is None:
            self._pool_start = asyncio.ensure_future(pool.start())
        try:
            await asyncio.shield(self._pool_start)
        except Exception as exc:
            if self.pool is pool:  # the first instance to see it says so and closes the pool
                log.error(
                    "check processes failed to start; checking in the worker process",
                    error=f"{type(exc).__name__}: {exc}",
                )
                pool.close()
                self.pool = None
            return False
        return True

    async def _run_pooled(self, stream: Any, pool: CheckPool) -> None:
        if not await self._pool_ready(pool):
            await self.run(stream)
            return
        async for event in stream.events():
            msg = event.message
            if not self.collected:
                self.first_at = self.clock()
            collected = self.collected
            collected.append(
                (
                    event.value,
                    RecordMeta(msg.topic, msg.partition, msg.offset, msg.timestamp, msg.key),
                )
            )
            if len(collected) >= self.size or self.clock() - self.first_at >= self.within:
                self._send(pool)
                if len(self.out) > self.depth:
                    async with self._lock:
                        while len(self.out) > self.depth:
                            await self._count_oldest()
            if self.out and self.out[0][1].done() and not self._lock.locked():
                # counted here while answers flow; the timer only when they stop
                await self._count_done()

    def _send(self, pool: CheckPool) -> None:
        batch, self.collected = self.collected, []
        if batch:
            work = [(raw, meta.where()) for raw, meta in batch]
            # asked once per batch: while the judge sheds, answers come back as notes of the drop
            shed = self.processor.shed_reason()
            if self.help_at is not None and self._behind() >= self.help_at:
                self.out.append((batch, self._check_here(pool, work, shed)))
                return
            self.out.append((batch, asyncio.ensure_future(pool.run(work, shed))))

    def _behind(self) -> int:
        return sum(1 for _, future in self.out if not future.done())

    def _check_here(
        self, pool: CheckPool, work: Batch, shed: str | None = None
    ) -> asyncio.Future[Results]:
        """The batch checked in this process; its results in a future already done."""
        future: asyncio.Future[Results] = asyncio.get_running_loop().create_future()
        try:
            future.set_result(pool.work.run_batch(work, shed))
        except Exception as exc:  # not what an answer does: handled as a failed pool batch
            future.set_exception(exc)
        if self.on_help is not None:
            self.on_help(len(work))
        return future

    async def _count_oldest(self) -> None:
        """Count the oldest batch out (waiting for it) and publish its records."""
        batch, future = self.out.popleft()
        try:
            results = await future
        except Exception:
            # not what an answer does (the pool turns those into rejections): the pool itself
            log.exception("check processes failed; checking the batch in the worker")
            for raw, meta in batch:
                self.processor.handle(raw, meta)
        else:
            apply = self.processor.apply
            for (raw, meta), result in zip(batch, results, strict=True):
                apply(result, raw, meta)
        self.processor.flush()
        await self.outbox.publish(self.publish())

    async def _count_done(self) -> None:
        async with self._lock:
            while self.out and self.out[0][1].done():
                await self._count_oldest()

    async def tick(self) -> None:
        """Timer: end a batch that has waited long enough for more answers."""
        if self.pool is not None:
            # a batch out is counted once done, without waiting for the ones behind it
            if self.collected and self.clock() - self.first_at >= self.within:
                self._send(self.pool)
            if self.out and self.out[0][1].done():
                await self._count_done()
            return
        if self.pending and self.clock() - self.first_at >= self.within:
            await self.flush()

    async def flush(self) -> None:
        async with self._lock:
            if self.pool is not None:
                self._send(self.pool)
                # the batches out now hold every answer the coming commit covers; the ones the
                # agent sends meanwhile are the next commit's (waiting for them too could last
                # as long as the traffic does)
                for _ in range(len(self.out)):
                    await self._count_oldest()
                return
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
