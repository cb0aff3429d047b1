"""Puts the judge runner on a Faust app: builds it from the settings object, publishes its records
to Kafka topics (verdicts and audit keyed by event id, judge records on `scores` keyed by app),
and registers the agent that feeds it from `judge-requests` with acks in partition order.

Wiring (the app factory)::

    runner = build_judge_runner(settings, metrics, app_label,
                                publish=topic_publisher(verdicts_topic),
                                audit=topic_publisher(audit_topic))
    attach_judge_agent(app, runner, judge_requests_topic)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import structlog

from agents.judging.acks import InOrderAcks
from agents.judging.agent import JudgeRunner, Publish
from agents.judging.observer import MetricsObserver
from agents.kafka import handback
from agents.semantic.opinion import SemanticOpinion
from agents.telemetry.metrics import Metrics
from monitor.judge.client import JudgeClient
from monitor.judge.config import JudgeConfig
from monitor.sampling.policy import Budget

log = structlog.get_logger("ragmon.judge")
__all__ = ["attach_judge_agent", "build_judge_runner", "score_publisher", "topic_publisher"]


def build_judge_runner(
    settings: Any,
    metrics: Metrics,
    app_label: Callable[[str | None], str] | None = None,
    *,
    publish: Publish | None = None,
    audit: Publish | None = None,
    correct: Publish | None = None,
    client: Any = None,
) -> JudgeRunner:
    """A runner configured from the settings object (budgets enforced on real calls too)."""
    config = JudgeConfig.from_settings(settings)
    judge = JudgeClient(
        config,
        observer=MetricsObserver(metrics),
        budget=Budget(settings.judge_calls_per_minute, settings.judge_tokens_per_hour),
        client=client,
    )
    return JudgeRunner(
        judge,
        metrics,
        concurrency=config.max_in_flight,
        queue_size=settings.judge_queue_size,
        publish=publish,
        audit=audit,
        correct=correct,
        app_label=app_label,
        # loaded at start-up so a missing or altered model stops the worker, not a request
        semantic=SemanticOpinion.load() if getattr(settings, "semantic_enabled", False) else None,
    )


def topic_publisher(topic: Any) -> Publish:
    """Publish records to a Faust topic as JSON bytes, keyed by event id (bytes pass through
    both raw and json topics unchanged)."""

    async def send(record: dict[str, Any]) -> None:
        key = str(record.get("event_id") or "").encode()
        await topic.send(key=key, value=json.dumps(record, ensure_ascii=False).encode())

    return send


def score_publisher(topic: Any) -> Publish:
    """Publish score records (judge records) to `scores` as JSON bytes, keyed by app like
    the check agent's, so they reach the partition that owns the app's window."""

    async def send(record: dict[str, Any]) -> None:
        key = str(record["app"]).encode()
        await topic.send(key=key, value=json.dumps(record, separators=(",", ":")).encode())

    return send


def attach_judge_agent(app: Any, runner: JudgeRunner, requests_topic: Any) -> Any:
    """Register the judge agent on a Faust app; the runner stops with the app.

    A request's message is acked when the runner is done with it and with every earlier one of
    its partition (agents.judging.acks), not when it is queued, so a worker killed with requests
    queued or in flight loses none: the next owner of the partition reads them again (an answer
    judged twice sends its label twice; the window counts it once, by event id). Before a
    rebalance or a stop waits for unacked messages, the queued requests are given up and every
    unfinished message handed back (agents.kafka.handback), so a slow judge never holds a
    rebalance."""
    acks = InOrderAcks()

    async def judge(stream: Any) -> None:
        async for event in stream.noack().events():
            runner.submit(event.value, done=acks.take(event))

    agent = app.agent(requests_topic, name="ragmon.judge")(judge)

    def release(consumer: Any) -> None:
        queued = runner.release()
        unfinished = acks.release(consumer)
        if unfinished:
            log.info("judge requests handed back", queued=queued, unfinished=unfinished)

    handback.on_wait_empty(app, release)

    async def _stop(*_: Any, **__: Any) -> None:
        await runner.stop()

    app.on_before_shutdown.connect(_stop)
    return agent
