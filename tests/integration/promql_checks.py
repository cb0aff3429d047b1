"""Checks shared by the Prometheus tests: every shipped PromQL expression against a live server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from agents.grafana.dashboard import dashboard_exprs
from agents.grafana.model import grafana_alert_rules
from monitor.alerting.alerts import load_rules
from tests.integration.prometheus_server import Prometheus

ROOT = Path(__file__).resolve().parents[2]
RULES_FILE = ROOT / "deploy/prometheus/rules.yml"
GRAFANA_RULES_FILE = ROOT / "deploy/grafana/provisioning/alerting/ragmon-rules.yaml"


def concrete(expr: str) -> str:
    """Grafana's variables as Grafana would expand them for a 1 s scrape interval."""
    expr = re.sub(r"label_values\((\w+),\s*(\w+)\)", r"group by (\2) (\1)", expr)
    return expr.replace("$__rate_interval", "1m").replace("$app", ".*").replace("${datasource}", "")


def empty_results(
    prom: Prometheus, exprs: list[tuple[str, str]], may_be_empty: tuple[str, ...]
) -> list[str]:
    """Asserts every expression parses; returns those without data that should have some."""
    empty = []
    for title, expr in exprs:
        answer = prom.query(concrete(expr))
        assert answer["status"] == "success", f"{title}: {expr}: {answer.get('error')}"
        if not answer["data"]["result"] and not any(m in expr for m in may_be_empty):
            empty.append(f"{title}: {expr}")
    return empty


def dashboard_queries() -> list[tuple[str, str]]:
    return dashboard_exprs(json.loads((ROOT / "dashboards/ragmon.json").read_text()))


def shipped_prometheus_rules() -> list[dict[str, Any]]:
    return [r for g in yaml.safe_load(RULES_FILE.read_text())["groups"] for r in g["rules"]]


def grafana_rule_queries() -> list[tuple[str, str]]:
    """The PromQL of the provisioned Grafana rules (asserted equal to what `sync` sends)."""
    provisioned = yaml.safe_load(GRAFANA_RULES_FILE.read_text())["groups"][0]["rules"]
    from_file = [
        (r["title"], q["model"]["expr"])
        for r in provisioned
        for q in r["data"]
        if "expr" in q["model"]
    ]
    via_api = [
        (r["title"], q["model"]["expr"])
        for r in grafana_alert_rules(load_rules())
        for q in r["data"]
        if "expr" in q["model"]
    ]
    assert from_file == via_api
    return via_api


def check_rules_loaded_and_healthy(prom: Prometheus) -> None:
    shipped = shipped_prometheus_rules()
    prom.wait_for("count(app:ragmon_validity:ratio5m) >= 1")  # a recording round has run
    loaded = [
        r for g in prom.http.get("/api/v1/rules").json()["data"]["groups"] for r in g["rules"]
    ]
    assert len(loaded) == len(shipped)
    assert [
        (r["name"], r["health"], r.get("lastError", "")) for r in loaded if r["health"] != "ok"
    ] == []
    for rule in shipped:
        answer = prom.query(rule["expr"])
        assert answer["status"] == "success", (
            f"{rule.get('alert') or rule['record']}: {answer.get('error')}"
        )
