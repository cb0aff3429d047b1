"""Grafana-managed alert rules for ragmon's thresholds, in API shape and provisioning-file shape.

Each rule is the classic three-step Grafana query: A = PromQL figure (only where the window
holds enough events), B = reduce to the last value, C = threshold with a recovery threshold
(Grafana's `unloadEvaluator`), which is the same hysteresis the in-stream rules apply.
"""

from __future__ import annotations

from typing import Any

from agents.grafana.promql import JOB, alert_name, grafana_expr, not_reporting_expr
from monitor.alerts import AlertRule, format_duration

DATASOURCE_UID = "ragmon-prometheus"
RULE_GROUP = "ragmon"
FOLDER_UID = "ragmon"
EVAL_INTERVAL_SECONDS = 60
_EXPR_DS = {"type": "__expr__", "uid": "__expr__"}


def rule_uid(name: str) -> str:
    """Stable uid, so `grafana sync` updates the rule it created instead of adding another."""
    return f"ragmon-{name.replace('_', '-')}"[:40]


def _queries(
    expr: str,
    window_seconds: float,
    datasource_uid: str,
    evaluator: dict[str, Any],
    unload: dict[str, Any] | None,
) -> list[dict[str, Any]]:
    condition: dict[str, Any] = {"evaluator": evaluator}
    if unload is not None:
        condition["unloadEvaluator"] = unload
    return [
        {
            "refId": "A",
            "datasourceUid": datasource_uid,
            "queryType": "",
            "relativeTimeRange": {"from": int(max(window_seconds, 60) * 2), "to": 0},
            "model": {
                "refId": "A",
                "datasource": {"type": "prometheus", "uid": datasource_uid},
                "expr": expr,
                "instant": True,
                "range": False,
                "intervalMs": 1000,
                "maxDataPoints": 43200,
            },
        },
        {
            "refId": "B",
            "datasourceUid": "__expr__",
            "queryType": "",
            "relativeTimeRange": {"from": 0, "to": 0},
            "model": {
                "refId": "B",
                "datasource": _EXPR_DS,
                "type": "reduce",
                "expression": "A",
                "reducer": "last",
                "settings": {"mode": "dropNN"},
            },
        },
        {
            "refId": "C",
            "datasourceUid": "__expr__",
            "queryType": "",
            "relativeTimeRange": {"from": 0, "to": 0},
            "model": {
                "refId": "C",
                "datasource": _EXPR_DS,
                "type": "threshold",
                "expression": "B",
                "conditions": [condition],
            },
        },
    ]


def _evaluators(rule: AlertRule) -> tuple[dict[str, Any], dict[str, Any] | None]:
    trigger = {"type": "lt" if rule.op == "below" else "gt", "params": [rule.threshold]}
    if rule.resolve_threshold == rule.threshold:
        return trigger, None
    recover = {"type": "gt" if rule.op == "below" else "lt", "params": [rule.resolve_threshold]}
    return trigger, recover


def alert_rule_body(rule: AlertRule) -> dict[str, Any]:
    """Fields common to the API and the provisioning file (no org/folder/group)."""
    return {
        "uid": rule_uid(rule.name),
        "title": f"ragmon {rule.name}",
        "condition": "C",
        "noDataState": "OK",  # no traffic is not a quality problem; not_reporting covers silence
        "execErrState": "Error",
        "for": format_duration(rule.for_seconds),
        "labels": {"severity": rule.severity, "ragmon_rule": rule.name},
        "annotations": {
            "summary": rule.summary or rule.name,
            "description": (
                f"{rule.figure} {rule.op} {rule.threshold:g} over "
                f"{format_duration(rule.window_seconds)} with at least {rule.min_events} "
                f"{'judge calls' if rule.figure == 'judge_error_rate' else 'events'}; "
                f"resolves at {rule.resolve_threshold:g}. Prometheus alert: {alert_name(rule)}."
            ),
        },
        "isPaused": False,
    }


def _rule_with_data(rule: AlertRule, datasource_uid: str) -> dict[str, Any]:
    trigger, recover = _evaluators(rule)
    body = alert_rule_body(rule)
    body["data"] = _queries(
        grafana_expr(rule), rule.window_seconds, datasource_uid, trigger, recover
    )
    return body


def not_reporting_body(datasource_uid: str, job: str = JOB) -> dict[str, Any]:
    return {
        "uid": rule_uid("not_reporting"),
        "title": "ragmon not_reporting",
        "condition": "C",
        "data": _queries(
            not_reporting_expr(job), 300, datasource_uid, {"type": "lt", "params": [1]}, None
        ),
        "noDataState": "Alerting",  # no `up` series at all is exactly what this rule is for
        "execErrState": "Alerting",
        "for": "5m",
        "labels": {"severity": "critical", "ragmon_rule": "not_reporting"},
        "annotations": {
            "summary": "No ragmon worker is being scraped successfully",
            "description": f'sum(up{{job="{job}"}}) is below 1 or absent.',
        },
        "isPaused": False,
    }


def grafana_alert_rules(
    rules: tuple[AlertRule, ...],
    *,
    folder_uid: str = FOLDER_UID,
    datasource_uid: str = DATASOURCE_UID,
    org_id: int = 1,
    group: str = RULE_GROUP,
    job: str = JOB,
) -> list[dict[str, Any]]:
    """ProvisionedAlertRule bodies for POST/PUT /api/v1/provisioning/alert-rules."""
    bodies = [_rule_with_data(rule, datasource_uid) for rule in rules]
    bodies.append(not_reporting_body(datasource_uid, job))
    return [{**b, "orgID": org_id, "folderUID": folder_uid, "ruleGroup": group} for b in bodies]


def provisioning_doc(
    rules: tuple[AlertRule, ...],
    *,
    folder_title: str = "ragmon",
    datasource_uid: str = DATASOURCE_UID,
    org_id: int = 1,
    job: str = JOB,
) -> dict[str, Any]:
    """deploy/grafana/provisioning/alerting/ragmon-rules.yaml (Grafana file provisioning)."""
    bodies = [_rule_with_data(rule, datasource_uid) for rule in rules]
    bodies.append(not_reporting_body(datasource_uid, job))
    return {
        "apiVersion": 1,
        "groups": [
            {
                "orgId": org_id,
                "name": RULE_GROUP,
                "folder": folder_title,
                "interval": format_duration(EVAL_INTERVAL_SECONDS),
                "rules": bodies,
            }
        ],
    }
