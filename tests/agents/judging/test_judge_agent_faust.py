"""The judge agent inside Faust (test_context, no broker): records from `judge-requests` reach the
runner without blocking, results are published, malformed records are counted and skipped."""

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
from tests.agents.helpers import unreachable_judge, unreachable_judge_url


async def test_agent_hands_records_to_the_runner() -> None:
    metrics = build_metrics(CollectorRegistry())
    client = unreachable_judge(metrics)
    published: list[dict[str, Any]] = []

    async def publish(record: dict[str, Any]) -> None:
        published.append(record)

    runner = JudgeRunner(client, metrics, concurrency=1, queue_size=10, publish=publish)
    app = faust.App("ragmon-judge-test", broker="kafka://127.0.0.1:9", autodiscover=False)
    topic = app.topic("ragmon.judge-requests", value_serializer="raw")
    agent = attach_judge_agent(app, runner, topic)
    request = JudgeRequest("e1", "shop", (Item(0, "A claim here", "Some evidence."),))
    async with agent.test_context() as ctx:
        await ctx.put(json.dumps(request.to_dict()).encode())
        await ctx.put(b'{"not": "a request"}')
        await asyncio.wait_for(runner.join(), 10)
    await runner.stop()
    assert [r["event_id"] for r in published] == ["e1"]
    assert published[0]["claims"][0]["outcome"] == "judge_down"
    assert published[0]["claims"][0]["verdict"] is None
    get = metrics.registry.get_sample_value
    assert get("ragmon_judge_requests_total", {"model": "m", "outcome": "judge_down"}) == 1
    assert get("ragmon_judge_dropped_total", {"reason": "invalid_request"}) == 1


async def test_topic_publisher_sends_json_bytes_keyed_by_event() -> None:
    from agents.judging.wiring import topic_publisher

    sent: list[tuple[bytes, bytes]] = []

    class Topic:
        async def send(self, *, key: bytes, value: bytes) -> None:
            sent.append((key, value))

    await topic_publisher(Topic())({"event_id": "é1", "claims": []})
    assert sent == [("é1".encode(), '{"event_id": "é1", "claims": []}'.encode())]


async def test_canary_through_the_check_agent_sets_cheap_agreement() -> None:
    from agents.stream.app import create_app
    from monitor.config.settings import load_settings

    # checks in this process: the test context ends without the flush a check process needs
    rapp = create_app(load_settings(metrics_port=16112, audit_sample_rate=0.0, check_processes=0))
    doc = {"id": "a.txt", "text": "The premium is 120 dollars per month for every customer."}
    answer = "The premium is 120 dollars per month for every customer [a.txt:1:0-56]."
    event = {"event_id": "c1", "app": "docs-qa", "answer": answer, "documents": [doc],
             "gold": {"label": "supported"}}  # fmt: skip
    async with rapp.faust.agents["ragmon.check"].test_context() as agent:
        await agent.put(json.dumps(event).encode(), key=b"c1")
    ratio = rapp.metrics.registry.get_sample_value(
        "ragmon_cheap_agreement_ratio", {"app": "docs-qa"}
    )
    assert ratio == 1.0  # the cheap tier says supported, as the label does


async def test_the_check_agent_sheds_sampled_answers_while_the_judge_is_down() -> None:
    from agents.stream.app import AppDeps, create_app
    from monitor.config.settings import load_settings
    from monitor.judge.prompt import Pair

    registry = CollectorRegistry()
    settings = load_settings(
        openai_base_url=unreachable_judge_url(),
        metrics_port=16113, audit_sample_rate=0.0, check_processes=0, judge_enabled=True,
        judge_sample_rate=1.0, judge_oversample_rate=1.0, judge_calls_per_minute=0,
        judge_tokens_per_hour=0,
    )  # fmt: skip
    rapp = create_app(settings, AppDeps(registry=registry))
    runner = rapp.judge
    assert runner is not None and not runner.down
    doc = {"id": "a.txt", "text": "The premium is 120 dollars per month for every customer."}
    answer = "The premium is 120 dollars per month for every customer [a.txt:1:0-56]."
    event = {"event_id": "d1", "app": "docs-qa", "answer": answer, "documents": [doc]}
    first = await runner.client.judge([Pair("A claim here", "Some evidence.")])  # refused
    assert first[0].outcome == "judge_down" and runner.down
    async with rapp.faust.agents["ragmon.check"].test_context() as agent:
        await agent.put(json.dumps(event).encode(), key=b"d1")
    get = registry.get_sample_value
    # shed before a request was built: counted as dropped, and as a loss of the uniform sample
    assert get("ragmon_judge_dropped_total", {"reason": "judge_down"}) == 1
    assert get("ragmon_estimation_answers_total", {"app": "docs-qa", "outcome": "dropped"}) == 1
    assert not get("ragmon_estimation_answers_total", {"app": "docs-qa", "outcome": "sent"})
    await runner.stop()


async def test_shedding_names_a_full_queue_first_then_a_down_judge() -> None:
    from monitor.judge.prompt import Pair
    from monitor.sampling.policy import JUDGE_DOWN, QUEUE_FULL

    metrics = build_metrics(CollectorRegistry())
    runner = JudgeRunner(unreachable_judge(metrics), metrics, concurrency=1, queue_size=1)
    assert runner.shedding() is None
    await runner.client.judge([Pair("A claim here", "Some evidence.")])  # refused: cool-down
    assert runner.shedding() is JUDGE_DOWN
    # filled directly: submit would start the worker, which would empty it
    runner.queue.put_nowait((JudgeRequest("e1", "shop", (Item(0, "A claim", "Evidence."),)), None))
    assert runner.shedding() is QUEUE_FULL
    await runner.stop()


async def test_a_full_queue_sheds_until_a_quarter_has_drained() -> None:
    """Hysteresis: a request reaches the queue a broker round trip after it is built, so the
    check path does not resume at the first free slot. Queue of 8: full at 8, resumes at 6."""
    from monitor.sampling.policy import QUEUE_FULL

    metrics = build_metrics(CollectorRegistry())
    runner = JudgeRunner(unreachable_judge(metrics), metrics, concurrency=1, queue_size=8)
    assert runner.resume_depth == 6
    request = (JudgeRequest("e1", "shop", (Item(0, "A claim", "Evidence."),)), None)
    seen = []
    for _ in range(8):  # filling: sends until full
        seen.append(runner.shedding())
        runner.queue.put_nowait(request)
    assert seen == [None] * 8 and runner.shedding() is QUEUE_FULL
    runner.queue.get_nowait()  # 7: still shedding
    assert runner.shedding() is QUEUE_FULL
    runner.queue.get_nowait()  # 6: a quarter drained
    assert runner.shedding() is None
    runner.queue.put_nowait(request)  # 7: filling again, sends
    assert runner.shedding() is None
    runner.queue.put_nowait(request)  # 8: full
    assert runner.shedding() is QUEUE_FULL
    runner.release()  # a rebalance empties it: sends at once
    assert runner.shedding() is None
    one = JudgeRunner(unreachable_judge(metrics), metrics, concurrency=1, queue_size=1)
    assert one.resume_depth == 0  # a queue of one resumes once empty
    await runner.stop()
    await one.stop()
