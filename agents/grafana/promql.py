"""PromQL for every alert figure: the one source of the Prometheus rules and Grafana alert rules.

Validity, coverage, the judge error rate and the DLQ rate are counter ratios summed over every
worker (`sum(rate(..)) / sum(rate(..))`), so they hold however many workers run and whichever of
them is down. Coverage reads `ragmon_claim_counts_total{kind}`.

Support and hallucination are estimates (monitor/estimation: PPI++ over the uniform judge sample)
that only the aggregate agent can compute, from the sums in its window: the rules read its gauges
(`ragmon_support_ratio` and its `_lower`/`_upper` bounds, `ragmon_window_judged_claims`). One
worker owns an app's window; during a hand-over two may export it for a moment, so a lower bound
is taken with `min` and an upper bound with `max` (the cautious side for an alert). A rule fires on
the bound on the far side of its threshold once `min_judged` claims were judged, as in the stream;
the window is the worker's (RAGMON_WINDOW_SECONDS), not the rule's range.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from monitor.alerting.alerts import ESTIMATED, AlertRule, format_duration
from monitor.oncall.links import DEFAULT_BASE, runbook_url, since_for, template_url

JOB = "ragmon"

#: figure → (numerator, denominator) kinds of ragmon_claim_counts_total
CLAIM_RATIOS: dict[str, tuple[str, str]] = {
    "coverage": ("cited", "claims"),
}
#: bound → (gauge suffix, aggregation over workers)
BOUNDS: dict[str, tuple[str, str]] = {
    "point": ("", "avg"),
    "lower": ("_lower", "min"),
    "upper": ("_upper", "max"),
}


@dataclass(frozen=True)
class FigureQuery:
    value: str  # the figure, one series per app (or one global series)
    enough: str  # non-empty where the window holds at least min_events
    per_app: bool


def _sel(*matchers: str) -> str:
    parts = [m for m in matchers if m]
    return "{" + ",".join(parts) + "}" if parts else ""


def _apps(apps: tuple[str, ...]) -> str:
    return f'app=~"{"|".join(apps)}"' if apps else ""


def figure_query(
    figure: str,
    window: str,
    apps: tuple[str, ...] = (),
    min_events: int = 1,
    bound: str = "point",
    min_judged: int = 1,
) -> FigureQuery:
    a = _apps(apps)

    def rate(metric: str, *matchers: str, by_app: bool = True) -> str:
        by = "sum by (app) " if by_app else "sum"
        return f"{by}(rate({metric}{_sel(*matchers, a if by_app else '')}[{window}]))"

    app_events = f"sum by (app) (increase(ragmon_events_total{_sel(a)}[{window}])) >= {min_events}"
    if figure == "validity":
        valid = rate("ragmon_citations_total", 'status="valid"')
        return FigureQuery(f"{valid} / {rate('ragmon_citations_total')}", app_events, True)
    if figure in ESTIMATED:
        suffix, agg = BOUNDS[bound]
        # the human scale where the worker has enough calibration labels (the gauge exists
        # only then: agents/stream/human_scale.py), else the judge's, as the stream's rules
        human = f"{agg} by (app) (ragmon_{figure}_human_ratio{suffix}{_sel(a)})"
        value = f"({human}) or ({agg} by (app) (ragmon_{figure}_ratio{suffix}{_sel(a)}))"
        judged = f"max by (app) (ragmon_window_judged_claims{_sel(a)}) >= {min_judged}"
        return FigureQuery(value, f"({app_events}) and on(app) ({judged})", True)
    if figure in CLAIM_RATIOS:
        num, den = (rate("ragmon_claim_counts_total", f'kind="{k}"') for k in CLAIM_RATIOS[figure])
        return FigureQuery(f"{num} / {den}", app_events, True)
    if figure == "abstention":
        abstained = rate("ragmon_abstained_answers_total")
        checked = rate("ragmon_events_total", 'outcome="checked"')
        return FigureQuery(f"{abstained} / {checked}", app_events, True)
    if figure == "judge_error_rate":
        failed = rate("ragmon_judge_requests_total", 'outcome!="ok"', by_app=False)
        value = f"{failed} / {rate('ragmon_judge_requests_total', by_app=False)}"
        enough = f"sum(increase(ragmon_judge_requests_total[{window}])) >= {min_events}"
        return FigureQuery(value, enough, False)
    if figure == "judge_agreement":  # gauges of agents/stream/human_scale.py, all models
        pooled = 'model="_all"'
        value = (
            'min by (app) ({__name__=~"ragmon_judge_(sensitivity|specificity)_ratio_upper"'
            f",{','.join(m for m in (pooled, a) if m)}}})"
        )
        enough = f"min by (app) (ragmon_calibration_labels{_sel(pooled, a)}) >= {min_events}"
        return FigureQuery(value, enough, True)
    if figure == "dlq_rate":
        value = f"{rate('ragmon_dlq_total', by_app=False)} / {rate('ragmon_events_total', by_app=False)}"
        enough = f"sum(increase(ragmon_events_total[{window}])) >= {min_events}"
        return FigureQuery(value, enough, False)
    raise ValueError(f"no PromQL for figure {figure!r}")


def alert_name(rule: AlertRule) -> str:
    """`validity_low` → `RagmonValidityLow`."""
    return "Ragmon" + "".join(part.capitalize() for part in rule.name.split("_"))


def _cmp(rule: AlertRule, threshold: float) -> str:
    return f"{'<' if rule.op == 'below' else '>'} {threshold:g}"


def rule_bound(rule: AlertRule) -> str:
    """The bound an estimated figure's rule compares: the far side of its threshold."""
    if rule.figure not in ESTIMATED:
        return "point"
    return "upper" if rule.op == "below" else "lower"


def rule_query(rule: AlertRule) -> FigureQuery:
    """What the rule compares. An estimated figure's rule reads the bound the worker computed
    for it at the rule's own level (`ragmon_alert_bound_ratio{rule}`): PromQL has the window's
    95% bounds but not the sums an interval at another level needs."""
    if rule.figure in ESTIMATED:
        base = figure_query(
            rule.figure,
            format_duration(rule.window_seconds),
            rule.apps,
            rule.min_events,
            rule_bound(rule),
            rule.min_judged,
        )
        agg = BOUNDS[rule_bound(rule)][1]
        sel = _sel(f'rule="{rule.name}"', _apps(rule.apps))
        return FigureQuery(f"{agg} by (app) (ragmon_alert_bound_ratio{sel})", base.enough, True)
    return figure_query(
        rule.figure,
        format_duration(rule.window_seconds),
        rule.apps,
        rule.min_events,
        rule_bound(rule),
        rule.min_judged,
    )


def grafana_expr(rule: AlertRule) -> str:
    """The figure where the window holds enough events; Grafana applies the thresholds."""
    q = rule_query(rule)
    on = "on(app)" if q.per_app else "on()"
    return f"({q.value}) and {on} ({q.enough})"


def prometheus_expr(rule: AlertRule) -> str:
    """Breach with enough events, or (hysteresis) still short of the resolve threshold while firing."""
    q = rule_query(rule)
    on = "on(app)" if q.per_app else "on()"
    breach = f"(({q.value}) {_cmp(rule, rule.threshold)}) and {on} ({q.enough})"
    if rule.resolve_threshold == rule.threshold:
        return breach
    firing = f'ALERTS{{alertname="{alert_name(rule)}",alertstate="firing"}}'
    held = f"(({q.value}) {_cmp(rule, rule.resolve_threshold)}) and {on} {firing}"
    return f"(\n  {breach}\n)\nor\n(\n  {held}\n)"


def _description(rule: AlertRule) -> str:
    where = "{{ $labels.app }}" if rule_query(rule).per_app else "all apps"
    side = "below" if rule.op == "below" else "above"
    if rule.figure in ESTIMATED:
        f = rule.figure

        def q(metric: str, fmt: str = "humanizePercentage", human: str = "") -> str:
            sel = f"{metric}{{app='%s'}}"
            query, args = f"max({sel})", "$labels.app"
            if human:  # the human scale where it exists, as the rule's own value
                query = f"max({human}{{app='%s'}}) or {query}"
                args += " $labels.app"
            return (
                f'{{{{ with printf "{query}" {args} | query }}}}'
                f"{{{{ . | first | value | {fmt} }}}}{{{{ end }}}}"
            )

        def est(suffix: str) -> str:
            return q(f"ragmon_{f}_ratio{suffix}", human=f"ragmon_{f}_human_ratio{suffix}")

        scale = (
            f"{{{{ with printf \"max(ragmon_rate_scale_human{{app='%s',rate='{f}'}})\" "
            "$labels.app | query }}{{ if eq (. | first | value) 1.0 }}human scale"
            "{{ else }}judge scale{{ end }}{{ else }}judge scale{{ end }}"
        )
        return (
            f"{f} {rule_bound(rule)} bound of the {rule.level * 100:.6g}% interval is "
            f"{{{{ $value | humanizePercentage }}}} for {where} "
            f"({side} {rule.threshold:g}; resolves at {rule.resolve_threshold:g}"
            f"{_quiet(rule)}): estimate "
            f"{est('')}, 95% interval {est('_lower')} to {est('_upper')} ({scale}), "
            f"{q('ragmon_window_judged_claims', 'humanize')} "
            f"judged claims in the worker's window. {_breaching(rule)}"
        )
    return (
        f"{rule.figure} is {{{{ $value | humanizePercentage }}}} for {where} over "
        f"{figure_span(rule)} ({side} {rule.threshold:g}; resolves at "
        f"{rule.resolve_threshold:g}{_quiet(rule)}). {_breaching(rule)}"
    )


# judge_agreement is read off the human labels of the calibration horizon, not the rule's
# window (agents/stream/human_scale.py); its min_events counts labels
CALIBRATED = frozenset({"judge_agreement"})


def figure_span(rule: AlertRule) -> str:
    """What a rule's figure is computed over, as its alert text says it."""
    if rule.figure in CALIBRATED:
        return "the human labels of the calibration horizon (RAGMON_CALIBRATION_HORIZON_SECONDS)"
    return format_duration(rule.window_seconds)


def _quiet(rule: AlertRule) -> str:
    if rule.keep_firing_for <= 0:
        return ""
    return f" and stays there {format_duration(rule.keep_firing_for)}"


def _breaching(rule: AlertRule) -> str:
    """How long it has been breaching: ALERTS_FOR_STATE holds when the alert became active."""
    by = "$labels.app" if rule_query(rule).per_app else '""'
    app = "app='%s'," if rule_query(rule).per_app else "%s"
    sel = f"ALERTS_FOR_STATE{{{app}alertname='{alert_name(rule)}'}}"
    return (
        f'{{{{ with printf "time() - max({sel})" {by} | query }}}}Breaching for '
        "{{ . | first | value | humanizeDuration }}.{{ end }}"
    )


def rule_annotations(rule: AlertRule, links_base: str, runbook: str = "") -> dict[str, str]:
    """summary, description, runbook_url and (per app) the evidence page for the firing app."""
    out = {
        "summary": rule.summary or rule.name,
        "description": _description(rule),
        "runbook_url": runbook_url(runbook, links_base, rule.name),
    }
    if rule_query(rule).per_app:
        since = since_for(rule.window_seconds, rule.for_seconds)
        out["evidence_url"] = template_url(links_base, rule.name, since)
    return out


def prometheus_rules(
    rules: tuple[AlertRule, ...],
    job: str = JOB,
    links_base: str = DEFAULT_BASE,
    runbook: str = "",
) -> dict[str, Any]:
    """The deploy/prometheus/rules.yml document for these rules."""
    recording: list[dict[str, Any]] = []
    seen: set[str] = set()
    for rule in rules:
        window = format_duration(rule.window_seconds)
        level = "app:" if rule_query(rule).per_app else ""
        record = f"{level}ragmon_{rule.figure}:ratio{window}"
        if record not in seen:
            seen.add(record)
            recording.append({"record": record, "expr": figure_query(rule.figure, window).value})
    alerts: list[dict[str, Any]] = [
        {
            "alert": alert_name(rule),
            "expr": prometheus_expr(rule),
            "for": format_duration(rule.for_seconds),
            # the quiet period before resolving (Prometheus >= 2.42), as in the stream
            **(
                {"keep_firing_for": format_duration(rule.keep_firing_for)}
                if rule.keep_firing_for > 0
                else {}
            ),
            "labels": {"severity": rule.severity, "ragmon_rule": rule.name},
            "annotations": rule_annotations(rule, links_base, runbook),
        }
        for rule in rules
    ]
    alerts.append(
        {
            "alert": "RagmonNotReporting",
            "expr": f'absent(up{{job="{job}"}} == 1)',
            "for": "5m",
            "labels": {"severity": "critical", "ragmon_rule": "not_reporting"},
            "annotations": {
                "summary": "No ragmon worker is being scraped successfully",
                "description": f'No target of job "{job}" has been up for 5 minutes: ragmon metrics and alerts are blind.',
                "runbook_url": runbook_url(runbook, links_base, "not_reporting"),
            },
        }
    )
    alerts.append(
        {
            "alert": "RagmonWorkerDown",
            "expr": f'up{{job="{job}"}} == 0',
            "for": "5m",
            "labels": {"severity": "warning", "ragmon_rule": "worker_down"},
            "annotations": {
                "summary": "A ragmon worker is not answering scrapes",
                "description": "{{ $labels.instance }} has been down for 5 minutes.",
                "runbook_url": runbook_url(runbook, links_base, "worker_down"),
            },
        }
    )
    return {
        "groups": [
            {"name": "ragmon-recording", "interval": "30s", "rules": recording},
            {"name": "ragmon-alerts", "rules": alerts},
        ]
    }


def not_reporting_expr(job: str = JOB) -> str:
    """For Grafana: the number of ragmon targets up (alerting below 1, and on no data)."""
    return f'sum(up{{job="{job}"}})'
