"""A client that is not aiokafka: librdkafka (confluent-kafka from PyPI) against the embedded
broker and a real worker.

Answer events are produced with confluent-kafka's producer (batched: linger.ms), a worker
checks them, and confluent-kafka's consumer reads ragmon's output topics: every answer is in
`scores` with the counts the offline check gives, every one in `audit` (sample rate 1), every
malformed record in `dlq`. The watermarks are compared as the README says to read them: the
high watermark a fetch returns is the end of the partition; ListOffsets (what lag tools ask
for) may be lower on the embedded broker, never higher.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import standard_mix
from tests.integration.conftest import Namespace, WorkerProcess, wait_until

pytestmark = pytest.mark.integration
confluent_kafka = pytest.importorskip("confluent_kafka")
pytest.importorskip("confluent_kafka.admin")

N_EVENTS = 200
MALFORMED = [
    ("invalid_json", b'{"event_id": "bad-json", "answer": "cut'),
    ("not_an_object", b'["event_id", "answer"]'),
    ("schema_violation", json.dumps({"event_id": 5, "answer": "ids are strings"}).encode()),
]


def _produce(bootstrap: str, topic: str, records: list[tuple[bytes | None, bytes]]) -> list[Any]:
    """Publish in order with librdkafka's batching; returns (partition, offset) per record."""
    producer = confluent_kafka.Producer(
        {"bootstrap.servers": bootstrap, "linger.ms": 50, "enable.idempotence": False}
    )
    delivered: list[Any] = [None] * len(records)

    def report(i: int) -> Callable[[Any, Any], None]:
        def on_delivery(err: Any, msg: Any) -> None:
            delivered[i] = err or (msg.partition(), msg.offset())

        return on_delivery

    for i, (key, value) in enumerate(records):
        producer.produce(topic, value=value, key=key, on_delivery=report(i))
        producer.poll(0)
    assert producer.flush(30) == 0, "records left undelivered"
    errors = [d for d in delivered if not isinstance(d, tuple)]
    assert errors == []
    return delivered


def _consume(
    bootstrap: str, topic: str, until: Callable[[list[Any]], bool]
) -> tuple[Any, list[Any]]:
    """Read every partition of `topic` from its start (no group) until `until(records)`; returns
    the consumer (still open, for its watermarks) and the records."""
    consumer = confluent_kafka.Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"confluent-reader-{topic}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
        }
    )
    partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
    consumer.assign(
        [
            confluent_kafka.TopicPartition(topic, p, confluent_kafka.OFFSET_BEGINNING)
            for p in partitions
        ]
    )
    records: list[Any] = []
    deadline = time.monotonic() + 90
    while not until(records) and time.monotonic() < deadline:
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        assert msg.error() is None, msg.error()
        records.append(msg)
    assert until(records), f"{topic}: only {len(records)} records in 90 s"
    return consumer, records


def _watermarks_bound_the_records(consumer: Any, topic: str, records: list[Any]) -> None:
    ends = Counter[int]()
    for msg in records:
        ends[msg.partition()] = max(ends[msg.partition()], msg.offset() + 1)
    for partition, end in ends.items():
        tp = confluent_kafka.TopicPartition(topic, partition)
        _, fetched_high = consumer.get_watermark_offsets(tp, cached=True)
        _, listed_high = consumer.get_watermark_offsets(tp, timeout=10, cached=False)
        assert fetched_high == end, (topic, partition)
        assert 0 < listed_high <= fetched_high, (topic, partition)


def test_confluent_kafka_produces_answers_and_reads_every_output_topic(
    start_worker: Callable[..., WorkerProcess], broker: Any
) -> None:
    from agents.output.records import verdict_vector
    from monitor.check import check_bytes
    from monitor.config.settings import load_settings
    from monitor.output.audit import audit_reason
    from monitor.records.models import Rejection

    ns = Namespace("confluent")
    worker = start_worker(ns, RAGMON_AUDIT_SAMPLE_RATE="1")
    worker.wait_assigned()
    options = load_settings().check_options()
    events = standard_mix(N_EVENTS, seed=23)
    records: list[tuple[bytes | None, bytes]] = [
        (e["event_id"].encode(), json.dumps(e).encode()) for e in events
    ]
    for i, (_, bad) in enumerate(MALFORMED):
        records.insert(40 * (i + 1), (None, bad))
    offline = {e["event_id"]: check_bytes(json.dumps(e).encode(), options) for e in events}
    assert not any(isinstance(v, Rejection) for v in offline.values())
    delivered = _produce(broker.bootstrap, ns.topic("answers"), records)

    # scores: one entry per answer, with the counts the offline check gives (trailing zeros
    # left out); rejected records are entries without an event id
    def all_scored(rs: list[Any]) -> bool:
        return sum(len(json.loads(m.value())["events"]) for m in rs) >= len(records)

    consumer, scores = _consume(broker.bootstrap, ns.topic("scores"), all_scored)
    counts: dict[str, list[int]] = {}
    rejected = 0
    for msg in scores:
        record = json.loads(msg.value())
        assert record["v"] == 2 and record["kind"] == "scores"
        for event_id, _, _, _, vector in record["events"]:
            if event_id is None:
                rejected += 1
            else:
                counts[event_id] = vector
    assert rejected == len(MALFORMED)
    assert counts.keys() == offline.keys()
    for event_id, verdict in offline.items():
        expected = verdict_vector(verdict)
        while expected and expected[-1] == 0:
            expected.pop()
        assert counts[event_id] == expected, event_id
    _watermarks_bound_the_records(consumer, ns.topic("scores"), scores)
    consumer.close()

    # audit: every answer (sample rate 1), with the offline reason
    consumer, audit = _consume(broker.bootstrap, ns.topic("audit"), lambda rs: len(rs) >= N_EVENTS)
    reasons = {
        json.loads(m.value())["event_id"]: json.loads(m.value())["audit_reason"] for m in audit
    }
    assert reasons == {k: audit_reason(v, 1.0) for k, v in offline.items()}
    assert Counter(reasons.values())["failure"] > 0
    _watermarks_bound_the_records(consumer, ns.topic("audit"), audit)
    consumer.close()

    # dlq: each malformed record with its reason and where it came from
    consumer, letters = _consume(
        broker.bootstrap, ns.topic("dlq"), lambda rs: len(rs) >= len(MALFORMED)
    )
    origin = {delivered[records.index((None, bad))]: reason for reason, bad in MALFORMED}
    got = {
        (r["partition"], r["offset"]): r["reason"] for r in (json.loads(m.value()) for m in letters)
    }
    assert got == origin
    _watermarks_bound_the_records(consumer, ns.topic("dlq"), letters)
    consumer.close()

    # the answers topic as produced: librdkafka's delivery offsets end where a fetch ends
    consumer, answers = _consume(
        broker.bootstrap, ns.topic("answers"), lambda rs: len(rs) >= len(records)
    )
    assert sorted((m.partition(), m.offset()) for m in answers) == sorted(delivered)
    _watermarks_bound_the_records(consumer, ns.topic("answers"), answers)
    consumer.close()

    # the worker's group commits every answer, as librdkafka reads the group's offsets: lag
    # is the fetched end minus the committed offset (0), whatever ListOffsets says
    group = confluent_kafka.Consumer(
        {"bootstrap.servers": broker.bootstrap, "group.id": ns.app_id, "enable.auto.commit": False}
    )
    ends = Counter[int]()
    for msg in answers:
        ends[msg.partition()] = max(ends[msg.partition()], msg.offset() + 1)
    tps = [confluent_kafka.TopicPartition(ns.topic("answers"), p) for p in ends]

    def committed() -> dict[int, int] | None:
        got = {tp.partition: tp.offset for tp in group.committed(tps, timeout=10)}
        return got if got == dict(ends) else None

    wait_until(committed, timeout=60, what="the worker group's commits")
    group.close()


def test_embedded_broker_lists_the_last_batchs_base_offset_plus_one(broker: Any) -> None:
    """The README's figure, with librdkafka (tests/integration/test_cli_pipeline.py has it with
    aiokafka): batches of 3, 4 and 2 records (offsets 0-8) are listed as ending at 8 and fetched
    as ending at 9. If tansu starts listing 9, update the README's "Kafka clients and the
    embedded broker" and agents/kafka/faust_fixes/recovery_fix.py's docstring."""
    topic = Namespace("batches").topic("answers")
    admin = confluent_kafka.admin.AdminClient({"bootstrap.servers": broker.bootstrap})
    for future in admin.create_topics([confluent_kafka.admin.NewTopic(topic, 1, 1)]).values():
        future.result(10)
    records: list[tuple[bytes | None, bytes]] = []
    for size in (3, 4, 2):  # one flush per batch: one record batch each
        records += [(None, b"%d" % i) for i in range(size)]
    delivered = [
        _produce(broker.bootstrap, topic, records[a:b]) for a, b in ((0, 3), (3, 7), (7, 9))
    ]
    assert [offset for batch in delivered for _, offset in batch] == list(range(9))
    consumer, read = _consume(broker.bootstrap, topic, lambda rs: len(rs) >= 9)
    tp = confluent_kafka.TopicPartition(topic, 0)
    assert [m.offset() for m in read] == list(range(9))
    assert consumer.get_watermark_offsets(tp, cached=True) == (0, 9)  # as fetched
    assert consumer.get_watermark_offsets(tp, timeout=10, cached=False) == (0, 8)  # as listed
    consumer.close()
