"""The records of the end-to-end bench on the broker: fresh events written (paced or not),
output read back and weighed by the answers it carries, rates and lag summaries from the
records' timestamps, and a paused worker's rate through a backlog."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import time
from collections.abc import Iterator
from typing import Any

from agents.bench.e2e_procs import (
    PARTITIONS,
    _paused,
    busiest_share,
    machine_cpu,
    process_cpu,
)
from agents.kafka.produce import Publisher, paced
from monitor.config.settings import Settings


def renamed(events: list[bytes], n: int, tag: str) -> Iterator[bytes]:
    """`n` events cycling through `events`, each round with fresh event ids (no dedup)."""
    for i in range(n):
        raw = events[i % len(events)]
        yield raw.replace(b'"event_id": "', f'"event_id": "{tag}{i // len(events)}-'.encode(), 1)


async def _publish(settings: Settings, topic: str, values: Any, rate: float | None) -> int:
    publisher = Publisher(settings, topic)
    await publisher.start()
    try:
        async for value in paced(values, rate):
            await publisher.send(value)
    finally:
        await publisher.stop()
    return publisher.stats.sent


def _one(record: Any) -> int:
    return 1


async def _read(
    bootstrap: str, topic: str, count: int, timeout: float, weight: Any = _one
) -> list[Any]:
    """Records of `topic` from the start until their weights add up to `count`."""
    from aiokafka import AIOKafkaConsumer

    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False
    )
    await consumer.start()
    out: list[Any] = []
    total = 0
    deadline = time.monotonic() + timeout
    try:
        while total < count and time.monotonic() < deadline:
            for records in (await consumer.getmany(timeout_ms=500, max_records=5000)).values():
                out.extend(records)
                total += sum(weight(r) for r in records)
    finally:
        await consumer.stop()
    return out


def _rate(records: list[Any], weight: Any = _one) -> float:
    """Items per second between the first and the last record (the first one's not counted)."""
    ordered = sorted(records, key=lambda r: r.timestamp)
    span = (ordered[-1].timestamp - ordered[0].timestamp) / 1000
    items = sum(weight(r) for r in ordered[1:])
    return items / span if span > 0 else float("nan")


def _lags(inputs: list[Any], outputs: list[Any]) -> list[float]:
    sent = {r.value: r.timestamp for r in inputs}
    return sorted((r.timestamp - sent[r.value]) / 1000 for r in outputs if r.value in sent)


def _summary(lags: list[float]) -> dict[str, Any]:
    return {
        "events": len(lags),
        "median_s": statistics.median(lags) if lags else None,
        "p95_s": lags[int(len(lags) * 0.95) - 1] if lags else None,
        "p99_s": lags[max(0, int(len(lags) * 0.99) - 1)] if lags else None,  # issue 6 asks p99
    }


def _tagged_answers(tag: str) -> Any:
    """Weight of a score record: how many of its answers carry ids starting with `tag`."""

    def weight(record: Any) -> int:
        value = json.loads(record.value)
        if value.get("kind", "scores") != "scores":
            return 0  # a judge correction: the answer was counted by its score record
        return sum(1 for e in value.get("events") or () if str(e[0]).startswith(tag))

    return weight


def _tagged_values(tag: str) -> Any:
    needle = f'"event_id": "{tag}'.encode()

    def weight(record: Any) -> int:
        return 1 if needle in record.value else 0

    return weight


async def _ends(bootstrap: str, topic: str) -> dict[Any, int]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        return dict(await consumer.end_offsets(tps))
    finally:
        await consumer.stop()


async def _output_since(
    bootstrap: str, topic: str, starts: dict[Any, int], count: int, weight: Any, timeout: float
) -> list[Any]:
    """The records a worker writes to `topic` after `starts`, once their weights reach `count`.

    The bench reads them only after the topic's end offsets have stood still for a second: a
    reader running beside the worker would take CPU from it, and far more from a worker that
    writes a record per answer (the pass-through) than from one writing a record per batch."""
    from aiokafka import AIOKafkaConsumer

    deadline = time.monotonic() + timeout
    previous: dict[Any, int] = dict(starts)
    still = 0
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        ends = await _ends(bootstrap, topic)
        still = still + 1 if ends == previous and ends != starts else 0
        previous = ends
        if still < 2:
            continue
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
        await consumer.start()
        out: list[Any] = []
        try:
            consumer.assign(list(starts))
            for tp, offset in starts.items():
                consumer.seek(tp, offset)
            empty = 0
            while empty < 2:
                batch = await consumer.getmany(timeout_ms=300, max_records=5000)
                empty = 0 if batch else empty + 1
                for records in batch.values():
                    out.extend(records)
        finally:
            await consumer.stop()
        if sum(weight(r) for r in out) >= count:
            return out
        still = 0
    raise TimeoutError(f"{topic}: fewer than {count} answers came out in {timeout:.0f} s")


def _backlog_rate(
    settings: Settings,
    bootstrap: str,
    source: str,
    sink: str,
    events: list[bytes],
    n: int,
    tag: str,
    weight: Any,
    proc: subprocess.Popen[bytes],
    busy: list[tuple[float, float]] | None = None,
    costs: list[tuple[float, list[float]]] | None = None,
    broker_pid: int | None = None,
) -> tuple[float, float]:
    """How fast the running worker `proc` works through `n` fresh events written while it
    was paused, and the CPU time its processes spent per answer (µs). `busy`: gets the share
    of the machine's CPU in use (all processes, all cores) while the worker worked, and the
    largest share of a core one of the worker's processes used (`busiest_share`). `costs`:
    gets the broker's CPU per answer meanwhile (`broker_pid`, 0 without one) and each of the
    worker's processes' (µs: the worker's own, then its check processes and resource tracker,
    largest first): which process sets the pace, and what the broker's share of the machine
    leaves the worker."""
    starts = asyncio.run(_ends(bootstrap, sink))
    with _paused(proc):
        asyncio.run(_publish(settings, source, renamed(events, n, tag), None))
        cpu = process_cpu(proc.pid)
        broker = process_cpu(broker_pid) if broker_pid else {}
        machine = machine_cpu()
        resumed = time.monotonic()
    records = asyncio.run(_output_since(bootstrap, sink, starts, n, weight, timeout=1200))
    seconds = time.monotonic() - resumed
    after = process_cpu(proc.pid)
    cpu_us = (sum(after.values()) - sum(cpu.values())) / n * 1e6
    if costs is not None:
        broker_after = process_cpu(broker_pid) if broker_pid else {}
        broker_us = (sum(broker_after.values()) - sum(broker.values())) / n * 1e6
        spent = {p: (after[p] - cpu.get(p, 0.0)) / n * 1e6 for p in after}
        worker = spent.pop(proc.pid, 0.0)
        costs.append((broker_us, [worker, *sorted(spent.values(), reverse=True)]))
    rate = _rate([r for r in records if weight(r)], weight=weight)
    if busy is not None:
        # the readings span the reader's start and its last empty polls too: the shares are of
        # the time the answers took (n / rate, from the records' timestamps), the rest idle
        used, total = (b - a for a, b in zip(machine, machine_cpu(), strict=True))
        working = min(seconds, n / rate) if rate > 0 else seconds
        window = total * working / seconds if seconds > 0 else 0
        busy.append(
            (min(1.0, used / window) if window else 0.0, busiest_share(cpu, after, working))
        )
    return rate, cpu_us
