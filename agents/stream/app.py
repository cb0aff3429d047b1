"""The Faust app factory: topics, tables, the check and aggregate agents, /metrics and /status.

Nothing is created at import time: `create_app(settings, deps)` builds a fresh app (with its own
Prometheus registry), so tests and benchmarks can build as many as they need. What it returns is
agents/stream/ragmon_app.py; the Faust configuration and topic channels are
agents/stream/faust_setup.py; the web pages are agents/stream/web.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import faust
import structlog
from prometheus_client import CollectorRegistry

from agents.checking.pool import CheckPool
from agents.judging.canary import cheap_canary_hook
from agents.kafka import faust_fixes
from agents.kafka.connection import broker_reachable, client_kwargs
from agents.kafka.topics import TopicSpec, topic_specs
from agents.labelling.canary import canary_label_hook
from agents.labelling.feed import follow_labels
from agents.labelling.join import build_label_join
from agents.output.audit import AuditTrail
from agents.output.outbox import Outbox, ProducerPublisher
from agents.stream.aggregate import WindowAggregator, partition_for_app
from agents.stream.alerting import Alerting, TableStore, build_alerting
from agents.stream.check_agent import CheckProcessor, VerdictHook
from agents.stream.check_batch import CheckBatches
from agents.stream.faust_setup import faust_config, topic_channels
from agents.stream.human_scale import HumanScale
from agents.stream.ragmon_app import RagmonApp
from agents.stream.web import install_web
from agents.stream.window_store import CountedRecords
from agents.telemetry.metrics import AppLabels, build_metrics
from monitor.alerting.alerts import Transition
from monitor.config.settings import Settings
from monitor.oncall.alert_record import alert_record

log = structlog.get_logger("ragmon.worker")
GAUGE_INTERVAL = 1.0  # seconds between recomputations of the window gauges
# Seconds each phase of Alerting.close may take at shutdown (queued Grafana notifications drain,
# then the sender thread joins): at most twice this, well inside the worker's stop timeout.
ALERT_FLUSH_SECONDS = 2.5
PROBE_INTERVAL = 5.0  # seconds between broker reachability probes (ragmon_broker_up)


@dataclass
class AppDeps:
    """What a caller may inject instead of the defaults built from settings."""

    registry: CollectorRegistry | None = None
    topics: dict[str, TopicSpec] | None = None  # as ensure_topics() found them on the broker
    alerting: Alerting | None = None
    hooks: list[VerdictHook] = field(default_factory=list)
    judge_client: Any = None
    installers: list[Callable[[RagmonApp], None]] = field(default_factory=list)


def create_app(settings: Settings, deps: AppDeps | None = None) -> RagmonApp:
    deps = deps or AppDeps()
    metrics = build_metrics(deps.registry or CollectorRegistry())
    specs = deps.topics or topic_specs(settings)
    app = faust.App(settings.app_id, **faust_config(settings))
    channels = topic_channels(app, specs)
    labels = AppLabels(settings.app_allowlist, settings.max_apps)

    # Tables are co-partitioned with `scores`: they are written while iterating it.
    parts = specs["scores"].partitions
    step, size = settings.window_step_seconds, settings.window_seconds
    horizon = settings.dedup_horizon_seconds
    # One entry per counted score record, kept while its buckets or its ids can still matter.
    keep = max(horizon, size + 2 * step)
    window_table = app.Table("ragmon-window", default=None, partitions=parts).tumbling(
        step, expires=keep
    )
    store = CountedRecords(window_table, step, horizon, settings.dedup_max_ids)

    async def rebuild() -> None:
        loaded = store.rebuild()
        log.info("windows rebuilt from the changelog", records=loaded, ids=len(store.ids["scores"]))

    window_table.table.on_recover(rebuild)
    alert_state = app.Table("ragmon-alert-state", default=None, partitions=parts)
    faust_fixes.install(
        app, client_kwargs=client_kwargs(settings), fetch_max_wait_ms=settings.fetch_max_wait_ms
    )
    scores_partitions = specs["scores"].partitions
    alerting = deps.alerting or build_alerting(
        settings,
        metrics,
        store=TableStore(alert_state, lambda a: partition_for_app(a, scores_partitions)),
        port=int(app.conf.web_port),
    )

    if alerting.recorder is None:
        audit_json = channels["audit_json"]

        def record_alert(t: Transition, kind: str) -> None:
            record = alert_record(t, settings.window_seconds, kind)  # the worker's window
            audit_json.send_soon(key=t.app.encode("utf-8"), value=record)

        alerting.recorder = record_alert
    scores = channels["scores"]
    outbox = Outbox()
    audit = AuditTrail(
        settings, metrics, send=lambda key, value: outbox.add("audit", key.encode("utf-8"), value)
    )
    processor = CheckProcessor(
        settings, metrics, outbox.add, app_labels=labels, audit=audit, hooks=list(deps.hooks)
    )
    processor.hooks.append(cheap_canary_hook(metrics, labels))  # canaries → cheap_agreement_ratio
    processor.hooks.append(canary_label_hook(outbox.add, labels))  # gold.claims → `labels`
    label_join = build_label_join(settings, channels["labels"])
    aggregator = WindowAggregator(settings, metrics, store, partitions=parts, alerting=alerting)
    aggregator.human = HumanScale(settings, metrics.human, label_join.store)
    publish = ProducerPublisher(app, {role: s.name for role, s in specs.items()}, metrics)
    rapp = RagmonApp(
        app, settings, metrics, specs, channels, processor, aggregator, outbox, publish
    )
    batches = CheckBatches(
        processor,
        outbox,
        lambda: rapp.publish,
        settings.check_batch_size,
        settings.check_batch_seconds,
    )

    batches.guard_commits(app.producer)

    async def check(stream: Any) -> None:
        await batches.run(stream)

    async def end_waiting_batch() -> None:
        await batches.tick()

    app.timer(settings.check_batch_seconds / 2, name="ragmon.check_batches")(end_waiting_batch)

    async def aggregate(stream: Any) -> None:
        async for event in stream.events():
            try:
                value = json.loads(event.value) if event.value else None
            except ValueError:
                value = None
            msg = event.message
            aggregator.next_offsets[msg.partition] = msg.offset + 1
            aggregator.handle(value, event.key, source=f"{msg.partition}:{msg.offset}")

    app.agent(channels["answers"], name="ragmon.check", concurrency=settings.concurrency)(check)
    app.agent(scores, name="ragmon.aggregate")(aggregate)

    def owned_partitions() -> set[int]:
        name = specs["scores"].name
        return {p for topic, ps in rapp.assigned().items() if topic == name for p in ps}

    async def on_assigned(sender: Any, *args: Any, signal: Any = None, **kwargs: Any) -> None:
        aggregator.sync_ownership(owned_partitions())

    app.on_partitions_assigned.connect(on_assigned)  # type: ignore[arg-type]  # mode stub is stricter than its runtime

    async def gauges() -> None:
        aggregator.sync_ownership(owned_partitions())
        rapp.last_gauges = aggregator.publish()

    app.timer(GAUGE_INTERVAL, name="ragmon.gauges")(gauges)

    probe_kwargs = client_kwargs(settings)

    async def probe() -> None:
        reason = await broker_reachable(probe_kwargs, timeout=PROBE_INTERVAL)
        up = reason is None
        metrics.broker_up.set(1 if up else 0)
        if up != rapp.broker_up:
            if up:
                log.info("broker up", servers=settings.bootstrap_servers)
            else:
                log.error("broker unreachable", servers=settings.bootstrap_servers, reason=reason)
        rapp.broker_up = up

    app.timer(PROBE_INTERVAL, name="ragmon.broker_probe")(probe)

    async def labels_feed() -> None:
        await follow_labels(settings, specs["labels"].name, label_join)

    app.task(labels_feed)
    rapp.label_join = label_join

    async def flush_alerts(*_: Any, **__: Any) -> None:
        """Queued Grafana notifications (a firing, its resolve) go out before the process ends;
        off the event loop, since the notifier's close blocks on its thread."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, alerting.close, ALERT_FLUSH_SECONDS)

    app.on_before_shutdown.connect(flush_alerts)
    install_web(rapp)
    if settings.judge_enabled:
        from agents.stream.judge_wiring import install_judge

        rapp.judge = install_judge(
            app,
            settings,
            metrics,
            processor,
            rapp.channels,
            labels,
            client=deps.judge_client,
            on_record=label_join.on_judged,
        )
    for install in deps.installers:
        install(rapp)
    if settings.check_processes:
        # Verdicts come back for the canary hook (canaries) and, all of them, for any other
        # hook; the judge's requests (set by install_judge) are built there and come back
        others = bool(deps.hooks or deps.installers)
        work = replace(
            processor.work,
            hook_rate=1.0 if others else 0.0,
            judge_rates=processor.judge_rates,
            judge_requests=processor.judge_requests,
        )
        rapp.check_pool = batches.pool = CheckPool(
            work, settings.check_processes, on_restart=metrics.check_process_restarts.inc
        )
        # Two batches per process out (one being checked, one waiting) and one more: then the
        # worker helps (agents/stream/check_batch.py); one beyond that before the agent waits.
        batches.help_at = 2 * settings.check_processes + 1 if settings.check_help else None
        batches.depth = 2 * settings.check_processes + 2
        batches.on_help = metrics.check_worker_answers.inc
    return rapp
