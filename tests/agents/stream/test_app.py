"""The app factory, and both agents driven through Faust's test_context (no broker)."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from agents.stream.app import create_app
from agents.stream.faust_setup import faust_config
from agents.stream.web import metrics_payload
from monitor.config.errors import ConfigError
from monitor.config.settings import load_settings
from tests.agents.helpers import samples, value


def settings(**kw: Any) -> Any:
    # Checks in this process: Faust's test context ends without the commit flush that would
    # wait for a check process's results (pool mode: tests/integration/test_check_processes.py).
    kw.setdefault("check_processes", 0)
    return load_settings(
        bootstrap_servers="kafka://b1:9092,b2:9092", metrics_port=16111, topic_prefix="x.", **kw
    )


def test_faust_config_from_settings() -> None:
    conf = faust_config(settings(broker_session_timeout=6.0, max_event_bytes=5_000_000))
    assert conf["broker"] == ["kafka://b1:9092", "kafka://b2:9092"]
    assert conf["broker_credentials"] is None
    assert conf["broker_session_timeout"] == 6.0
    assert conf["web_port"] == 16111 and conf["web_bind"] == "127.0.0.1"
    assert conf["consumer_max_fetch_size"] == 15_000_000  # room for a record to dead-letter
    assert conf["autodiscover"] is False
    assert conf["producer_max_batch_size"] == 262_144  # RAGMON_PRODUCER_BATCH_BYTES' default


def test_the_producer_batches_what_the_setting_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the Faust app hands aiokafka's producer, from the variable; out of range is refused
    with the variable's name (a batch must fit a broker's 1 MiB message.max.bytes)."""
    monkeypatch.setenv("RAGMON_PRODUCER_BATCH_BYTES", "65536")
    app = create_app(settings())
    assert app.faust.producer._settings_default()["max_batch_size"] == 65_536
    monkeypatch.setenv("RAGMON_PRODUCER_BATCH_BYTES", "2000000")
    with pytest.raises(ConfigError, match=r"RAGMON_PRODUCER_BATCH_BYTES .*less than or equal"):
        settings()


def test_each_app_is_new_with_its_own_registry_topics_and_tables() -> None:
    one, two = create_app(settings()), create_app(settings(topic_partitions={"scores": 6}))
    assert one.faust is not two.faust and one.metrics.registry is not two.metrics.registry
    assert set(one.faust.agents) == {"ragmon.check", "ragmon.aggregate"}
    assert one.channels["answers"].get_topic_name() == "x.answers"
    assert one.channels["dlq"].get_topic_name() == "x.dlq"
    assert {t.partitions for t in two.faust.tables.values()} == {6}  # co-partitioned with scores


def test_metrics_payload_negotiates_openmetrics_with_exemplars() -> None:
    rapp = create_app(settings())
    rapp.metrics.events.labels(app="search", outcome="checked").inc(
        1, exemplar={"event_id": "e-42"}
    )
    text, text_type = metrics_payload(rapp.metrics.registry, "text/plain")
    assert text_type.startswith("text/plain") and b'event_id="e-42"' not in text
    om, om_type = metrics_payload(
        rapp.metrics.registry, "application/openmetrics-text; version=1.0.0"
    )
    assert om_type.startswith("application/openmetrics-text")
    assert b'# {event_id="e-42"} 1.0' in om


async def test_check_agent_through_faust_test_context() -> None:
    rapp = create_app(settings(audit_sample_rate=0.0, check_batch_size=1))
    published: list[tuple[str, bytes | None, Any]] = []

    async def publish(role: str, key: bytes | None, value: bytes) -> None:
        published.append((role, key, json.loads(value)))

    rapp.publish = publish
    good = {"event_id": "g1", "app": "search", "answer": "See the premium [1]."}
    async with rapp.faust.agents["ragmon.check"].test_context() as agent:
        await agent.put(json.dumps(good).encode(), key=b"g1")
        await agent.put(b"{broken", key=b"b1")
        await agent.put(json.dumps(good).encode(), key=b"g1")
    assert rapp.processor.processed == {"checked": 1, "rejected": 1, "duplicate": 1}
    # three records at offsets 0-2 of partition 0: the next to read there is 3
    assert rapp.status()["next_offsets"] == {"0": 3}
    by_role: dict[str, list[Any]] = {}
    for role, key, record in published:
        by_role.setdefault(role, []).append((key, record))
    assert sorted(by_role) == ["audit", "dlq", "scores"]  # [1] resolves to nothing: audited
    assert [k for k, _ in by_role["dlq"]] == [b"b1"]
    ids = [e[0] for _, scored in by_role["scores"] for e in scored["events"]]
    assert sorted(ids, key=str) == [None, "g1"]  # the duplicate is not scored again
    m = rapp.metrics
    assert value(m, "ragmon_events_total", app="search", outcome="checked") == 1
    assert value(m, "ragmon_dlq_total", reason="invalid_json") == 1
    assert value(m, "ragmon_events_total", app="search", outcome="duplicate") == 1


async def test_aggregate_agent_through_faust_test_context() -> None:
    from agents.output.records import score_entry, score_record

    rapp = create_app(settings())
    counts = [1, 0, 0, 0, 4, 3, 0, 0, 1]
    record = score_record("search", [score_entry("e1", 1.0, time.time(), False, counts)])
    async with rapp.faust.agents["ragmon.aggregate"].test_context() as agent:
        await agent.put(json.dumps(record).encode(), key=b"search")
        await agent.put(json.dumps(record).encode(), key=b"search")  # redelivered
        await agent.put(b"not json", key=b"search")
    assert (rapp.aggregator.counted, rapp.aggregator.duplicates) == (1, 1)
    rapp.aggregator.sync_ownership(range(4))
    exported = rapp.aggregator.publish()
    assert exported["search"]["events"] == 1
    assert exported["search"]["coverage"] == pytest.approx(0.75)
    assert exported["search"]["cheap_hallucination"] == pytest.approx(0.25)
    assert exported["search"]["hallucination"] is None  # nothing judged: no estimate
    assert exported["search"]["validity"] is None
    assert samples(rapp.metrics, "ragmon_validity_ratio") == {}
    assert value(rapp.metrics, "ragmon_duplicate_events_total", app="search") == 1
    # One table entry (one changelog write) for the record, rebuilt into memory on recovery.
    store = rapp.aggregator.store
    stored = list(store.table.table.data.values())
    assert [v["ids"] for v in stored] == [["e1"]]
    sums = dict(store.sums)
    store.rebuild([])
    assert store.sums == {} and not store.seen("e1", time.time())
    await store.table.table.call_recover_callbacks()
    assert store.seen("e1", time.time()) and store.sums == sums


async def test_judge_wiring_samples_checked_answers_into_judge_requests() -> None:
    pytest.importorskip("monitor.check")
    from monitor.judge.request import parse_request

    rapp = create_app(
        settings(
            judge_enabled=True,
            judge_sample_rate=1.0,
            judge_oversample_rate=1.0,
            check_batch_size=1,
            audit_sample_rate=1.0,
        )
    )
    assert "ragmon.judge" in rapp.faust.agents
    sent: list[dict[str, Any]] = []
    audited: list[dict[str, Any]] = []

    async def publish(role: str, key: bytes | None, value: bytes) -> None:
        if role == "judge-requests":
            sent.append({"key": key, "value": json.loads(value)})
        if role == "audit":
            audited.append(json.loads(value))

    rapp.publish = publish
    doc = {"id": "a.txt", "text": "The premium is 120 dollars per month for every customer."}
    answer = "The premium is 120 dollars per month for every customer [a.txt:1:0-56]."
    event = {"event_id": "r1", "app": "docs-qa", "answer": answer, "documents": [doc]}
    async with rapp.faust.agents["ragmon.check"].test_context() as agent:
        await agent.put(json.dumps(event).encode(), key=b"r1")
        await agent.put(b"{broken", key=b"r2")  # rejected: never judged
    assert [s["key"] for s in sent] == [b"r1"]
    request = sent[0]["value"]
    assert request["event_id"] == "r1" and request["items"][0]["claim_index"] == 0
    assert "120 dollars" in request["items"][0]["evidence"]

    # while the judge's queue is full, sampled answers are shed here, counted, not published
    assert rapp.judge is not None
    while not rapp.judge.full:  # the queue's own items: no judge task drains it here
        rapp.judge.queue.put_nowait((parse_request(request), None))
    shed = {**event, "event_id": "r3"}
    async with rapp.faust.agents["ragmon.check"].test_context() as agent:
        await agent.put(json.dumps(shed).encode(), key=b"r3")
    assert [s["key"] for s in sent] == [b"r1"]
    dropped = rapp.metrics.registry.get_sample_value(
        "ragmon_judge_dropped_total", {"reason": "queue_full"}
    )
    assert dropped == 1
    # the audited answer's page says what became of it: a drop record in the audit trail
    drops = [r for r in audited if r.get("outcome") == "dropped"]
    assert [(r["event_id"], r["reason"], r["dropped_because"]) for r in drops] == [
        ("r3", "judge", "queue_full")
    ]
    assert drops[0]["sampled_because"] == "base"


async def test_worker_shutdown_flushes_queued_alert_notifications() -> None:
    from agents.stream.alerting import Alerting
    from agents.stream.app import ALERT_FLUSH_SECONDS, AppDeps

    closed: list[float] = []

    class Notifier:
        def submit(self, transition: Any) -> None:
            pass

        def close(self, timeout: float = 5.0) -> None:
            closed.append(timeout)

    rapp = create_app(settings(), AppDeps(alerting=Alerting((), None, Notifier())))
    await rapp.faust.on_before_shutdown.send()
    assert closed == [ALERT_FLUSH_SECONDS]
