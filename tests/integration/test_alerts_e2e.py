"""End to end: synthetic traffic through a real broker and worker; the drift phase fires the
validity alert into Grafana (contract stand-in) and the healthy phase resolves it, once each."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agents.demo.traffic import make_answer
from agents.kafka.broker import EmbeddedBroker
from tests.contract.grafana_contract_server import SPEC_PATH, ContractServer
from tests.integration.conftest import Namespace, WorkerProcess, wait_until

pytestmark = pytest.mark.integration

APP = "support-bot"
RULES = """
rules:
  - name: validity_low
    figure: validity
    below: 0.95
    resolve_at: 0.97
    window: 6s
    min_events: 20
    for: 2s
    severity: critical
"""


class Traffic:
    """Publishes answers of one app in small batches from a thread; `drift` switches phases."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self.bootstrap, self.topic = bootstrap, topic
        self.drift = 1.0
        self.sent = 0
        self.stop = threading.Event()
        self.rng = random.Random(7)
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._produce())
        except BaseException as exc:  # surfaced by the test
            self.error = exc

    async def _produce(self) -> None:
        from aiokafka import AIOKafkaProducer

        producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, linger_ms=5)
        await producer.start()
        try:
            while not self.stop.is_set():
                for _ in range(10):
                    self.sent += 1
                    event = make_answer(self.rng, f"e2e-{self.sent:06d}", self.drift, app=APP)
                    await producer.send(self.topic, json.dumps(event).encode(), key=APP.encode())
                await producer.flush()
                await asyncio.sleep(0.2)  # ~50 answers/s
        finally:
            await producer.stop()


@pytest.fixture
def grafana() -> Iterator[ContractServer]:
    if not SPEC_PATH.is_file():
        pytest.skip(f"Grafana API contract not found at {SPEC_PATH}")
    server = ContractServer(token="e2e-token")
    yield server
    server.close()


def _firing(worker: WorkerProcess) -> float | None:
    key = ("ragmon_alert_firing", frozenset({("rule", "validity_low"), ("app", APP)}))
    return worker.metrics().get(key)


def test_drift_fires_once_and_recovery_resolves_once(
    broker: EmbeddedBroker,
    start_worker: Callable[..., WorkerProcess],
    grafana: ContractServer,
    tmp_path: Path,
) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULES, encoding="utf-8")
    ns = Namespace("alerts")
    worker = start_worker(
        ns,
        RAGMON_RULES_FILE=str(rules),
        RAGMON_GRAFANA_URL=grafana.url,
        RAGMON_GRAFANA_TOKEN="e2e-token",
        RAGMON_WINDOW_SECONDS="6",
        RAGMON_WINDOW_STEP_SECONDS="1",
    )
    traffic = Traffic(broker.bootstrap, ns.topic("answers"))
    traffic.thread.start()
    try:
        worker.wait_assigned(timeout=90)
        # drift: ~26% of citations out of range → validity ≈ 0.75 < 0.95 for 2 s → firing
        wait_until(lambda: grafana.annotations, 120, what="the firing annotation")
        wait_until(lambda: _firing(worker) == 1.0, 30, what="alert_firing == 1")
        [fired] = grafana.annotations.values()
        assert "ragmon" in fired["tags"] and "validity_low" in fired["tags"]
        assert f"app:{APP}" in fired["tags"] and "severity:critical" in fired["tags"]
        assert "FIRING" in fired["text"] and "(moved the rate most first): e2e-" in fired["text"]
        assert "/evidence?app=support-bot&amp;rule=validity_low&amp;from=" in fired["text"]

        # healthy: 1% bad citations; once the 6 s window holds only healthy answers → resolved
        traffic.drift = 0.0
        wait_until(lambda: fired["timeEnd"] > fired["time"], 120, what="the resolving patch")
        wait_until(lambda: _firing(worker) == 0.0, 30, what="alert_firing == 0")
        sent_at_resolve = traffic.sent
        wait_until(lambda: traffic.sent > sent_at_resolve + 150, 60, what="more healthy traffic")
    finally:
        traffic.stop.set()
        traffic.thread.join(30)
    assert traffic.error is None
    assert len(grafana.annotations) == 1
    writes = [(s.method, s.path.rsplit("/", 1)[0]) for s in grafana.writes()]
    assert writes == [("POST", "/api"), ("PATCH", "/api/annotations")]
    assert "RESOLVED" in fired["text"]
    assert grafana.violations == []
    notifications = {
        dict(labels)["outcome"]: value
        for (name, labels), value in worker.metrics().items()
        if name == "ragmon_alert_notifications_total"
    }
    assert notifications == {"sent": 2.0}
