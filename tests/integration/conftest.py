"""Real servers for integration tests: one tansu broker per test session, worker processes.

Tests share the broker and isolate themselves by topic prefix and app id (`Namespace`), so no
test sees another's topics, consumer group or tables.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import pytest
from prometheus_client import CollectorRegistry

from agents.judging.fake_server import JudgeHTTPServer
from agents.kafka.broker import EmbeddedBroker, embedded_env, free_port
from agents.telemetry.metrics import Metrics, build_metrics

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")
_counter = itertools.count(1)


def wait_until(
    condition: Callable[[], T], timeout: float, interval: float = 0.25, what: str = "condition"
) -> T:
    """Poll until `condition()` is truthy (returned), at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except Exception as exc:  # a server still starting: try again
            last_error = exc
        if time.monotonic() >= deadline:
            raise AssertionError(
                f"timed out after {timeout:g} s waiting for {what}: {last_error!r}"
            )
        time.sleep(interval)


@pytest.fixture(scope="session")
def broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedBroker]:
    try:
        from agents.kafka.broker import find_broker_binary

        find_broker_binary()
    except Exception as exc:
        pytest.skip(f"no tansu broker binary: {exc}")
    log = tmp_path_factory.mktemp("broker") / "tansu.log"
    embedded = EmbeddedBroker(log=log)
    embedded.start()
    yield embedded
    embedded.stop()


class Namespace:
    """Topic prefix + app id unique to one test on the shared broker."""

    def __init__(self, name: str) -> None:
        n = next(_counter)
        self.prefix = f"t{n}-{name}."
        self.app_id = f"ragmon-t{n}-{name}"

    def topic(self, role: str) -> str:
        return self.prefix + role


class WorkerProcess:
    """`python -m agents.cli worker` in a subprocess, with its own metrics port."""

    popen_options: dict[str, Any] = {}  # noqa: RUF012  # read-only: subclasses replace it
    #: ports handed to workers of this session: two workers made back to back before either
    #: binds could otherwise get the same free port (seen once in CI: "address already in use")
    _ports: ClassVar[set[int]] = set()

    def __init__(self, bootstrap: str, ns: Namespace, workdir: Path, env: dict[str, str]) -> None:
        self.ns = ns
        self.port = free_port()
        for _ in range(100):  # bounded: a free port not handed out before is found at once
            if self.port not in WorkerProcess._ports:
                break
            self.port = free_port()
        WorkerProcess._ports.add(self.port)
        self.log_path = workdir / f"worker-{self.port}.log"
        self.env = {
            **os.environ,
            **embedded_env(bootstrap),
            "RAGMON_APP_ID": ns.app_id,
            "RAGMON_TOPIC_PREFIX": ns.prefix,
            "RAGMON_METRICS_PORT": str(self.port),
            "RAGMON_DATA_DIR": str(workdir / f"data-{self.port}"),
            "RAGMON_WINDOW_SECONDS": "3600",
            "RAGMON_WINDOW_STEP_SECONDS": "60",
            "RAGMON_LOG_FORMAT": "json",
            "PYTHONUNBUFFERED": "1",
            **env,
        }
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> WorkerProcess:
        from agents.kafka.broker import die_with_parent

        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "agents.cli", "worker", "--max-wait", "20"],
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=die_with_parent,
                **self.popen_options,
            )
        return self

    def _get(self, path: str) -> bytes:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise RuntimeError(f"worker exited with {self.proc.returncode}:\n{self.log_tail()}")
        with urllib.request.urlopen(self.base + path, timeout=5) as response:
            return bytes(response.read())

    def status(self) -> dict[str, Any]:
        return dict(json.loads(self._get("/status")))

    def answers_partitions(self) -> list[int]:
        return list(self.status()["assigned"].get(self.ns.topic("answers"), []))

    def wait_assigned(self, timeout: float = 60.0) -> list[int]:
        return wait_until(self.answers_partitions, timeout, what=f"worker {self.port} assignment")

    def metrics_text(self) -> str:
        """The /metrics page as served (parse it with `parse_metrics`)."""
        return self._get("/metrics").decode()

    def metrics(self) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
        """Sample name + labels → value, from the Prometheus text format."""
        return parse_metrics(self.metrics_text())

    def stop(self, timeout: float = 30.0) -> int | None:
        if self.proc is None or self.proc.poll() is not None:
            return None if self.proc is None else self.proc.returncode
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise AssertionError(f"worker did not stop on SIGTERM:\n{self.log_tail()}") from None

    def log_tail(self, chars: int = 4000) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""


@pytest.fixture
def start_worker(broker: EmbeddedBroker, tmp_path: Path) -> Iterator[Callable[..., WorkerProcess]]:
    """start_worker(ns, **env) → a started WorkerProcess; every one is stopped at teardown."""
    started: list[WorkerProcess] = []

    def start(ns: Namespace, **env: str) -> WorkerProcess:
        worker = WorkerProcess(broker.bootstrap, ns, tmp_path, env).start()
        started.append(worker)
        return worker

    yield start
    for worker in started:
        with contextlib.suppress(AssertionError):  # already reported by the test
            worker.stop()


def parse_metrics(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    from prometheus_client.parser import text_string_to_metric_families

    out: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, frozenset(s.labels.items()))] = s.value
    return out


def group_offsets(
    bootstrap: str, group: str, topic: str, partitions: list[int]
) -> dict[int, tuple[int | None, int]]:
    """partition → (the group's committed offset or None, the partition's end offset)."""
    from aiokafka import AIOKafkaConsumer, TopicPartition

    async def main() -> dict[int, tuple[int | None, int]]:
        consumer = AIOKafkaConsumer(
            bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False
        )
        await consumer.start()
        try:
            tps = [TopicPartition(topic, p) for p in partitions]
            ends = await consumer.end_offsets(tps)
            return {tp.partition: (await consumer.committed(tp), ends[tp]) for tp in tps}
        finally:
            await consumer.stop()

    return asyncio.run(main())


def produce(bootstrap: str, topic: str, records: list[tuple[bytes | None, bytes]]) -> list[Any]:
    """Publish (key, value) records in order; returns their RecordMetadata."""
    from aiokafka import AIOKafkaProducer

    async def main() -> list[Any]:
        producer = AIOKafkaProducer(
            bootstrap_servers=bootstrap, max_request_size=16 * 1024 * 1024, linger_ms=5
        )
        await producer.start()
        try:
            futures = [await producer.send(topic, value, key=key) for key, value in records]
            return list(await asyncio.gather(*futures))
        finally:
            await producer.stop()

    return asyncio.run(main())


def consume(bootstrap: str, topic: str, count: int, timeout: float = 30.0) -> list[Any]:
    """Read `count` records of `topic` from the beginning (no consumer group)."""
    from aiokafka import AIOKafkaConsumer

    async def main() -> list[Any]:
        consumer = AIOKafkaConsumer(
            topic,
            bootstrap_servers=bootstrap,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            max_partition_fetch_bytes=16 * 1024 * 1024,
        )
        await consumer.start()
        out: list[Any] = []
        deadline = time.monotonic() + timeout
        try:
            while len(out) < count and time.monotonic() < deadline:
                batch = await consumer.getmany(timeout_ms=500)
                for records in batch.values():
                    out.extend(records)
        finally:
            await consumer.stop()
        return out

    return asyncio.run(main())


def run_ragmon(ns: Namespace, bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`ragmon ARGS` as a user runs it, against `bootstrap` with the namespace's topics."""
    env = {**os.environ, "RAGMON_BOOTSTRAP_SERVERS": bootstrap, "RAGMON_TOPIC_PREFIX": ns.prefix}
    return subprocess.run(
        [sys.executable, "-m", "agents.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def judge_server() -> Iterator[JudgeHTTPServer]:
    """The scripted OpenAI-compatible judge server, one per test module (its request log and
    retry counts are per module); a slow reply takes 2 s, past the tests' client timeouts."""
    srv = JudgeHTTPServer(slow_seconds=2.0).start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture()
def metrics() -> Metrics:
    """Every ragmon metric on a fresh registry, so a test reads only its own counts."""
    return build_metrics(CollectorRegistry())
