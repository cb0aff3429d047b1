"""Reading a time range of a topic by timestamp (offsets-for-times) on the embedded broker."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from agents.kafka.broker import EmbeddedBroker
from agents.kafka.reader import read_topic
from monitor.config.settings import load_settings
from tests.integration.conftest import Namespace

pytestmark = pytest.mark.integration


async def _publish(bootstrap: str, topic: str, groups: int, pause: float) -> list[float]:
    """`groups` groups of 6 records (2 per partition), `pause` seconds apart; returns the time
    each group started. The embedded broker looks timestamps up by when it received a record,
    so the groups are spread in real time."""
    from aiokafka import AIOKafkaProducer
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(topic, 3, 1)])
    finally:
        await admin.close()
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap)
    await producer.start()
    starts = []
    try:
        for g in range(groups):
            starts.append(time.time())
            # sent together: several records per batch, as a worker's producer sends them
            sent = [
                await producer.send(topic, json.dumps({"i": i}).encode(), partition=i % 3)
                for i in range(6 * g, 6 * g + 6)
            ]
            await asyncio.gather(*sent)
            await asyncio.sleep(pause)
    finally:
        await producer.stop()
    return starts


def _read(settings, topic: str, **kw) -> list[int]:  # type: ignore[no-untyped-def]
    async def main() -> list[int]:
        return [json.loads(m.value)["i"] async for m in read_topic(settings, topic, **kw)]

    return sorted(asyncio.run(main()))


def test_a_time_range_is_read_by_seeking_not_scanning(broker: EmbeddedBroker) -> None:
    ns = Namespace("reader")
    topic = ns.topic("audit")
    starts = asyncio.run(_publish(broker.bootstrap, topic, 4, 1.0))
    settings = load_settings(bootstrap_servers=broker.bootstrap)
    assert _read(settings, topic) == list(range(24))
    # from the third group's start to just before the fourth's: records 12..17 only
    got = _read(settings, topic, start=starts[2] - 0.05, end=starts[3] - 0.3, slack=0)
    assert got == list(range(12, 18))
    assert _read(settings, topic, start=time.time() + 60) == []
    assert _read(settings, topic, only=[(1, 3), (2, 0), (0, 99)]) == [2, 10]


def test_every_record_of_multi_record_batches_is_read(broker: EmbeddedBroker) -> None:
    """The embedded broker reports a partition's end as its last batch's first offset + 1:
    a reader that stops there loses the rest of the batch (it lost 10 of 34 audit records)."""
    ns = Namespace("batches")
    topic = ns.topic("audit")
    asyncio.run(_publish(broker.bootstrap, topic, 1, 0.0))

    async def more() -> None:
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, linger_ms=50)
        await producer.start()
        try:
            sent = [
                await producer.send(topic, json.dumps({"i": i}).encode(), partition=0)
                for i in range(6, 30)
            ]
            await asyncio.gather(*sent)
        finally:
            await producer.stop()

    asyncio.run(more())
    settings = load_settings(bootstrap_servers=broker.bootstrap)
    assert _read(settings, topic) == list(range(30))


def test_a_read_of_a_live_topic_ends_at_the_records_of_its_start(broker: EmbeddedBroker) -> None:
    """Records keep coming (a worker auditing): a read up to now stops at the first record
    stamped after it began instead of waiting for one past the end's slack."""
    import threading

    from aiokafka import AIOKafkaProducer

    ns = Namespace("live")
    topic = ns.topic("audit")
    asyncio.run(_publish(broker.bootstrap, topic, 1, 0.0))
    stop = threading.Event()

    async def keep_producing() -> None:
        producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap)
        await producer.start()
        try:
            i = 100
            while not stop.is_set():
                await producer.send_and_wait(topic, json.dumps({"i": i}).encode(), partition=i % 3)
                i += 1
                await asyncio.sleep(0.05)
        finally:
            await producer.stop()

    thread = threading.Thread(target=lambda: asyncio.run(keep_producing()), daemon=True)
    thread.start()
    try:
        time.sleep(1.0)
        settings = load_settings(bootstrap_servers=broker.bootstrap)
        began = time.time()

        async def main() -> list[float]:
            stamps = []
            async for m in read_topic(settings, topic, start=began - 600, end=began):
                assert m.timestamp is not None
                stamps.append(m.timestamp)
            return stamps

        # a read that waited for the slack (60 s) would fail here, not hang the suite
        stamps = asyncio.run(asyncio.wait_for(main(), timeout=30))
        assert len(stamps) >= 6 and max(stamps) <= began + 1.5  # nothing produced later
    finally:
        stop.set()
        thread.join(10)
