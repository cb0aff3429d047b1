"""The judge runner finishes a request before its message is acked: `done` after the LLM has
answered (or the request was dropped), never for one given up by `release` or cut off by `stop`;
and the judge agent hands its unfinished messages back before Faust waits for them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import faust
from prometheus_client import CollectorRegistry

from agents.judging.agent import JudgeRunner
from agents.judging.wiring import attach_judge_agent
from agents.telemetry.metrics import build_metrics
from monitor.judge.request import Item, JudgeRequest
from tests.agents.helpers import unreachable_judge


class Gated(JudgeRunner):
    """A runner whose requests finish only when the test opens the gate."""

    def __init__(self, queue_size: int = 10) -> None:
        metrics = build_metrics(CollectorRegistry())
        super().__init__(
            unreachable_judge(metrics),
            metrics,
            concurrency=1,
            queue_size=queue_size,
        )
        self.gate = asyncio.Event()
        self.started: list[str] = []
        self.finished: list[str] = []

    async def process(self, request: JudgeRequest) -> dict[str, Any]:
        self.started.append(request.event_id)
        await self.gate.wait()
        self.finished.append(request.event_id)
        return {}


def request(event_id: str) -> JudgeRequest:
    return JudgeRequest(event_id, "shop", (Item(0, "A claim here", "Some evidence."),))


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


async def test_done_only_after_the_request_is_finished() -> None:
    runner = Gated()
    done: list[str] = []
    assert runner.submit(request("e1"), done=lambda: done.append("e1"))
    await _settle()
    assert runner.started == ["e1"] and done == []  # in flight: not acked yet
    runner.gate.set()
    await asyncio.wait_for(runner.join(), 5)
    assert done == ["e1"]
    await runner.stop()


async def test_dropped_requests_are_done_at_once() -> None:
    runner = Gated(queue_size=1)
    done: list[str] = []
    runner.submit(request("e1"), done=lambda: done.append("e1"))
    await _settle()  # e1 in flight, the queue empty again
    assert runner.submit(request("e2"), done=lambda: done.append("e2"))
    assert not runner.submit(request("e3"), done=lambda: done.append("e3"))  # queue full
    assert not runner.submit({"not": "a request"}, done=lambda: done.append("bad"))
    assert done == ["e3", "bad"]
    await runner.stop()


async def test_release_gives_up_queued_requests_without_done() -> None:
    runner = Gated()
    done: list[str] = []
    for e in ("e1", "e2", "e3"):
        runner.submit(request(e), done=lambda e=e: done.append(e))
    await _settle()
    assert runner.started == ["e1"]
    assert runner.release() == 2  # e2, e3: not started, given up
    assert runner.queue.qsize() == 0
    runner.gate.set()
    await asyncio.wait_for(runner.join(), 5)
    assert runner.finished == ["e1"] and done == ["e1"]
    await runner.stop()


async def test_stop_cuts_off_without_done() -> None:
    runner = Gated()
    done: list[str] = []
    runner.submit(request("e1"), done=lambda: done.append("e1"))
    await _settle()
    await runner.stop()
    assert runner.started == ["e1"] and done == []


class FakeConsumer:
    def __init__(self, messages: set[Any]) -> None:
        self._unacked_messages = messages
        self.waited_with: set[Any] | None = None

    async def wait_empty(self) -> None:
        self.waited_with = set(self._unacked_messages)


async def test_agent_hands_back_unfinished_messages_before_faust_waits() -> None:
    runner = Gated()
    app = faust.App("ragmon-handback-test", broker="kafka://127.0.0.1:9", autodiscover=False)
    topic = app.topic("ragmon.judge-requests", value_serializer="raw")
    agent = attach_judge_agent(app, runner, topic)
    async with agent.test_context() as ctx:
        events = [
            await ctx.put(json.dumps(request(e).to_dict()).encode()) for e in ("e1", "e2", "e3")
        ]
        messages = [e.message for e in events]
        await _settle()
        assert runner.started == ["e1"] and runner.queue.qsize() == 2
        # what Faust's consumer would be waiting for: the three messages, and one of another agent
        other = object()
        unacked = {*messages, other}
        consumer = FakeConsumer(unacked)
        await app._consumer_wait_empty(consumer, app.log)
        # the wait saw only the other agent's message: ours were handed back, not acked
        assert consumer.waited_with == {other}
        assert runner.queue.qsize() == 0
        runner.gate.set()
        await asyncio.wait_for(runner.join(), 5)
        # the in-flight one finishes but is not acked (an ack could commit past e2 and e3 if
        # the partition came back here); e2 and e3 are the next owner's
        assert runner.finished == ["e1"]
        assert [m.acked for m in messages] == [False, False, False]
        # a request taken after the hand-back is acked when done
        late = await ctx.put(json.dumps(request("e4").to_dict()).encode())
        await asyncio.wait_for(runner.join(), 5)
        assert runner.finished == ["e1", "e4"] and late.message.acked
    await runner.stop()


async def test_a_failing_second_opinion_keeps_the_judges_record() -> None:
    class Failing:
        async def opinion(self, items: Any) -> dict[str, Any]:
            raise RuntimeError("onnxruntime gone")

        def close(self) -> None:
            pass

    metrics = build_metrics(CollectorRegistry())
    published: list[dict[str, Any]] = []

    async def publish(record: dict[str, Any]) -> None:
        published.append(record)

    runner = JudgeRunner(
        unreachable_judge(metrics),
        metrics,
        concurrency=1,
        publish=publish,
        semantic=Failing(),  # type: ignore[arg-type]
    )
    done: list[str] = []
    runner.submit(request("e1"), done=lambda: done.append("e1"))
    await asyncio.wait_for(runner.join(), 10)
    await runner.stop()
    assert [r["event_id"] for r in published] == ["e1"] and "semantic" not in published[0]
    assert done == ["e1"]
