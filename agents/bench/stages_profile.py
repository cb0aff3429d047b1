"""The in-process profile of `ragmon bench --section stages`: the worker's own objects driven
over the events, batch by batch (in the worker or as with a check process), the producer's
client side and the window table's changelog stood in for, CPU per answer per stage."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import pickle
import statistics
import time
from dataclasses import replace
from typing import Any

from aiokafka.partitioner import murmur2
from aiokafka.producer.message_accumulator import BatchBuilder

from agents.bench.stages_clock import Stopwatch, _patched, switch_cost_ns

#: the judge of the profile, as the e2e bench's judge-on monitor (10% sampled, no budgets)
JUDGE_RATE = 0.1
BATCH_BYTES = 16_384  # aiokafka's default max_batch_size
PARTITIONS = 4


class Producer:
    """The client side of producing: partition by key, append to the partition's record batch,
    a delivery future per record; a full batch is built (what aiokafka's sender sends)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.batches: dict[tuple[str, int], BatchBuilder] = {}
        self.records = 0
        self.bytes = 0

    def send(self, topic: str, key: bytes | None, value: bytes) -> None:
        partition = (murmur2(key) & 0x7FFFFFFF) % PARTITIONS if key is not None else 0
        tp = (topic, partition)
        builder = self.batches.get(tp)
        if builder is None:
            builder = self.batches[tp] = BatchBuilder(BATCH_BYTES, 0)
        if builder.append(timestamp=None, key=key, value=value) is None:
            builder._build()  # what the sender sends (aiokafka's own name)
            builder = self.batches[tp] = BatchBuilder(BATCH_BYTES, 0)
            builder.append(timestamp=None, key=key, value=value)
        self.loop.create_future()
        self.records += 1
        self.bytes += len(value)


class ChangelogTable(dict[str, Any]):
    """The window table as a dict whose writes are encoded as Faust's JSON changelog values
    and produced."""

    def __init__(self, producer: Producer) -> None:
        super().__init__()
        self.producer = producer

    def __setitem__(self, key: str, value: Any) -> None:
        self.producer.send("window-changelog", key.encode(), json.dumps(value).encode())
        super().__setitem__(key, value)


def _pooled_batch(watch: Stopwatch, processor: Any, batch: list[Any]) -> None:
    """One batch as with a check process: the raw batch pickled to the process, decoded,
    checked and its records built there (stages named `child.*`), the results pickled back
    and applied here."""
    with watch.stage("ipc"):
        sent = pickle.dumps([(raw, meta.where()) for raw, meta in batch], pickle.HIGHEST_PROTOCOL)
    watch.prefix = "child."
    with watch.stage("ipc"):
        work = pickle.loads(sent)
    with watch.stage("score"):
        results = processor.work.run_batch(work)
    with watch.stage("ipc"):
        back = pickle.dumps(results, pickle.HIGHEST_PROTOCOL)
    watch.prefix = ""
    with watch.stage("ipc"):
        results = pickle.loads(back)
    with watch.stage("score"):
        for (raw, meta), result in zip(batch, results, strict=True):
            processor.apply(result, raw, meta)
        processor.flush()


async def _profile(
    events: list[bytes],
    judge: bool,
    settings_overrides: dict[str, Any],
    pooled: bool = False,
    detail: bool = False,
    rate: float = 3_000.0,
) -> Any:
    from prometheus_client import CollectorRegistry

    from agents.checking.work import CheckWork, RequestShape
    from agents.output.audit import AuditTrail
    from agents.output.outbox import Outbox
    from agents.stream.aggregate import WindowAggregator
    from agents.stream.alerting import build_alerting
    from agents.stream.app import GAUGE_INTERVAL
    from agents.stream.check_agent import CheckProcessor, RecordMeta
    from agents.stream.window_store import CountedRecords
    from agents.telemetry.metrics import AppLabels, build_metrics
    from monitor.config.settings import load_settings
    from monitor.sampling.policy import Sampler, SamplingPolicy

    settings = load_settings(**settings_overrides)
    metrics = build_metrics(CollectorRegistry())
    outbox = Outbox()
    audit = AuditTrail(
        settings, metrics, send=lambda key, value: outbox.add("audit", key.encode(), value)
    )
    labels = AppLabels(settings.app_allowlist, settings.max_apps)
    # Time as the worker would see it at `rate` answers a second: what runs per second (the
    # gauges and alert rules, GAUGE_INTERVAL) costs each answer its share at that rate
    now = [time.time()]

    def clock() -> float:
        return now[0]

    processor = CheckProcessor(
        settings, metrics, outbox.add, app_labels=labels, audit=audit, clock=clock
    )
    watch = Stopwatch()
    if pooled:  # as the app factory sets the work up for check processes
        judge_rates = (JUDGE_RATE, JUDGE_RATE) if judge else None
        shape = RequestShape(settings.judge_max_evidence_chars, settings.judge_batch_size)
        processor.work = replace(
            processor.work,
            hook_rate=0.0,
            judge_rates=judge_rates,
            judge_requests=shape if judge else None,
        )
    if judge:
        from agents.stream.judge_wiring import judge_hooks

        sampler = Sampler(
            SamplingPolicy(
                base_rate=JUDGE_RATE,
                oversample_rate=JUDGE_RATE,
                calls_per_minute=0,
                tokens_per_hour=0,
            )
        )
        hook, admit = judge_hooks(settings, metrics, processor, labels, sampler, lambda: None)
        processor.hooks.append(watch.wrap("judge", hook))
        processor.request_hook = watch.wrap("judge", admit)
    producer = Producer(asyncio.get_running_loop())
    store = CountedRecords(
        ChangelogTable(producer),
        settings.window_step_seconds,
        settings.dedup_horizon_seconds,
        settings.dedup_max_ids,
    )
    alerting = build_alerting(settings, metrics, store={})
    aggregator = WindowAggregator(
        settings, metrics, store, partitions=PARTITIONS, alerting=alerting, clock=clock
    )
    aggregator.sync_ownership(range(PARTITIONS))
    size = settings.check_batch_size
    next_gauges = now[0] + GAUGE_INTERVAL
    # a check process's clock is `CheckWork.check`'s default (time.time)
    defaults = CheckWork.check.__defaults__ or ()
    CheckWork.check.__defaults__ = (clock, *defaults[1:])
    names = {role: settings.topic(role) for role in ("scores", "audit", "dlq", "judge-requests")}
    out_bytes: dict[str, int] = {}
    scores_offset = 0
    with _patched(watch, detail):
        watch.last = watch.clock()
        for start in range(0, len(events), size):
            batch = [
                (raw, RecordMeta("answers", i % PARTITIONS, i, now[0] - 0.5))
                for i, raw in enumerate(events[start : start + size], start)
            ]
            if pooled:
                _pooled_batch(watch, processor, batch)
            else:
                with watch.stage("score"):
                    for raw, meta in batch:
                        processor.handle(raw, meta)
                    processor.flush()
            records = outbox.take()
            with watch.stage("produce"):
                for role, key, value in records:
                    producer.send(names[role], key, value)
            for role, _, value in records:
                out_bytes[role] = out_bytes.get(role, 0) + len(value)
            with watch.stage("window"):
                for role, key, value in records:
                    if role == "scores":
                        scores_offset += 1
                        aggregator.handle(json.loads(value), key, f"0:{scores_offset}")
                now[0] += len(batch) / rate
                while now[0] >= next_gauges:  # the gauge timer (agents/stream/app.py)
                    aggregator.publish(next_gauges)
                    next_gauges += GAUGE_INTERVAL
        watch.enter("other")  # closes the last stage's clock
    CheckWork.check.__defaults__ = defaults
    alerting.close(1.0)
    return watch, processor, out_bytes, producer


def _worker_gen0_threshold() -> int | None:
    try:
        from agents.checking.gc_tuning import GEN0_THRESHOLD
    except ImportError:  # a tree from before the tuning (the section runs on both)
        return None
    return GEN0_THRESHOLD


def profile(
    events: list[bytes],
    judge: bool = True,
    pooled: bool = False,
    settings: dict[str, Any] | None = None,
    detail: bool = False,
    answers: int = 0,
) -> dict[str, Any]:
    """One pass over `events` (cycled, with fresh ids, up to `answers`): CPU µs per answer per
    stage. `other` is the driver's own loop
    (what the check agent's loop does per answer: the record's metadata); `stopwatch` is what
    the stage switches themselves cost, taken off the total."""
    switch = switch_cost_ns()
    if len(events) < answers:  # long enough for the per-second work to reach its steady state
        from agents.bench.e2e_records import renamed

        events = list(renamed(events, answers, "st"))
    threshold = gc.get_threshold()
    gen0 = _worker_gen0_threshold()
    if gen0 is not None:  # the collector as the worker and its check processes set it
        gc.set_threshold(gen0, *threshold[1:])
    try:
        watch, processor, out_bytes, producer = asyncio.run(
            _profile(events, judge, settings or {}, pooled, detail)
        )
    finally:
        gc.set_threshold(*threshold)
    n = len(events)
    per_stage = {s: ns / n / 1000 for s, ns in sorted(watch.ns.items())}
    overhead = watch.switches * switch / n / 1000
    child = sum(v for s, v in per_stage.items() if s.startswith("child."))
    total = sum(per_stage.values())
    return {
        "events": n,
        "judge": judge,
        "pooled": pooled,
        "cpu_us_per_event": per_stage,
        "in_process_cpu_us_per_event": max(0.0, total - overhead),
        "worker_cpu_us_per_event": total - child,  # with check processes: the worker's part
        "stopwatch_us_per_event": overhead,
        "checked": processor.processed.get("checked", 0),
        "rejected": processor.processed.get("rejected", 0),
        "output_records_per_event": producer.records / n,
        "output_bytes_per_event": {k: v / n for k, v in sorted(out_bytes.items())},
    }


def _median_profile(
    events: list[bytes], runs: int, judge: bool, pooled: bool = False, detail: bool = False
) -> dict[str, Any]:
    """The median over `runs` passes, stage by stage."""
    answers = int(os.environ.get("RAGMON_BENCH_STAGES_ANSWERS", "9000"))
    passes = [profile(events, judge, pooled, detail=detail, answers=answers) for _ in range(runs)]
    out = dict(passes[-1])
    out["runs"] = runs
    stages = sorted({s for p in passes for s in p["cpu_us_per_event"]})
    out["cpu_us_per_event"] = {
        s: statistics.median(p["cpu_us_per_event"].get(s, 0.0) for p in passes) for s in stages
    }
    for key in ("in_process_cpu_us_per_event", "worker_cpu_us_per_event"):
        out[key] = statistics.median(p[key] for p in passes)
    return out
