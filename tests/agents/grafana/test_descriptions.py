"""An alert's text says what its figure is computed over: the rule's window for the window
figures, the calibration horizon's human labels for judge_agreement (never "over 5m")."""

from __future__ import annotations

from typing import Any

from agents.grafana.model import grafana_alert_rules
from agents.grafana.promql import prometheus_rules
from monitor.alerting.alerts import load_rules
from monitor.oncall.links import DEFAULT_BASE

RULES = load_rules()


def _prometheus() -> dict[str, dict[str, Any]]:
    doc = prometheus_rules(RULES, links_base=DEFAULT_BASE)
    [group] = [g for g in doc["groups"] if g["name"] == "ragmon-alerts"]
    return {r["labels"]["ragmon_rule"]: r for r in group["rules"]}


def test_judge_drift_names_the_calibration_horizon_not_a_window() -> None:
    [rule] = [r for r in RULES if r.name == "judge_drift"]
    text = _prometheus()["judge_drift"]["annotations"]["description"]
    assert "calibration horizon" in text and "RAGMON_CALIBRATION_HORIZON_SECONDS" in text
    assert f"over {rule.window_seconds // 60:g}m" not in text
    grafana = {
        r["labels"]["ragmon_rule"]: r["annotations"]["description"]
        for r in grafana_alert_rules(RULES)
        if "ragmon_rule" in r.get("labels", {})
    }
    assert "calibration horizon" in grafana["judge_drift"]
    assert f"at least {rule.min_events} human labels" in grafana["judge_drift"]


def test_a_window_figure_still_names_its_window() -> None:
    [rule] = [r for r in RULES if r.name == "dlq_high"]
    text = _prometheus()["dlq_high"]["annotations"]["description"]
    assert "over 5m" in text and rule.window_seconds == 300
    assert "calibration" not in text
