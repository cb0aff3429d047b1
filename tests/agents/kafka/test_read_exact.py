"""`read_topic(only=...)`'s exact reads skip what the log no longer holds instead of waiting."""

from __future__ import annotations

import asyncio
from typing import Any

from aiokafka import TopicPartition

from agents.kafka.reader import _read_exact


class Record:
    def __init__(self, partition: int, offset: int) -> None:
        self.partition, self.offset, self.timestamp = partition, offset, 1_000
        self.key, self.value, self.headers = None, b"v", ()


class FakeConsumer:
    """Holds offsets 10.. of partition 0 (earlier ones are past retention)."""

    def __init__(self) -> None:
        self.seeks: list[int] = []
        self.fetches = 0
        self.at = 0

    def seek(self, tp: TopicPartition, offset: int) -> None:
        self.seeks.append(offset)
        self.at = offset if offset >= 10 else 20  # Kafka resets a lost offset to the end

    async def getmany(self, tp: TopicPartition, **kw: Any) -> dict[TopicPartition, list[Record]]:
        self.fetches += 1
        return {tp: [Record(0, self.at)]} if self.at < 20 else {}


def test_an_offset_below_the_log_start_is_not_fetched() -> None:
    c = FakeConsumer()
    tp = TopicPartition("t", 0)

    async def read() -> list[int]:
        wanted = [(0, 3), (0, 12), (1, 0)]  # past retention, held, no such partition
        out = _read_exact(c, "t", wanted, {tp: 10}, {tp: 20})  # type: ignore[arg-type]
        return [m.offset async for m in out]

    assert asyncio.run(read()) == [12]
    assert c.seeks == [12] and c.fetches == 1  # the lost offset cost no seek and no wait
