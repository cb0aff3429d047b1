"""Grafana-managed alert rules for ragmon's thresholds, in API shape and provisioning-file shape.

Each rule is the classic three-step Grafana query: A = PromQL figure (only where the window
holds enough events), B = reduce to the last value, C = threshold with a recovery threshold
(Grafana's `unloadEvaluator`), which is the same hysteresis the in-stream rules apply. A rule on
an estimated figure (support, hallucination) also reads the estimate, both bounds and the judged
claims (queries P, L, U, J reduced to PR, LR, UR, JR) so that its text can say them.
"""

from __future__ import annotations

from typing import Any

from agents.grafana.dashboard import DASHBOARD_UID, figure_panel_id
from agents.grafana.promql import (
    CALIBRATED,
    JOB,
    alert_name,
    figure_query,
    figure_span,
    grafana_expr,
    not_reporting_expr,
    rule_bound,
    rule_query,
)
from monitor.alerting.alerts import ESTIMATED, AlertRule, format_duration
from monitor.oncall.links import DEFAULT_BASE, runbook_url, since_for, template_url

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


def _prom(ref: str, expr: str, window_seconds: float, datasource_uid: str) -> dict[str, Any]:
    return {
        "refId": ref,
        "datasourceUid": datasource_uid,
        "queryType": "",
        "relativeTimeRange": {"from": int(max(window_seconds, 60) * 2), "to": 0},
        "model": {
            "refId": ref,
            "datasource": {"type": "prometheus", "uid": datasource_uid},
            "expr": expr,
            "instant": True,
            "range": False,
            "intervalMs": 1000,
            "maxDataPoints": 43200,
        },
    }


def _reduce(ref: str, of: str) -> dict[str, Any]:
    return {
        "refId": ref,
        "datasourceUid": "__expr__",
        "queryType": "",
        "relativeTimeRange": {"from": 0, "to": 0},
        "model": {
            "refId": ref,
            "datasource": _EXPR_DS,
            "type": "reduce",
            "expression": of,
            "reducer": "last",
            "settings": {"mode": "dropNN"},
        },
    }


def _estimate_queries(rule: AlertRule, datasource_uid: str) -> list[dict[str, Any]]:
    """The estimate, its bounds and the judged claims, for the rule's text."""
    window = format_duration(rule.window_seconds)
    out = []
    for ref, bound in (("P", "point"), ("L", "lower"), ("U", "upper")):
        expr = figure_query(rule.figure, window, rule.apps, bound=bound).value
        out += [_prom(ref, expr, rule.window_seconds, datasource_uid), _reduce(ref + "R", ref)]
    judged = "max by (app) (ragmon_window_judged_claims)"
    out += [_prom("J", judged, rule.window_seconds, datasource_uid), _reduce("JR", "J")]
    return out


def _evaluators(rule: AlertRule) -> tuple[dict[str, Any], dict[str, Any] | None]:
    trigger = {"type": "lt" if rule.op == "below" else "gt", "params": [rule.threshold]}
    if rule.resolve_threshold == rule.threshold:
        return trigger, None
    recover = {"type": "gt" if rule.op == "below" else "lt", "params": [rule.resolve_threshold]}
    return trigger, recover


def alert_rule_body(
    rule: AlertRule, links_base: str = DEFAULT_BASE, runbook: str = ""
) -> dict[str, Any]:
    """Fields common to the API and the provisioning file (no org/folder/group)."""
    annotations = {
        "summary": rule.summary or rule.name,
        "description": _grafana_description(rule),
        "runbook_url": runbook_url(runbook, links_base, rule.name),
        # the notification links to the dashboard panel the rule reads
        "__dashboardUid__": DASHBOARD_UID,
    }
    panel = figure_panel_id(rule.figure)
    if panel is not None:
        annotations["__panelId__"] = str(panel)
    if rule_query(rule).per_app:
        since = since_for(rule.window_seconds, rule.for_seconds)
        annotations["evidence_url"] = template_url(links_base, rule.name, since)
    return {
        "uid": rule_uid(rule.name),
        "title": f"ragmon {rule.name}",
        "condition": "C",
        # no traffic is not a quality problem (not_reporting covers silence): OK resolves, as
        # the in-stream rule does; a rule with `no_data: hold` says "no data" instead
        "noDataState": "OK" if rule.no_data == "resolve" else "NoData",
        "execErrState": "Error",
        "for": format_duration(rule.for_seconds),
        # the quiet period before resolving, as in the stream (ProvisionedAlertRule)
        "keep_firing_for": format_duration(rule.keep_firing_for),
        "labels": {"severity": rule.severity, "ragmon_rule": rule.name},
        "annotations": annotations,
        "isPaused": False,
    }


def _counted(rule: AlertRule) -> str:
    """What a rule's min_events counts."""
    if rule.figure == "judge_error_rate":
        return "judge calls"
    return "human labels" if rule.figure in CALIBRATED else "events"


def _grafana_description(rule: AlertRule) -> str:
    if rule.figure not in ESTIMATED:
        return (
            f"{rule.figure} {rule.op} {rule.threshold:g} over "
            f"{figure_span(rule)} with at least {rule.min_events} {_counted(rule)}; "
            f"resolves at {rule.resolve_threshold:g}. Prometheus alert: {alert_name(rule)}."
        )
    pct = "{{ humanizePercentage $values.%s.Value }}"
    quiet = (
        f" and stays there {format_duration(rule.keep_firing_for)}"
        if rule.keep_firing_for > 0
        else ""
    )
    return (
        f"{rule.figure} {rule_bound(rule)} bound of the {rule.level * 100:.6g}% interval {rule.op} "
        f"{rule.threshold:g} (resolves at {rule.resolve_threshold:g}{quiet}) with at least "
        f"{rule.min_judged} judged claims and {rule.min_events} events: estimate {pct % 'PR'}, "
        f"interval {pct % 'LR'} to {pct % 'UR'}, {{{{ $values.JR.Value }}}} judged claims. "
        f"Prometheus alert: {alert_name(rule)}."
    )


def _rule_with_data(
    rule: AlertRule, datasource_uid: str, links_base: str = DEFAULT_BASE, runbook: str = ""
) -> dict[str, Any]:
    trigger, recover = _evaluators(rule)
    body = alert_rule_body(rule, links_base, runbook)
    body["data"] = _queries(
        grafana_expr(rule), rule.window_seconds, datasource_uid, trigger, recover
    )
    if rule.figure in ESTIMATED:  # before the condition, which stays last
        data = body["data"]
        body["data"] = data[:-1] + _estimate_queries(rule, datasource_uid) + data[-1:]
    return body


def not_reporting_body(
    datasource_uid: str, job: str = JOB, links_base: str = DEFAULT_BASE, runbook: str = ""
) -> dict[str, Any]:
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
            "runbook_url": runbook_url(runbook, links_base, "not_reporting"),
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
    links_base: str = DEFAULT_BASE,
    runbook: str = "",
) -> list[dict[str, Any]]:
    """ProvisionedAlertRule bodies for POST/PUT /api/v1/provisioning/alert-rules."""
    bodies = [_rule_with_data(rule, datasource_uid, links_base, runbook) for rule in rules]
    bodies.append(not_reporting_body(datasource_uid, job, links_base, runbook))
    return [{**b, "orgID": org_id, "folderUID": folder_uid, "ruleGroup": group} for b in bodies]


def provisioning_doc(
    rules: tuple[AlertRule, ...],
    *,
    folder_title: str = "ragmon",
    datasource_uid: str = DATASOURCE_UID,
    org_id: int = 1,
    job: str = JOB,
    links_base: str = DEFAULT_BASE,
    runbook: str = "",
) -> dict[str, Any]:
    """deploy/grafana/provisioning/alerting/ragmon-rules.yaml (Grafana file provisioning)."""
    bodies = [_rule_with_data(rule, datasource_uid, links_base, runbook) for rule in rules]
    bodies.append(not_reporting_body(datasource_uid, job, links_base, runbook))
    # file provisioning spells the API's keep_firing_for in camel case, like noDataState
    bodies = [
        {("keepFiringFor" if k == "keep_firing_for" else k): v for k, v in b.items()}
        for b in bodies
    ]
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
