"""Check batches: size and age limits, and the pending batch published before any commit."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

from agents.check_agent import CheckProcessor
from agents.check_batch import CheckBatches
from agents.outbox import Outbox
from monitor.settings import load_settings
from tests.agents.helpers import fresh_metrics


@dataclass
class Message:
    offset: int
    topic: str = "ragmon.answers"
    partition: int = 0
    timestamp: float = 1000.0
    key: bytes | None = None


@dataclass
class Event:
    value: bytes
    message: Message


class Stream:
    """What CheckBatches uses of a Faust stream; events arrive when `feed` puts them."""

    def __init__(self, log: list[str]) -> None:
        self.enable_acks = True
        self.queue: asyncio.Queue[Event | None] = asyncio.Queue()
        self.log = log

    def feed(self, offset: int, value: bytes) -> None:
        self.queue.put_nowait(Event(value, Message(offset)))

    async def events(self) -> AsyncIterator[Event]:
        while (event := await self.queue.get()) is not None:
            yield event


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def answer(i: int) -> bytes:
    return json.dumps({"event_id": f"e{i}", "app": "search", "answer": "No claim here"}).encode()


def make(log: list[str], size: int) -> tuple[CheckBatches, Clock]:
    async def publish(role: str, key: bytes | None, value: bytes) -> None:
        if role == "scores":
            log.append(f"scores {[e[0] for e in json.loads(value)['events']]}")

    outbox, clock = Outbox(), Clock()
    processor = CheckProcessor(load_settings(audit_sample_rate=0.0), fresh_metrics(), outbox.add)
    return CheckBatches(
        processor, outbox, lambda: publish, size=size, within=0.1, clock=clock
    ), clock


async def test_a_batch_ends_at_its_size_or_its_age() -> None:
    log: list[str] = []
    batches, clock = make(log, size=3)
    stream = Stream(log)
    for i in range(4):
        stream.feed(i, answer(i))
    stream.queue.put_nowait(None)
    await batches.run(stream)
    assert log == ["scores ['e0', 'e1', 'e2']"]  # the fourth waits for more
    await batches.tick()  # not old enough yet
    assert len(log) == 1
    clock.now = 0.1
    await batches.tick()
    assert log[1:] == ["scores ['e3']"]
    await batches.flush()  # nothing pending: nothing happens
    assert len(log) == 2


async def test_a_late_answer_ends_the_batch_it_joins() -> None:
    log: list[str] = []
    batches, clock = make(log, size=100)
    stream = Stream(log)
    task = asyncio.ensure_future(batches.run(stream))
    stream.feed(0, answer(0))
    await asyncio.sleep(0.01)
    clock.now = 0.2
    stream.feed(1, answer(1))  # arrives after the first one waited 0.2 s: both go out
    await asyncio.sleep(0.01)
    assert log == ["scores ['e0', 'e1']"]
    stream.queue.put_nowait(None)
    await task


async def test_the_pending_batch_is_published_before_the_producer_flush() -> None:
    log: list[str] = []
    batches, _ = make(log, size=100)

    class Producer:
        async def flush(self) -> None:
            log.append("producer flushed")

    producer = Producer()
    batches.guard_commits(producer)
    stream = Stream(log)
    stream.feed(0, answer(0))
    stream.queue.put_nowait(None)
    await batches.run(stream)
    assert log == []
    await producer.flush()  # what Faust awaits before committing offsets
    assert log == ["scores ['e0']", "producer flushed"]
