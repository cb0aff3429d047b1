"""Known secret values never leave the process except toward the service they authenticate.

Two workers run with the same secrets (OPENAI_API_KEY, RAGMON_GRAFANA_TOKEN, RAGMON_SASL_PASSWORD)
at DEBUG log level, every answer sampled to the judge and audited, an alert rule that fires:

- worker A: the judge (local OpenAI-compatible server) answers, Grafana (contract server)
  accepts the token; its metrics endpoint binds to 127.0.0.2;
- worker B: the judge answers 401 and Grafana rejects the token (error paths); it binds to
  127.0.0.1.

Afterwards every log line, every record of every topic of both workers (scores, dlq, audit,
judge requests, verdicts, table changelogs), the audit log file, /metrics, /status, and the
bodies the judge and Grafana received are searched for each secret (and its base64 form).
Each metrics endpoint answers on its own address and refuses connections on the other.
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.judging.fake_server import JudgeHTTPServer
from tests.conftest import standard_mix
from tests.contract.grafana_contract_server import SPEC_PATH, ContractServer
from tests.integration.conftest import Namespace, WorkerProcess, produce, wait_until
from tests.integration.test_pipeline import MALFORMED, total

pytestmark = pytest.mark.integration

SECRETS = {
    "OPENAI_API_KEY": "sk-ragmontest-9f1c2b7e4d0a-OPENAI",
    "RAGMON_GRAFANA_TOKEN": "glsa_ragmonTest_5e8a1d3c6b_GRAFANA",
    "RAGMON_SASL_PASSWORD": "sasl-ragmontest-77b3e0c4f1-PASSWORD",
}
N_EVENTS = 40
RULES = """
rules:
  - name: validity_low
    figure: validity
    below: 0.95
    resolve_at: 0.97
    window: 1h
    min_events: 5
    for: 0s
    severity: critical
"""


def needles() -> dict[str, bytes]:
    """Each secret as it could appear: plain, and base64 (a Basic auth header, a JSON blob)."""
    out: dict[str, bytes] = {}
    for name, value in SECRETS.items():
        out[name] = value.encode()
        out[f"{name} (base64)"] = base64.b64encode(value.encode())
    return out


def leaks(where: str, blob: bytes) -> list[str]:
    return [f"{name} in {where}" for name, needle in needles().items() if needle in blob]


class BoundWorker(WorkerProcess):
    """A worker whose metrics endpoint binds to `host` (RAGMON_METRICS_HOST)."""

    def __init__(self, host: str, *args: Any) -> None:
        super().__init__(*args)
        self.host = host
        self.env["RAGMON_METRICS_HOST"] = host

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"


def _refused(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=2):
            return False
    except ConnectionRefusedError:
        return True


def _all_records(bootstrap: str, ns: Namespace) -> dict[str, list[bytes]]:
    """Every record of every topic this worker's namespace owns (prefix or app id)."""
    from aiokafka import AIOKafkaConsumer
    from aiokafka.admin import AIOKafkaAdminClient

    async def main() -> dict[str, list[bytes]]:
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        try:
            topics = [
                t
                for t in await admin.list_topics()
                if t.startswith(ns.prefix) or t.startswith(ns.app_id)
            ]
        finally:
            await admin.close()
        consumer = AIOKafkaConsumer(
            *topics,
            bootstrap_servers=bootstrap,
            auto_offset_reset="earliest",
            enable_auto_commit=False,
            max_partition_fetch_bytes=16 * 1024 * 1024,
        )
        await consumer.start()
        out: dict[str, list[bytes]] = {t: [] for t in topics}
        try:
            idle = 0
            while idle < 4:  # four empty 500 ms polls in a row: everything is read
                batch = await consumer.getmany(timeout_ms=500)
                idle = 0 if batch else idle + 1
                for tp, records in batch.items():
                    for r in records:
                        out[tp.topic].append((r.key or b"") + b"\n" + (r.value or b""))
        finally:
            await consumer.stop()
        return out

    return asyncio.run(main())


@pytest.fixture
def judge() -> Iterator[JudgeHTTPServer]:
    server = JudgeHTTPServer(slow_seconds=2.0).start()
    yield server
    server.stop()


@pytest.fixture
def grafanas() -> Iterator[tuple[ContractServer, ContractServer]]:
    if not SPEC_PATH.is_file():
        pytest.skip(f"Grafana API contract not found at {SPEC_PATH}")
    accepting = ContractServer(token=SECRETS["RAGMON_GRAFANA_TOKEN"])
    rejecting = ContractServer(token="some-other-token")
    yield accepting, rejecting
    accepting.close()
    rejecting.close()


def _notifications(worker: WorkerProcess, outcome: str) -> float:
    return total(worker.metrics(), "ragmon_alert_notifications_total", outcome=outcome)


def test_secrets_appear_in_no_output_and_metrics_bind_where_configured(
    broker: Any,
    judge: JudgeHTTPServer,
    grafanas: tuple[ContractServer, ContractServer],
    tmp_path: Path,
) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text(RULES, encoding="utf-8")
    common = {
        **SECRETS,
        "RAGMON_SASL_USERNAME": "ragmon",
        "OPENAI_BASE_URL": judge.url,
        "RAGMON_JUDGE_ENABLED": "true",
        "RAGMON_JUDGE_SAMPLE_RATE": "1.0",
        "RAGMON_JUDGE_OVERSAMPLE_RATE": "1.0",
        "RAGMON_JUDGE_CALLS_PER_MINUTE": "100000",
        "RAGMON_JUDGE_TOKENS_PER_HOUR": "100000000",
        "RAGMON_JUDGE_MAX_RETRIES": "1",
        "RAGMON_JUDGE_BACKOFF_SECONDS": "0.01",
        "RAGMON_RULES_FILE": str(rules),
        "RAGMON_AUDIT_SAMPLE_RATE": "1.0",
        "RAGMON_LOG_LEVEL": "DEBUG",
    }
    accepting, rejecting = grafanas
    ns_a, ns_b = Namespace("secrets-a"), Namespace("secrets-b")
    audit_log = tmp_path / "audit-a.jsonl"
    env_a = {
        **common,
        "RAGMON_JUDGE_MODEL": "ok",
        "RAGMON_ESCALATION_MODEL": "strong",
        "RAGMON_GRAFANA_URL": accepting.url,
        "RAGMON_AUDIT_LOG": str(audit_log),
    }
    env_b = {
        **common,
        "RAGMON_JUDGE_MODEL": "401",
        "RAGMON_ESCALATION_MODEL": "401",
        "RAGMON_GRAFANA_URL": rejecting.url,
        "RAGMON_AUDIT_LOG": str(tmp_path / "audit-b.jsonl"),
    }
    a = BoundWorker("127.0.0.2", broker.bootstrap, ns_a, tmp_path, env_a)
    b = BoundWorker("127.0.0.1", broker.bootstrap, ns_b, tmp_path, env_b)
    a.start()
    b.start()
    try:
        a.wait_assigned(timeout=90)
        b.wait_assigned(timeout=90)
        events = standard_mix(N_EVENTS + 40, seed=53)
        as_records = [(e["event_id"].encode(), json.dumps(e).encode()) for e in events]
        records: list[tuple[bytes | None, bytes]] = list(as_records[:N_EVENTS])
        records += [(None, value) for _, value in MALFORMED]
        for ns in (ns_a, ns_b):
            produce(broker.bootstrap, ns.topic("answers"), records)
        # Rules are evaluated when score records arrive (at most once a second per app): keep
        # a trickle going until both workers have talked to the judge and to Grafana.
        trickle = iter(as_records[N_EVENTS:])

        def judged(w: WorkerProcess, outcome: str) -> bool:
            return total(w.metrics(), "ragmon_judge_requests_total", outcome=outcome) > 0

        def done() -> bool:
            return (
                judged(a, "ok")
                and judged(b, "client_error")
                and _notifications(a, "sent") > 0
                and _notifications(b, "unauthorized") > 0
            )

        for record in trickle:
            if done():
                break
            for ns in (ns_a, ns_b):
                produce(broker.bootstrap, ns.topic("answers"), [record])
            time.sleep(1.1)
        assert done(), (a.log_tail(), b.log_tail())
        wait_until(
            lambda: all(total(w.metrics(), "ragmon_events_total") >= len(records) for w in (a, b)),
            60,
            what="all events processed",
        )
        # Each endpoint answers on its address only.
        assert _refused("127.0.0.1", a.port) and _refused("127.0.0.2", b.port)
        pages = {
            f"{w.host} {path}": w._get(path) for w in (a, b) for path in ("/metrics", "/status")
        }
    finally:
        a.stop()
        b.stop()

    found: list[str] = []
    for w in (a, b):
        found += leaks(f"log of worker {w.host}", w.log_path.read_bytes())
    for where, body in pages.items():
        found += leaks(where, body)
    assert audit_log.stat().st_size > 0
    for path in tmp_path.glob("audit-*.jsonl*"):
        found += leaks(path.name, path.read_bytes())
    searched: dict[str, int] = {}
    for ns in (ns_a, ns_b):
        for topic, values in _all_records(broker.bootstrap, ns).items():
            searched[topic] = len(values)
            found += leaks(f"topic {topic}", b"\n".join(values))
    for server in grafanas:
        for seen in server.seen:
            found += leaks(f"Grafana request body {seen.path}", json.dumps(seen.body).encode())
    for request in judge.state.requests:
        found += leaks("judge request body", json.dumps(request).encode())
    assert found == []
    # The search covered real traffic: audit, dead letters, judge verdicts, changelogs.
    for role in ("audit", "dlq", "verdicts", "judge-requests", "scores"):
        assert searched[ns_a.topic(role)] > 0, role
    assert searched[f"{ns_a.app_id}-ragmon-window-changelog"] > 0
    assert accepting.annotations and not rejecting.annotations
    # The secrets did reach the services they are for (so the search above means something).
    assert any(s.path.endswith("/annotations") for s in accepting.seen)
