"""Every rendering of every rule links to that rule's runbook section: the Prometheus rules,
the Grafana-managed rules (not_reporting included), the files checked in under deploy/, the
in-stream alert and the annotation it posts. And every rule so linked has its section."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agents.grafana.annotations import annotation_text
from agents.grafana.model import grafana_alert_rules, provisioning_doc
from agents.grafana.promql import prometheus_rules
from agents.grafana.render import GRAFANA_RULES_FILE, PROMETHEUS_RULES_FILE
from agents.stream.alerting import Alerting
from monitor.alerting.alerts import WindowFigures, load_rules
from monitor.oncall.links import DEFAULT_BASE
from monitor.oncall.runbook import problems, runbook_text

ROOT = Path(__file__).resolve().parents[3]
RULES = load_rules()
BASE = "https://ragmon.example"


def section(rule: str, base: str = DEFAULT_BASE) -> str:
    return f"{base}/evidence/runbook/{rule}"


def prometheus_alerts(doc: dict[str, Any]) -> list[dict[str, Any]]:
    [group] = [g for g in doc["groups"] if g["name"] == "ragmon-alerts"]
    return list(group["rules"])


def grafana_rules(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [rule for group in doc["groups"] for rule in group["rules"]]


def check(rules: list[dict[str, Any]], base: str = DEFAULT_BASE) -> set[str]:
    names = set()
    for rule in rules:
        name = rule["labels"]["ragmon_rule"]
        assert rule["annotations"]["runbook_url"] == section(name, base), name
        names.add(name)
    assert problems(sorted(names), runbook_text()) == []
    return names


def test_prometheus_rules_link_each_rule_to_its_section() -> None:
    names = check(prometheus_alerts(prometheus_rules(RULES, links_base=BASE)), BASE)
    assert names == {r.name for r in RULES} | {"not_reporting", "worker_down"}
    hosted = prometheus_alerts(prometheus_rules(RULES, runbook="https://wiki/runbook"))
    assert {r["annotations"]["runbook_url"] for r in hosted} == {
        f"https://wiki/runbook#{r['labels']['ragmon_rule']}" for r in hosted
    }


def test_grafana_managed_rules_link_each_rule_not_reporting_included() -> None:
    names = check(grafana_alert_rules(RULES, links_base=BASE), BASE)
    assert "not_reporting" in names and names >= {r.name for r in RULES}
    check(grafana_rules(provisioning_doc(RULES, links_base=BASE)), BASE)


def test_the_checked_in_rule_files_carry_the_links() -> None:
    prom = yaml.safe_load((ROOT / PROMETHEUS_RULES_FILE).read_text(encoding="utf-8"))
    assert check(prometheus_alerts(prom)) >= {"not_reporting", "worker_down"}
    graf = yaml.safe_load((ROOT / GRAFANA_RULES_FILE).read_text(encoding="utf-8"))
    assert "not_reporting" in check(grafana_rules(graf))


def test_the_in_stream_alert_and_its_annotation_link_the_section() -> None:
    rule = next(r for r in RULES if r.name == "validity_low")
    alerting = Alerting((rule,), links_base=BASE)
    figures = {"validity": 0.5}
    for at in range(0, int(rule.for_seconds) + 2, max(1, int(rule.for_seconds) // 2)):
        fired = alerting.observe(WindowFigures("shop", float(at), 1000, figures))
    [transition] = fired
    assert transition.runbook_url == section("validity_low", BASE)
    assert f'<a href="{section("validity_low", BASE)}">runbook</a>' in annotation_text(transition)
