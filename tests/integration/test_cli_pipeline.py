"""The pipeline's commands against real processes: a worker facing no broker, `ragmon produce`,
`ragmon broker`, and the changelog end probe that works around tansu's high watermark."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agents.kafka.broker import free_port, pid_alive, port_open
from tests.integration.conftest import ROOT, Namespace, consume, wait_until

pytestmark = pytest.mark.integration


def ragmon(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> Any:
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_worker_without_broker_retries_then_fails_with_one_clear_error() -> None:
    port = free_port()  # nothing listens there
    result = ragmon(
        "worker", "-b", f"127.0.0.1:{port}", "--max-wait", "4", "--metrics-port", str(free_port())
    )
    assert result.returncode == 1
    assert f"ragmon worker: error: Kafka broker at 127.0.0.1:{port} unreachable" in result.stderr
    retries = [line for line in result.stderr.splitlines() if "retrying" in line]
    assert len(retries) == 2  # one line per attempt: after 1 s, after 2 s; then the error
    assert "Traceback" not in result.stderr + result.stdout


def test_produce_keys_records_by_event_id(broker: Any, tmp_path: Path) -> None:
    ns = Namespace("produce")
    lines = [json.dumps({"event_id": f"p-{i}", "answer": "x"}) for i in range(30)]
    lines.insert(5, "not json at all")
    lines.insert(9, "")  # blank lines are skipped
    source = tmp_path / "events.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {"RAGMON_BOOTSTRAP_SERVERS": broker.bootstrap, "RAGMON_TOPIC_PREFIX": ns.prefix}
    result = ragmon("produce", str(source), "--rate", "200", env=env)
    assert result.returncode == 0, result.stderr
    assert f"31 events to {ns.topic('answers')}" in result.stderr
    records = consume(broker.bootstrap, ns.topic("answers"), 31)
    keys = sorted(r.key for r in records if r.key is not None)
    assert keys == sorted(f"p-{i}".encode() for i in range(30))
    assert [r.value for r in records if r.key is None] == [b"not json at all"]


def test_broker_command_runs_in_the_foreground_and_stops_on_ctrl_c() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "broker", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        assert f"127.0.0.1:{port}" in proc.stdout.readline()
        wait_until(lambda: port_open("127.0.0.1", port), timeout=10, what="broker port")
        from tests.integration.test_demo import children_of

        children = children_of(proc.pid)
        assert children
        proc.send_signal(signal.SIGINT)
        assert proc.wait(15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    wait_until(lambda: not any(pid_alive(p) for p in children), timeout=10, what="tansu gone")
    assert not port_open("127.0.0.1", port)


def test_changelog_end_probe_reads_past_tansus_high_watermark(broker: Any) -> None:
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
    from faust.types import TP

    from agents.kafka.faust_fixes.recovery_fix import last_offsets

    topic = Namespace("hw").topic("changelog")

    async def main() -> tuple[int, dict[TP, int]]:
        producer = AIOKafkaProducer(bootstrap_servers=broker.bootstrap, linger_ms=50)
        await producer.start()
        try:
            for batch in (5, 3):  # two record batches: offsets 0-4 and 5-7
                sent = [await producer.send(topic, b"v", partition=0) for _ in range(batch)]
                await asyncio.gather(*sent)
        finally:
            await producer.stop()
        consumer = AIOKafkaConsumer(bootstrap_servers=broker.bootstrap)
        await consumer.start()
        try:
            tp = TopicPartition(topic, 0)
            reported = (await consumer.end_offsets([tp]))[tp]
        finally:
            await consumer.stop()
        found = await last_offsets(
            {"bootstrap_servers": broker.bootstrap}, {TP(topic, 0): reported - 1}
        )
        return reported, found

    reported, found = asyncio.run(main())
    assert found == {TP(topic, 0): 7}
    assert reported in (6, 8)  # tansu 0.6 answers 6 (last batch's base + 1); Kafka 8


def test_worker_outlives_a_broker_outage_quietly_and_still_stops(tmp_path: Path) -> None:
    from agents.kafka.broker import EmbeddedBroker
    from tests.integration.conftest import WorkerProcess

    own = EmbeddedBroker(log=tmp_path / "tansu.log")
    own.start()
    worker = WorkerProcess(own.bootstrap, Namespace("outage"), tmp_path, {}).start()
    try:
        worker.wait_assigned()
        before = len(worker.log_tail(10**7).splitlines())
        own.stop()

        def broker_down() -> bool:
            return worker.metrics().get(("ragmon_broker_up", frozenset())) == 0

        wait_until(broker_down, timeout=20, what="ragmon_broker_up 0")
        time.sleep(10)
        lines = worker.log_tail(10**7).splitlines()[before:]
        assert len(lines) < 30, "\n".join(lines)  # a few lines, not one per retry
        assert not any("Traceback" in line for line in lines)
        assert worker.stop(timeout=20) is not None  # stops (SIGTERM) without the broker
    finally:
        worker.stop()
        own.stop()
