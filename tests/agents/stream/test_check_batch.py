"""Check batches: size and age limits, and the pending batch published before any commit."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from agents.checking.work import CheckWork
from agents.output.outbox import Outbox
from agents.stream.check_agent import CheckProcessor
from agents.stream.check_batch import CheckBatches
from monitor.config.settings import load_settings
from monitor.sampling.policy import JUDGE_DOWN, QUEUE_FULL, Decision
from tests.agents.helpers import fresh_metrics, value


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


class Producer:
    """Faust's producer as the batches see it: its flush is what a commit awaits first."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def flush(self) -> None:
        self.log.append("producer flushed")


def guarded_producer(batches: CheckBatches, log: list[str]) -> Producer:
    producer = Producer(log)
    batches.guard_commits(producer)
    return producer


async def test_the_pending_batch_is_published_before_the_producer_flush() -> None:
    log: list[str] = []
    batches, _ = make(log, size=100)
    producer = guarded_producer(batches, log)
    stream = Stream(log)
    stream.feed(0, answer(0))
    stream.queue.put_nowait(None)
    await batches.run(stream)
    assert log == []
    await producer.flush()  # what Faust awaits before committing offsets
    assert log == ["scores ['e0']", "producer flushed"]


# --- pool mode (RAGMON_CHECK_PROCESSES): a fake pool, the real processor ------------------------
class FakePool:
    """What CheckBatches uses of a CheckPool. Checks in this process with the processor's own
    work; a batch's results wait for its gate when `hold` is set (gates open by default)."""

    def __init__(self, work: CheckWork, hold: bool = False, fail_start: bool = False) -> None:
        self.work = work
        self.hold = hold
        self.fail_start = fail_start
        self.batches: list[list[str]] = []  # the event ids of each batch, in the order sent
        self.sheds: list[str | None] = []  # what each batch was sent with: why the judge sheds
        self.gates: list[asyncio.Event] = []
        self.closed = False
        self.starts = 0

    async def start(self) -> str:
        self.starts += 1
        await asyncio.sleep(0)  # another agent instance may come in meanwhile
        if self.fail_start:
            raise OSError("cannot start check processes")
        return "pure"

    async def run(
        self, batch: list[tuple[bytes | None, Any]], shed: str | None = None
    ) -> list[Any]:
        self.batches.append([event_id(raw) for raw, _ in batch])
        self.sheds.append(shed)
        gate = asyncio.Event()
        self.gates.append(gate)
        if not self.hold:
            gate.set()
        await gate.wait()
        return self.work.run_batch(batch, shed)

    def close(self) -> None:
        self.closed = True


def event_id(raw: bytes | None) -> str:
    try:
        return str(json.loads(raw or b"")["event_id"])
    except (ValueError, KeyError):
        return "?"


def make_pooled(
    log: list[str], size: int, depth: int = 2, **pool_kw: Any
) -> tuple[CheckBatches, Clock, FakePool]:
    batches, clock = make(log, size)
    pool = FakePool(batches.processor.work, **pool_kw)
    batches.pool, batches.depth = pool, depth  # type: ignore[assignment]
    return batches, clock, pool


async def settle() -> None:
    """Let the batches' tasks and the agent run as far as they can."""
    for _ in range(20):
        await asyncio.sleep(0)


def scores(first: int, last: int) -> str:
    return f"scores {[f'e{i}' for i in range(first, last + 1)]}"


async def running(
    size: int, depth: int, answers: int
) -> tuple[list[str], CheckBatches, FakePool, Stream, asyncio.Future[None]]:
    """A pooled agent (results held at their gates) running on a stream of `answers` answers,
    after it went as far as it could."""
    log: list[str] = []
    batches, _, pool = make_pooled(log, size=size, depth=depth, hold=True)
    stream = Stream(log)
    task = asyncio.ensure_future(batches.run(stream))
    for i in range(answers):
        stream.feed(i, answer(i))
    await settle()
    return log, batches, pool, stream, task


async def run_to_end(batches: CheckBatches, log: list[str], answers: int) -> None:
    """The agent over a stream of `answers` answers that then ends, and what it left out."""
    stream = Stream(log)
    for i in range(answers):
        stream.feed(i, answer(i))
    stream.queue.put_nowait(None)
    await batches.run(stream)
    await settle()


async def test_pooled_batches_go_out_at_their_size_and_the_agent_waits_beyond_depth() -> None:
    log, batches, pool, stream, task = await running(2, 2, 10)
    # three sent: the agent awaits the oldest while `depth` more are out behind it
    assert pool.batches == [["e0", "e1"], ["e2", "e3"], ["e4", "e5"]]
    assert len(batches.out) == 2 and log == []
    assert stream.queue.qsize() == 4  # e6.. not taken: the agent waits
    pool.gates[1].set()  # a younger batch done first changes nothing
    await settle()
    assert log == [] and len(pool.batches) == 3
    pool.gates[0].set()
    await settle()
    assert log == [scores(0, 1), scores(2, 3)]  # the agent counted what was done, in order
    assert pool.batches[3:] == [["e6", "e7"], ["e8", "e9"]]
    for gate in pool.gates:
        gate.set()
    stream.queue.put_nowait(None)
    await task
    await batches.flush()
    assert log == [scores(0, 1), scores(2, 3), scores(4, 5), scores(6, 7), scores(8, 9)]
    assert batches.processor.processed == {"checked": 10}


async def test_each_batch_goes_out_with_why_the_judge_sheds_at_that_moment() -> None:
    """Asked once per batch when it is sent (a check process then notes the judge's drops
    instead of sending answers back whole), also for a batch the worker checks itself."""
    log: list[str] = []
    batches, _, pool = make_pooled(log, size=2, depth=8)
    shedding: list[Decision | None] = [None, QUEUE_FULL, JUDGE_DOWN]
    batches.processor.judge_shedding = lambda: shedding[0]
    stream = Stream(log)
    task = asyncio.ensure_future(batches.run(stream))
    for i in range(6):
        stream.feed(i, answer(i))
        await settle()
        if i % 2 and len(shedding) > 1:  # a batch just went out: the judge's state changes
            shedding.pop(0)
    assert pool.sheds == [None, "queue_full", "judge_down"]
    helped: list[str | None] = []
    real = pool.work

    class Watched:
        def run_batch(self, batch: list[Any], shed: str | None = None) -> list[Any]:
            helped.append(shed)
            return real.run_batch(batch, shed)

    pool.work = Watched()  # type: ignore[assignment]
    batches.help_at = 0  # the next batch is checked here
    stream.feed(6, answer(6))
    stream.feed(7, answer(7))
    await settle()
    assert helped == ["judge_down"] and len(pool.sheds) == 3
    stream.queue.put_nowait(None)
    await task


async def test_pooled_flush_counts_every_batch_out_and_the_one_collected() -> None:
    log: list[str] = []
    batches, _, pool = make_pooled(log, size=3, depth=5, hold=True)
    producer = guarded_producer(batches, log)
    await run_to_end(batches, log, 7)
    assert pool.batches == [["e0", "e1", "e2"], ["e3", "e4", "e5"]]
    assert len(batches.collected) == 1  # e6
    pool.gates[0].set()
    flushing = asyncio.ensure_future(producer.flush())  # what Faust awaits before a commit
    await settle()
    assert pool.batches[2] == ["e6"]  # the collected one is sent too
    assert log == [scores(0, 2)]  # and the flush waits for the one still out
    assert not flushing.done()
    pool.gates[1].set()
    pool.gates[2].set()
    await flushing
    assert log == [scores(0, 2), scores(3, 5), scores(6, 6), "producer flushed"]
    assert not batches.out and not batches.collected


async def test_pooled_tick_counts_finished_batches_only_and_sends_an_old_one() -> None:
    log: list[str] = []
    batches, clock, pool = make_pooled(log, size=2, depth=5, hold=True)
    await run_to_end(batches, log, 5)
    assert pool.batches == [["e0", "e1"], ["e2", "e3"]]
    pool.gates[1].set()
    await settle()
    clock.now = 0.05
    await asyncio.wait_for(batches.tick(), 5)  # the oldest is not done: nothing, no waiting
    assert log == [] and len(pool.batches) == 2  # e4 has not waited `within` yet
    clock.now = 0.1
    await asyncio.wait_for(batches.tick(), 5)
    await settle()
    assert pool.batches[2] == ["e4"] and log == []
    pool.gates[0].set()
    pool.gates[2].set()
    await settle()
    await asyncio.wait_for(batches.tick(), 5)
    assert log == [scores(0, 1), scores(2, 3), scores(4, 4)]
    assert not batches.out


async def test_pooled_results_are_applied_in_batch_order() -> None:
    """The same answer in two batches: the later batch finishes first, yet the earlier one's
    copy is the one counted and the later one is the duplicate."""
    log: list[str] = []
    batches, _, pool = make_pooled(log, size=2, depth=5, hold=True)
    stream = Stream(log)
    for offset, i in enumerate((0, 1, 2, 0)):
        stream.feed(offset, answer(i))
    stream.queue.put_nowait(None)
    await batches.run(stream)
    await settle()
    pool.gates[1].set()
    await settle()
    pool.gates[0].set()
    await batches.flush()
    assert log == [scores(0, 1), scores(2, 2)]
    m = batches.processor.metrics
    assert value(m, "ragmon_events_total", app="search", outcome="checked") == 3
    assert value(m, "ragmon_events_total", app="search", outcome="duplicate") == 1
    assert value(m, "ragmon_duplicate_events_total", app="search") == 1


async def test_pooled_a_duplicate_in_one_batch_is_counted_once() -> None:
    log: list[str] = []
    batches, _, _ = make_pooled(log, size=3)
    stream = Stream(log)
    for offset, i in enumerate((7, 7, 8)):
        stream.feed(offset, answer(i))
    stream.queue.put_nowait(None)
    await batches.run(stream)
    await batches.flush()
    assert log == ["scores ['e7', 'e8']"]
    assert batches.processor.processed == {"checked": 2, "duplicate": 1}


async def test_pooled_falls_back_to_checking_here_when_the_pool_cannot_start() -> None:
    log: list[str] = []
    batches, _, pool = make_pooled(log, size=2, fail_start=True)
    stream = Stream(log)
    for i in range(3):
        stream.feed(i, answer(i))
    stream.queue.put_nowait(None)
    await batches.run(stream)
    assert pool.closed and batches.pool is None and pool.batches == []
    assert log == [scores(0, 1)]
    await batches.flush()
    assert log == [scores(0, 1), scores(2, 2)]
    m = batches.processor.metrics
    assert value(m, "ragmon_events_total", app="search", outcome="checked") == 3


@pytest.mark.parametrize("fail_start", [False, True])
async def test_pooled_agent_instances_share_one_pool_start(fail_start: bool) -> None:
    log: list[str] = []
    batches, _, pool = make_pooled(log, size=2, fail_start=fail_start)
    streams = [Stream(log), Stream(log)]  # RAGMON_CONCURRENCY=2: two instances, one CheckBatches
    for n, stream in enumerate(streams):
        for i in range(2 * n, 2 * n + 2):
            stream.feed(i, answer(i))
        stream.queue.put_nowait(None)
    await asyncio.gather(*(batches.run(stream) for stream in streams))
    await batches.flush()
    assert pool.starts == 1
    assert (batches.pool is None, pool.closed) == (fail_start, fail_start)
    assert pool.batches == ([] if fail_start else [["e0", "e1"], ["e2", "e3"]])
    m = batches.processor.metrics
    assert value(m, "ragmon_events_total", app="search", outcome="checked") == 4


async def test_pooled_a_failing_pool_has_its_batch_checked_here() -> None:
    log: list[str] = []
    batches, _, pool = make_pooled(log, size=2)

    async def broken(batch: Any, shed: str | None = None) -> Any:
        raise RuntimeError("the executor is gone")

    pool.run = broken  # type: ignore[method-assign]
    stream = Stream(log)
    stream.feed(0, answer(0))
    stream.feed(1, b"not json")
    stream.queue.put_nowait(None)
    await batches.run(stream)
    await batches.flush()
    # the reject's score entry has no id (and its app label is "other": it has none)
    assert log == ["scores ['e0']", "scores [None]"]
    assert batches.processor.processed == {"checked": 1, "rejected": 1}


async def test_pooled_the_agent_counts_finished_batches_while_answers_flow() -> None:
    log, batches, pool, stream, task = await running(2, 5, 2)
    assert pool.batches == [["e0", "e1"]] and log == []
    stream.feed(2, answer(2))  # the batch out is not done: the agent goes on collecting
    await settle()
    assert log == [] and len(batches.collected) == 1
    pool.gates[0].set()
    await settle()
    assert log == []  # done, but no answer came yet (the timer would count it)
    stream.feed(3, answer(3))  # the next answer: the agent counts it, no timer, no flush
    await settle()
    assert log == [scores(0, 1)]
    assert pool.batches == [["e0", "e1"], ["e2", "e3"]]
    pool.gates[1].set()
    stream.queue.put_nowait(None)
    await task
    await batches.flush()
    assert log == [scores(0, 1), scores(2, 3)]


async def test_pooled_flush_ends_with_the_batches_out_when_it_began() -> None:
    """Batches the agent sends while a commit's flush waits belong to the next commit: the
    flush does not wait for them (under steady traffic it would never end)."""
    log, batches, pool, stream, task = await running(2, 5, 4)
    assert pool.batches == [["e0", "e1"], ["e2", "e3"]]
    flushing = asyncio.ensure_future(batches.flush())
    await settle()
    for i in range(4, 6):  # arrives while the flush waits
        stream.feed(i, answer(i))
    await settle()
    assert pool.batches[2] == ["e4", "e5"] and not flushing.done()
    pool.gates[0].set()
    pool.gates[1].set()
    await flushing  # e4, e5 still out: not this flush's
    assert log == [scores(0, 1), scores(2, 3)]
    assert len(batches.out) == 1
    pool.gates[2].set()
    stream.queue.put_nowait(None)
    await task
    await batches.flush()
    assert log == [scores(0, 1), scores(2, 3), scores(4, 5)]


# --- the worker helps (RAGMON_CHECK_HELP) -------------------------------------------------------
async def test_the_worker_checks_a_batch_itself_when_the_processes_are_behind() -> None:
    log: list[str] = []
    batches, _, pool = make_pooled(log, size=2, depth=4, hold=True)
    helped: list[int] = []
    batches.help_at, batches.on_help = 2, helped.append
    stream = Stream(log)
    task = asyncio.ensure_future(batches.run(stream))
    for i in range(10):
        stream.feed(i, answer(i))
    await settle()
    # two batches out and not done: the third is checked here, and so are the fourth and the
    # fifth (the processes' two are still not done); then more than `depth` (4) are out and
    # the agent waits for the oldest (taken off the queue to be waited for)
    assert pool.batches == [["e0", "e1"], ["e2", "e3"]]
    assert helped == [2, 2, 2] and len(batches.out) == 4 and log == []
    pool.gates[1].set()  # a younger batch done: nothing is counted before the oldest
    await settle()
    assert log == []
    pool.gates[0].set()
    await settle()
    # every batch counted in the order its answers came, the ones checked here included
    assert log == [scores(0, 1), scores(2, 3), scores(4, 5), scores(6, 7), scores(8, 9)]
    stream.queue.put_nowait(None)
    await task
    assert batches.processor.processed == {"checked": 10}
    assert sum(helped) + sum(map(len, pool.batches)) == 10


class PacedStream(Stream):
    """Answers that arrive one loop turn apart: the processes' results come back meanwhile."""

    async def events(self) -> AsyncIterator[Event]:
        async for event in super().events():
            await asyncio.sleep(0)
            yield event


async def test_the_worker_does_not_help_while_the_processes_keep_up() -> None:
    log: list[str] = []
    batches, _, pool = make_pooled(log, size=2, depth=4)  # results come back at once
    helped: list[int] = []
    batches.help_at, batches.on_help = 1, helped.append
    stream = PacedStream(log)
    for i in range(9):
        stream.feed(i, answer(i))
    stream.queue.put_nowait(None)
    await batches.run(stream)
    await batches.flush()
    assert helped == [] and sum(map(len, pool.batches)) == 9
    assert len(log) == 5 and batches.processor.processed == {"checked": 9}


async def test_help_off_waits_for_the_processes() -> None:
    log, batches, pool, _, task = await running(2, 4, 12)
    assert batches.help_at is None  # CheckBatches' default; the app sets RAGMON_CHECK_HELP's
    assert len(pool.batches) == 5 and log == []  # all sent, the agent waiting for the oldest
    for gate in pool.gates:
        gate.set()
    await settle()
    task.cancel()


async def test_a_helped_batch_that_raises_is_checked_answer_by_answer() -> None:
    """Not what an answer does (run_batch turns a check's exception into a rejection): the
    batch is handled as a failed pool batch, each answer checked again by the processor."""

    class Broken:
        def run_batch(self, batch: list[Any], shed: str | None = None) -> list[Any]:
            raise MemoryError("no room")

    log: list[str] = []
    batches, _, pool = make_pooled(log, size=2, depth=4, hold=True)
    batches.help_at = 1
    stream = Stream(log)
    task = asyncio.ensure_future(batches.run(stream))
    real, pool.work = pool.work, Broken()  # type: ignore[assignment]
    for i in range(4):
        stream.feed(i, answer(i))
    await settle()
    assert pool.batches == [["e0", "e1"]]  # the second batch was checked here, and raised
    pool.work = real
    pool.gates[0].set()
    stream.queue.put_nowait(None)
    await task
    await batches.flush()
    assert log == [scores(0, 1), scores(2, 3)]
    assert batches.processor.processed == {"checked": 4}
