"""A real Prometheus scraping a real worker fed through the real broker: every shipped PromQL
expression parses, and those that should have data return series."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agents.judging.fake_server import JudgeHTTPServer
from agents.kafka.broker import EmbeddedBroker
from monitor.alerting.alerts import load_rules
from tests.conftest import standard_mix
from tests.integration.conftest import Namespace, WorkerProcess, produce, wait_until
from tests.integration.prometheus_server import PROMETHEUS, Prometheus
from tests.integration.promql_checks import (
    RULES_FILE,
    check_rules_loaded_and_healthy,
    dashboard_queries,
    empty_results,
    grafana_rule_queries,
)

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        PROMETHEUS is None, reason="prometheus not installed (Debian package `prometheus`)"
    ),
]

ROUNDS = 4
# The worker judges half of the answers with the local word-overlap judge (the support and
# hallucination estimates need it); judge families that only failures fill may stay empty;
# Prometheus's alerts need `for: 2m`; no in-stream alert fires under the default `for: 2m` either;
# the human-scale figures exist only once human labels calibrate the judge (none here).
MAY_BE_EMPTY = (
    "ALERTS{",
    "ragmon_alert_notifications_total",
    "ragmon_judge_",
    "_human_ratio",
)
#: the Grafana-managed rule that reads only human-label calibration (judge_drift): no labels here
CALIBRATED_ONLY = ("ragmon_calibration_labels",)


def _processed(worker: WorkerProcess) -> int:
    return sum(worker.status()["processed"].values())


def test_worker_metrics_answer_every_shipped_query(
    broker: EmbeddedBroker, start_worker: Callable[..., WorkerProcess], tmp_path: Path
) -> None:
    ns = Namespace("prom")
    judge_server = JudgeHTTPServer().start()
    worker = start_worker(
        ns,
        RAGMON_JUDGE_ENABLED="true",
        OPENAI_BASE_URL=judge_server.url,
        OPENAI_API_KEY="test-key",
        RAGMON_JUDGE_MODEL="ok",
        RAGMON_ESCALATION_MODEL="",
        RAGMON_JUDGE_SAMPLE_RATE="0.5",
        RAGMON_JUDGE_CALLS_PER_MINUTE="0",
        RAGMON_JUDGE_TOKENS_PER_HOUR="0",
        RAGMON_JUDGE_QUEUE_SIZE="10000",
    )
    worker.wait_assigned(timeout=90)
    prom = Prometheus(tmp_path / "prometheus", [f"127.0.0.1:{worker.port}"], [RULES_FILE])
    try:
        prom.wait_ready()
        prom.wait_for('up{job="ragmon"} == 1')
        events = standard_mix(300, seed=9)
        records = [(e["app"].encode(), json.dumps(e).encode()) for e in events]
        chunk = len(records) // ROUNDS + 1
        for r in range(ROUNDS):  # between scrapes, so Prometheus sees the counters move
            batch = [*records[r * chunk : (r + 1) * chunk], (None, b"{not json")]
            produce(broker.bootstrap, ns.topic("answers"), batch)
            expected = min(len(records), (r + 1) * chunk) + r + 1
            wait_until(lambda n=expected: _processed(worker) >= n, 120, what=f"round {r} checked")
            prom.wait_for(f'timestamp(up{{job="ragmon"}}) > {time.time():.3f}')

        assert empty_results(prom, dashboard_queries(), MAY_BE_EMPTY) == []
        check_rules_loaded_and_healthy(prom)
        judge = {f"ragmon {r.name}" for r in load_rules() if r.figure == "judge_error_rate"}
        grafana = [(t, e) for t, e in grafana_rule_queries() if t not in judge]
        assert empty_results(prom, grafana, CALIBRATED_ONLY) == []
        apps = {s["metric"]["app"] for s in prom.series("sum by (app) (ragmon_events_total)")}
        assert {"support-bot", "search", "docs-qa"} <= apps
    finally:
        prom.close()
        judge_server.stop()
