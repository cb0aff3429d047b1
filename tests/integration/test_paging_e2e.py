"""One page per incident, over the wire: answers through the real broker into a worker with the
judge on, scraped by a real Prometheus loaded with the rules `ragmon grafana render` writes.

A healthy stream pages nothing; a hallucination incident pages once in the stream (the worker's
state machine), once in Prometheus (its rule on `ragmon_alert_bound_ratio`, keep_firing_for) and
once under the Grafana-managed rule's semantics (its PromQL query, threshold, recovery threshold
and keep_firing_for applied to what Prometheus answers for that query: no Grafana server runs
here, so Grafana's evaluator is stood in for by `grafana_pages`)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from agents.grafana.model import grafana_alert_rules
from agents.grafana.promql import prometheus_rules
from agents.judging.fake_server import JudgeHTTPServer
from agents.kafka.broker import EmbeddedBroker
from monitor.alerting.alerts import AlertRule, parse_rules
from tests.integration.conftest import Namespace, WorkerProcess, wait_until
from tests.integration.prometheus_server import PROMETHEUS, Prometheus
from tests.integration.test_alerts_e2e import APP, Traffic

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        PROMETHEUS is None, reason="prometheus not installed (Debian package `prometheus`)"
    ),
]

WINDOW = 30  # seconds: the worker's window and the rule's
KEEP = 10  # keep_firing_for
# The healthy traffic (drift 0) is ~3% hallucinated (1% bad citations, 2% fabricated claims);
# the incident (drift 1) well over a third. The threshold sits at twice the healthy rate.
RULES = f"""
rules:
  - name: hallucination_high
    figure: hallucination
    above: 0.06
    resolve_at: 0.05
    window: {WINDOW}s
    min_events: 20
    min_judged: 20
    false_pages_per_week: 0.5
    for: 0s
    keep_firing_for: {KEEP}s
    severity: critical
"""


def log_transitions(worker: WorkerProcess) -> list[str]:
    """firing | resolved, in order, of hallucination_high from the worker's JSON log."""
    out = []
    for line in worker.log_path.read_text(errors="replace").splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if row.get("rule") == "hallucination_high" and row.get("event") in (
            "alert firing",
            "alert resolved",
        ):
            out.append(str(row["event"]).split()[1])
    return out


def figures(worker: WorkerProcess) -> dict[str, float]:
    """The app's hallucination estimate, its bounds, the rule's bound, the judged claims."""
    out = {}
    for (name, labels), value in worker.metrics().items():
        if dict(labels).get("app") == APP and (
            name.startswith("ragmon_hallucination_ratio")
            or name in ("ragmon_alert_bound_ratio", "ragmon_window_judged_claims")
        ):
            out[name] = value
    return out


def range_values(prom: Prometheus, expr: str, start: float, end: float) -> dict[float, float]:
    """The expression's value per second (one app): {} where it has no series."""
    answer = prom.http.get(
        "/api/v1/query_range", params={"query": expr, "start": start, "end": end, "step": "1s"}
    ).json()
    assert answer["status"] == "success", answer
    values: dict[float, float] = {}
    for series in answer["data"]["result"]:
        for t, v in series["values"]:
            values[float(t)] = float(v)
    return values


def pages(firing: dict[float, float], start: float, end: float) -> int:
    """Rising edges of a 0/1 series sampled every second."""
    count, was = 0, False
    t = start
    while t <= end:
        now = firing.get(t, 0.0) > 0
        count += now and not was
        was = now
        t += 1
    return count


def grafana_pages(
    rule: AlertRule, body: dict[str, Any], prom: Prometheus, start: float, end: float
) -> int:
    """The Grafana-managed rule's outcome: its query A evaluated by Prometheus every second,
    the threshold (C's evaluator), the recovery threshold (unloadEvaluator) and keep_firing_for
    applied as Grafana's state machine does; `for` is 0 here."""
    [query] = [d for d in body["data"] if d["refId"] == "A"]
    [cond] = [d for d in body["data"] if d["refId"] == "C"]
    evaluator = cond["model"]["conditions"][0]
    trigger = float(evaluator["evaluator"]["params"][0])
    recover = float(evaluator["unloadEvaluator"]["params"][0])
    assert body["keep_firing_for"] == f"{KEEP}s" and body["for"] == "0s"
    values = range_values(prom, query["model"]["expr"], start, end)
    count, firing, quiet_since = 0, False, None
    t = start
    while t <= end:
        v = values.get(t)
        if not firing:
            if v is not None and v > trigger:
                firing, count, quiet_since = True, count + 1, None
        elif v is not None and v >= recover:  # not recovered: the quiet clock stops
            quiet_since = None
        else:
            quiet_since = t if quiet_since is None else quiet_since
            if t - quiet_since >= rule.keep_firing_for:
                firing = False
        t += 1
    return count


def test_an_incident_pages_once_everywhere_and_a_healthy_stream_never(
    broker: EmbeddedBroker, start_worker: Callable[..., WorkerProcess], tmp_path: Path
) -> None:
    rules_file = tmp_path / "rules.yaml"
    rules_file.write_text(RULES, encoding="utf-8")
    rules = parse_rules(RULES)
    prom_rules = tmp_path / "prometheus-rules.yml"
    prom_rules.write_text(yaml.safe_dump(prometheus_rules(rules)), encoding="utf-8")
    [grafana_body] = [
        b for b in grafana_alert_rules(rules) if b["title"] == "ragmon hallucination_high"
    ]

    ns = Namespace("paging")
    judge_server = JudgeHTTPServer().start()
    worker = start_worker(
        ns,
        RAGMON_RULES_FILE=str(rules_file),
        RAGMON_WINDOW_SECONDS=str(WINDOW),
        RAGMON_WINDOW_STEP_SECONDS="1",
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
    prom = Prometheus(tmp_path / "prometheus", [f"127.0.0.1:{worker.port}"], [prom_rules])
    traffic = Traffic(broker.bootstrap, ns.topic("answers"))
    traffic.drift = 0.0
    try:
        worker.wait_assigned(timeout=90)
        prom.wait_ready()
        traffic.thread.start()
        bound = f'ragmon_alert_bound_ratio{{rule="hallucination_high",app="{APP}"}}'
        prom.wait_for(bound, timeout=120)  # the window holds enough judged claims
        healthy_start = time.time()
        time.sleep(60)  # a healthy minute: three windows
        healthy_end = time.time()
        assert log_transitions(worker) == []

        traffic.drift = 1.0  # the incident
        incident_start = time.time()
        try:
            wait_until(lambda: log_transitions(worker), 120, what="the in-stream page")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; the worker's figures: {figures(worker)}") from None
        time.sleep(25)  # the incident goes on: no second page
        traffic.drift = 0.0
        wait_until(
            lambda: log_transitions(worker) == ["firing", "resolved"],
            120,
            what="the in-stream resolution",
        )
        time.sleep(5)  # Prometheus's keep_firing_for and its last evaluations
        end = time.time()
    finally:
        traffic.stop.set()
        traffic.thread.join(30)
        judge_server.stop()
    try:
        assert traffic.error is None
        assert log_transitions(worker) == [
            "firing",
            "resolved",
        ]  # in-stream: one page, one resolution

        alerts = f'ALERTS{{alertname="RagmonHallucinationHigh",alertstate="firing",app="{APP}"}}'
        s, e = float(int(healthy_start)), float(int(end))
        healthy = range_values(prom, alerts, s, float(int(healthy_end)))
        assert pages(healthy, s, float(int(healthy_end))) == 0
        run = range_values(prom, alerts, float(int(incident_start)), e)
        assert pages(run, float(int(incident_start)), e) == 1  # Prometheus: one page
        assert run.get(e, 0.0) == 0.0  # and resolved by the end

        rule = rules[0]
        assert grafana_pages(rule, grafana_body, prom, s, float(int(healthy_end))) == 0
        assert grafana_pages(rule, grafana_body, prom, float(int(incident_start)), e) == 1
    finally:
        prom.close()
