"""Reading a time range of a topic without a consumer group: seek every partition to the first
record at or after `start` (Kafka's offsets-for-times, ListOffsets by timestamp), read up to the
first record after `end` (or the end of the partition as it was when the read began), and stop.
`follow` keeps reading new records instead of stopping.

Used by the evidence page, `ragmon audit` and `ragmon dlq`: nothing is committed, nothing is
kept, and a read costs the records in the range, not the topic.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition

from agents.kafka.connection import client_kwargs
from monitor.config.errors import BrokerUnavailable
from monitor.config.settings import Settings

#: records are stamped by their producer, which may run a little behind the audit's own clock
END_SLACK_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Message:
    partition: int
    offset: int
    timestamp: float | None  # epoch seconds
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes], ...] = ()


def consumer(settings: Settings, **extra: Any) -> AIOKafkaConsumer:
    return AIOKafkaConsumer(
        enable_auto_commit=False,
        group_id=None,
        request_timeout_ms=15_000,
        # a read ends with one empty fetch per partition: it should not wait long
        fetch_max_wait_ms=100,
        **client_kwargs(settings),
        **extra,
    )


async def partitions(c: AIOKafkaConsumer, topic: str) -> list[TopicPartition]:
    found = c.partitions_for_topic(topic)
    if not found:
        await c.topics()  # a metadata refresh
        found = c.partitions_for_topic(topic)
    return [TopicPartition(topic, p) for p in sorted(found or ())]


async def _offsets_at(
    c: AIOKafkaConsumer, tps: list[TopicPartition], at: float | None, fallback: dict[Any, int]
) -> dict[TopicPartition, int]:
    """The first offset at or after `at` per partition; `fallback` where there is none."""
    if at is None:
        return {tp: fallback[tp] for tp in tps}
    found = await c.offsets_for_times({tp: max(0, int(at * 1000)) for tp in tps})
    out = {}
    for tp in tps:
        hit = found.get(tp)
        # "none at or after" is offset -1 (None here); tansu says offset 0 with timestamp -1
        ok = hit is not None and hit.timestamp is not None and hit.timestamp >= 0
        out[tp] = hit.offset if ok and hit is not None else fallback[tp]
    return out


async def read_topic(
    settings: Settings,
    topic: str,
    start: float | None = None,
    end: float | None = None,
    follow: bool = False,
    only: Iterable[tuple[int, int]] = (),
    slack: float = END_SLACK_SECONDS,
) -> AsyncIterator[Message]:
    """Records of `topic` from the first stamped at or after `start`; a partition's read stops
    at its first record stamped past `end` + `slack` (producers' clocks differ a little), or
    at its end. Partitions interleave as fetched. `only`: exactly these (partition, offset)
    records."""
    c = consumer(settings)
    try:
        await c.start()
    except Exception as exc:
        with contextlib.suppress(Exception):
            await c.stop()
        raise BrokerUnavailable(
            f"cannot read {topic}: {exc}", servers=settings.bootstrap_servers
        ) from None
    try:
        tps = await partitions(c, topic)
        if not tps:
            return
        c.assign(tps)
        ends = await c.end_offsets(tps)
        begins = await c.beginning_offsets(tps)
        if only:
            async for message in _read_exact(c, topic, list(only), begins, ends):
                yield message
            return
        first = await _offsets_at(c, tps, start, ends) if start is not None else dict(begins)
        pending = set(tps)
        for tp in tps:
            c.seek(tp, max(first[tp], begins[tp]))
        # A record stamped after the read began is past any range that ends by now: on a live
        # topic the read must not wait for records to come (the end offsets, taken at the start,
        # are a lower bound only, see below).
        now = time.time() + 1.0  # a second for the producers' clocks
        horizon = now if end is None else min(end + slack, now)
        last = None if follow else horizon
        while pending:
            batch = await c.getmany(*pending, timeout_ms=500, max_records=2_000)
            for tp in list(pending):
                records = batch.get(tp) or []
                for r in records:
                    if last is not None and r.timestamp is not None and r.timestamp / 1000 > last:
                        pending.discard(tp)  # past the range: this partition is done
                        c.pause(tp)
                        break
                    if start is not None and r.timestamp is not None and r.timestamp < start * 1000:
                        continue  # the seek lands on a batch's start (or past a low end)
                    yield _message(r)
                # The end offsets are a lower bound only: the embedded broker reports the
                # last batch's first offset + 1. A partition is read once a fetch from at or
                # past its end comes back empty.
                if not follow and not records and await c.position(tp) >= ends[tp]:
                    pending.discard(tp)
                    c.pause(tp)
    finally:
        await c.stop()


async def _read_exact(
    c: AIOKafkaConsumer,
    topic: str,
    wanted: list[tuple[int, int]],
    begins: dict[Any, int],
    ends: dict[Any, int],
) -> AsyncIterator[Message]:
    for partition, offset in wanted:
        tp = TopicPartition(topic, partition)
        # Below the log's start (past retention) the seek would be reset to the end and the
        # fetches below would wait there for nothing. (`ends` may be low: see read_topic.)
        if tp not in ends or offset < max(0, begins.get(tp, 0)):
            continue
        c.seek(tp, offset)
        for _ in range(4):  # a record fetch is one round trip; bounded retries on empty
            got = await c.getmany(tp, timeout_ms=500, max_records=1)
            records = got.get(tp) or []
            if records:
                if records[0].offset == offset:
                    yield _message(records[0])
                break


def _message(r: Any) -> Message:
    return Message(
        partition=r.partition,
        offset=r.offset,
        timestamp=r.timestamp / 1000.0 if r.timestamp is not None and r.timestamp >= 0 else None,
        key=r.key,
        value=r.value,
        headers=tuple((k, v) for k, v in (r.headers or ())),
    )
