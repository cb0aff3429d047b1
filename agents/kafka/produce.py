"""Publishing answer events: JSON lines → the answers topic, keyed by event_id, optionally paced.

Keying by event_id puts every copy of an event on one partition, which is what lets the check
agent's in-memory dedup catch a republished batch.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import IO, Any

from aiokafka import AIOKafkaProducer

from agents.kafka.connection import client_kwargs
from monitor.config.settings import Settings

DEFAULT_MAX_REQUEST_BYTES = 8 * 1024 * 1024


def event_key(line: bytes) -> bytes | None:
    """The event_id of a JSON line as the record key; None when there is none to find."""
    try:
        value = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    event_id = value.get("event_id") if isinstance(value, dict) else None
    return event_id.encode("utf-8") if isinstance(event_id, str) and event_id else None


def read_lines(stream: IO[bytes]) -> Iterable[bytes]:
    for line in stream:
        line = line.rstrip(b"\r\n")
        if line.strip():
            yield line


@dataclass
class ProduceStats:
    sent: int = 0
    failed: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.sent / self.seconds if self.seconds > 0 else 0.0


class Publisher:
    """An aiokafka producer that never awaits acknowledgements one by one."""

    def __init__(
        self,
        settings: Settings,
        topic: str,
        max_request_size: int = DEFAULT_MAX_REQUEST_BYTES,
        **producer_kwargs: Any,
    ) -> None:
        self.topic = topic
        self.stats = ProduceStats()
        self._pending: set[asyncio.Future[Any]] = set()
        self._producer = AIOKafkaProducer(
            **client_kwargs(settings),
            max_request_size=max_request_size,
            linger_ms=5,
            acks="all",
            **producer_kwargs,
        )

    async def start(self) -> None:
        await self._producer.start()

    async def send(self, value: bytes, key: bytes | None = None) -> None:
        try:
            fut = await self._producer.send(self.topic, value, key=key)
        except Exception as exc:  # too large for the client, unknown topic...: count, go on
            self._failed(exc)
            return
        self._pending.add(fut)
        fut.add_done_callback(self._done)

    def _done(self, fut: asyncio.Future[Any]) -> None:
        self._pending.discard(fut)
        if fut.cancelled():
            self._failed(RuntimeError("cancelled"))
        elif fut.exception() is not None:
            self._failed(fut.exception())
        else:
            self.stats.sent += 1

    def _failed(self, exc: BaseException | None) -> None:
        self.stats.failed += 1
        if len(self.stats.errors) < 10:
            self.stats.errors.append(f"{type(exc).__name__}: {exc}")

    async def flush(self) -> None:
        await self._producer.flush()
        if self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    async def stop(self) -> None:
        try:
            await self.flush()
        finally:
            await self._producer.stop()


async def paced(items: Iterable[bytes], rate: float | None) -> AsyncIterator[bytes]:
    """Yield items at `rate` per second on average (no pacing when None)."""
    start = time.monotonic()
    for i, item in enumerate(items):
        if rate:
            ahead = start + i / rate - time.monotonic()
            if ahead > 0:
                await asyncio.sleep(ahead)
        elif i % 1000 == 999:
            await asyncio.sleep(0)  # let the producer's sender run
        yield item


async def produce_lines(
    settings: Settings,
    lines: Iterable[bytes],
    *,
    topic: str,
    rate: float | None = None,
    progress: Callable[[ProduceStats, int], None] | None = None,
    progress_every: float = 2.0,
    max_request_size: int = DEFAULT_MAX_REQUEST_BYTES,
) -> ProduceStats:
    publisher = Publisher(settings, topic, max_request_size=max_request_size)
    await publisher.start()
    started = time.monotonic()
    last_report = started
    queued = 0
    try:
        async for line in paced(lines, rate):
            await publisher.send(line, event_key(line))
            queued += 1
            now = time.monotonic()
            if progress is not None and now - last_report >= progress_every:
                last_report = now
                publisher.stats.seconds = now - started
                progress(publisher.stats, queued)
    finally:
        await publisher.stop()
    publisher.stats.seconds = time.monotonic() - started
    return publisher.stats
