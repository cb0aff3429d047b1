"""The ragmon Grafana dashboard, built in code and rendered to dashboards/ragmon.json.

Every query is over ragmon's own metrics with `$app` and `$__rate_interval`, so the dashboard
works on any Prometheus that scrapes the workers (no recording rules required). The alert
thresholds are drawn from the same rules the alerts use. The quality row is
agents/grafana/quality_panels.py; the shared PromQL fragments are agents/grafana/queries.py.
"""

from __future__ import annotations

from typing import Any

from agents.grafana.layout import DATASOURCE, Layout
from agents.grafana.quality_panels import RULE_PANELS, quality_row
from agents.grafana.queries import APP_MATCH as _APP
from agents.grafana.queries import RATE_INTERVAL as _RI
from agents.grafana.queries import percentiles as _percentiles
from agents.grafana.queries import rate_sum as _rate
from monitor.alerting.alerts import AlertRule
from monitor.oncall.links import DEFAULT_BASE

DASHBOARD_UID = "ragmon-overview"
SCHEMA_VERSION = 41  # Grafana 12


def figure_panel_id(figure: str) -> int | None:
    """The id of the panel a figure's alert rule links to (`__panelId__`)."""
    title = RULE_PANELS.get(figure)
    for panel in build_dashboard(()).get("panels", []):
        if panel.get("title") == title:
            return int(panel["id"])
    return None


def build_dashboard(
    rules: tuple[AlertRule, ...], links_base: str | None = DEFAULT_BASE
) -> dict[str, Any]:
    lay = Layout()
    quality_row(lay, rules, links_base)

    lay.row("Traffic")
    lay.panel(
        "Events by outcome",
        [(_rate("ragmon_events_total", "app, outcome", _APP), "{{app}} {{outcome}}")],
        unit="reqps",
    )
    lay.panel("Events in the rolling window", [(f"ragmon_window_events{{{_APP}}}", "{{app}}")])
    lay.panel(
        "Citations by format and status",
        [(_rate("ragmon_citations_total", "format, status", _APP), "{{format}} {{status}}")],
        unit="reqps",
    )
    lay.panel(
        "Citation errors by code",
        [(_rate("ragmon_citation_errors_total", "error", _APP), "{{error}}")],
        unit="reqps",
    )
    lay.panel(
        "Claims by verdict and tier",
        [(_rate("ragmon_claims_total", "verdict, tier", _APP), "{{verdict}} ({{tier}})")],
        unit="reqps",
    )
    dlq = f"sum(rate(ragmon_dlq_total[{_RI}])) / sum(rate(ragmon_events_total[{_RI}]))"
    lay.panel(
        "Dead-letter queue",
        [(_rate("ragmon_dlq_total", "reason"), "{{reason}} /s"), (dlq, "share of events")],
        unit="reqps",
    )

    lay.row("LLM judge")
    lay.panel(
        "Judge calls by outcome",
        [(_rate("ragmon_judge_requests_total", "model, outcome"), "{{model}} {{outcome}}")],
        unit="reqps",
    )
    lay.panel(
        "Judge latency",
        _percentiles("ragmon_judge_latency_seconds", (0.5, 0.95), "model"),
        unit="s",
    )
    lay.panel(
        "Judge tokens",
        [(_rate("ragmon_judge_tokens_total", "model, direction"), "{{model}} {{direction}}")],
        unit="short",
        w=8,
    )
    lay.panel(
        "Judge cost per hour",
        [(f"3600 * {_rate('ragmon_judge_cost_usd_total', 'model')}", "{{model}}")],
        unit="currencyUSD",
        w=8,
    )
    lay.panel(
        "Judge queue depth", [("sum by (instance) (ragmon_judge_queue_depth)", "{{instance}}")], w=8
    )

    lay.row("Worker health")
    lay.panel(
        "Check duration",
        _percentiles("ragmon_check_duration_seconds", (0.5, 0.99)),
        unit="s",
        w=8,
    )
    lay.panel(
        "Event lag (event time → checked)",
        _percentiles("ragmon_event_lag_seconds", (0.5, 0.95)),
        unit="s",
        w=8,
    )
    lay.panel("Broker reachable", [("ragmon_broker_up", "{{instance}}")], w=8)
    lay.panel(
        "Alert notifications",
        [(_rate("ragmon_alert_notifications_total", "sink, outcome"), "{{sink}} {{outcome}}")],
        unit="reqps",
    )

    return {
        "uid": DASHBOARD_UID,
        "title": "ragmon: citations and hallucinations",
        "description": "Live citation validity, claim support and hallucination rates of RAG answers.",
        "tags": ["ragmon"],
        "timezone": "browser",
        "editable": True,
        "graphTooltip": 1,
        "schemaVersion": SCHEMA_VERSION,
        "version": 1,
        "refresh": "30s",
        "time": {"from": "now-1h", "to": "now"},
        "timepicker": {},
        "fiscalYearStartMonth": 0,
        "liveNow": False,
        "links": [],
        "annotations": {
            "list": [
                {
                    "builtIn": 1,
                    "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                    "enable": True,
                    "hide": True,
                    "iconColor": "rgba(0, 211, 255, 1)",
                    "name": "Annotations & Alerts",
                    "type": "dashboard",
                },
                {
                    "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                    "enable": True,
                    "hide": False,
                    "iconColor": "red",
                    "name": "ragmon alerts",
                    "target": {"type": "tags", "tags": ["ragmon"], "matchAny": False, "limit": 100},
                },
            ]
        },
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Data source",
                    "type": "datasource",
                    "query": "prometheus",
                    "current": {},
                    "hide": 0,
                    "refresh": 1,
                    "regex": "",
                    "options": [],
                },
                {
                    "name": "app",
                    "label": "App",
                    "type": "query",
                    "datasource": DATASOURCE,
                    "query": {"query": "label_values(ragmon_events_total, app)", "refId": "app"},
                    "definition": "label_values(ragmon_events_total, app)",
                    "refresh": 2,
                    "multi": True,
                    "includeAll": True,
                    "allValue": ".*",
                    "current": {},
                    "hide": 0,
                    "sort": 1,
                    "options": [],
                },
            ]
        },
        "panels": lay.panels,
    }


def dashboard_exprs(dashboard: dict[str, Any]) -> list[tuple[str, str]]:
    """(panel title, PromQL) of every query in a dashboard, template variables left in."""
    found: list[tuple[str, str]] = []
    for panel in dashboard.get("panels", []):
        for target in panel.get("targets", []):
            if target.get("expr"):
                found.append((panel["title"], target["expr"]))
    for var in dashboard.get("templating", {}).get("list", []):
        query = var.get("query")
        if isinstance(query, dict) and query.get("query"):
            found.append((f"variable {var['name']}", query["query"]))
    return found
