"""The dashboard's first row, the figures the alerts read: citation validity and coverage, the
judge's state and sample, support and hallucination with their intervals, the judge against human
labels, the human-scale rates and the firing alerts; each alerting figure's panel draws its rule's
threshold and links to the evidence page.
"""

from __future__ import annotations

from typing import Any

from agents.grafana.layout import Layout
from agents.grafana.queries import APP_MATCH as _APP
from agents.grafana.queries import rate_sum as _rate
from monitor.alerting.alerts import AlertRule
from monitor.oncall.links import dashboard_url

__all__ = ["RULE_PANELS", "quality_row"]


def _threshold(rules: tuple[AlertRule, ...], figure: str) -> list[float] | None:
    found = [r.threshold for r in rules if r.figure == figure]
    return found[:1] or None


def _override(name: str, props: dict[str, Any]) -> dict[str, Any]:
    return {
        "matcher": {"id": "byName", "options": name},
        "properties": [{"id": k, "value": v} for k, v in props.items()],
    }


#: the panel showing what each figure's Prometheus and Grafana-managed rules read
RULE_PANELS = {
    "validity": "Citation validity (counters, all workers)",
    "support": "Support: estimate and 95% interval ($app)",
    "hallucination": "Hallucination: estimate and 95% interval ($app)",
    "coverage": "Citation coverage (counters, all workers)",
    "judge_agreement": "Judge against human labels: sensitivity and specificity ($app)",
    "abstention": "Abstaining answers (counters, all workers)",
}


def _evidence_links(
    rules: tuple[AlertRule, ...],
    figure: str,
    links_base: str | None,
    app: str = "${__field.labels.app}",
) -> list[dict[str, Any]] | None:
    """A data link from each app's series (or, on a panel repeated per app, from the panel's
    `$app`) to the evidence page for that app, the figure's rule and the dashboard's range."""
    if links_base is None:
        return None
    rule = next((r.name for r in rules if r.figure == figure), None)
    return [
        {
            "title": f"Evidence: the answers behind {app}",
            "url": dashboard_url(links_base, rule, app),
            "targetBlank": True,
        }
    ]


def quality_row(lay: Layout, rules: tuple[AlertRule, ...], links_base: str | None) -> None:
    """Add the quality row's panels to `lay`."""
    lay.row("Quality (alerting figures)")
    valid = _rate("ragmon_citations_total", "app", 'status="valid"', _APP)
    lay.panel(
        "Citation validity (counters, all workers)",
        [(f"{valid} / {_rate('ragmon_citations_total', 'app', _APP)}", "{{app}}")],
        ratio=True,
        w=6,
        thresholds=_threshold(rules, "validity"),
        description="Valid citations / citations, summed over every worker.",
        links=_evidence_links(rules, "validity", links_base),
    )
    numerator = _rate("ragmon_claim_counts_total", "app", 'kind="cited"', _APP)
    denominator = _rate("ragmon_claim_counts_total", "app", 'kind="claims"', _APP)
    lay.panel(
        "Citation coverage (counters, all workers)",
        [(f"{numerator} / {denominator}", "{{app}}")],
        ratio=True,
        w=6,
        thresholds=_threshold(rules, "coverage"),
        description="cited / claims (cheap tier), summed over every worker: what the coverage "
        "alert reads.",
        links=_evidence_links(rules, "coverage", links_base),
    )
    for figure, title in (("validity", "Validity"), ("coverage", "Coverage")):
        lay.panel(
            f"{title} (rolling window)",
            [(f"ragmon_{figure}_ratio{{{_APP}}}", "{{app}}")],
            ratio=True,
            w=6,
            thresholds=_threshold(rules, figure),
            description="Gauge from the aggregate agent's window (one worker per app).",
            links=_evidence_links(rules, figure, links_base),
        )
    lay.panel(
        "Judge",
        [("min(ragmon_judge_enabled)", "judge")],
        kind="stat",
        w=6,
        description="With the judge off there are no support or hallucination estimates: "
        "only the cheap tier's verdict shares, which are not rates.",
        mappings=[
            {
                "type": "value",
                "options": {
                    "0": {"text": "OFF: no support/hallucination estimates", "color": "red"},
                    "1": {"text": "on", "color": "green"},
                },
            }
        ],
    )
    lay.panel(
        "Judged claims in the window (labels behind the estimates)",
        [(f"max by (app) (ragmon_window_judged_claims{{{_APP}}})", "{{app}}")],
        w=6,
        description="Claims of the uniform judge sample with a verdict; alert rules on support "
        "and hallucination wait for min_judged of them (default 30).",
    )
    lay.panel(
        "Estimation sample: answers by outcome",
        [(_rate("ragmon_estimation_answers_total", "app, outcome", _APP), "{{app}} {{outcome}}")],
        unit="reqps",
        w=12,
        description="Answers of the base-rate hash sample: sent to the judge, dropped (budget, "
        "fair share, full queue), labelled, incomplete. Drops shrink the sample; the estimate "
        "assumes they are unrelated to the answers' quality (docs/estimation.md).",
    )
    cheap = "cheap verdicts only (not a rate)"
    for figure, title, verdict in (
        ("support", "Support", "supported"),
        ("hallucination", "Hallucination", "not_supported"),
    ):
        one = 'app=~"$app"'
        lay.panel(
            f"{title}: estimate and 95% interval ($app)",
            [
                (f"avg(ragmon_{figure}_ratio{{{one}}})", "estimate"),
                (f"min(ragmon_{figure}_ratio_lower{{{one}}})", "lower"),
                (f"max(ragmon_{figure}_ratio_upper{{{one}}})", "upper"),
                (f'max(ragmon_cheap_verdict_share{{{one},verdict="{verdict}"}})', cheap),
            ],
            ratio=True,
            w=12,
            repeat="app",
            thresholds=_threshold(rules, figure),
            links=_evidence_links(rules, figure, links_base, app="${app}"),
            description="What the LLM judge would say about every claim of the window, "
            "estimated from the cheap score on every claim and the judge's verdicts on the "
            "uniform sample (PPI++), with its 95% interval (the band). The alert fires on the "
            "far bound. Empty with the judge off. The dashed line is the cheap tier's verdicts "
            "alone: biased, not a rate.",
            overrides=[
                _override(
                    "upper",
                    {
                        "custom.fillBelowTo": "lower",
                        "custom.lineWidth": 0,
                        "custom.fillOpacity": 25,
                    },
                ),
                _override("lower", {"custom.lineWidth": 0}),
                _override(
                    cheap,
                    {
                        "custom.lineStyle": {"fill": "dash", "dash": [6, 4]},
                        "color": {"mode": "fixed", "fixedColor": "gray"},
                    },
                ),
            ],
        )
    one = 'app=~"$app",model="_all"'
    lay.panel(
        RULE_PANELS["judge_agreement"],
        [
            (f"max by (rate) (ragmon_judge_sensitivity_ratio{{{one}}})", "sensitivity {{rate}}"),
            (f"max by (rate) (ragmon_judge_specificity_ratio{{{one}}})", "specificity {{rate}}"),
            (
                'min by (rate) ({__name__=~"ragmon_judge_(sensitivity|specificity)_ratio_upper",'
                f"{one}}})",
                "lowest upper bound {{rate}}",
            ),
        ],
        ratio=True,
        w=12,
        repeat="app",
        thresholds=_threshold(rules, "judge_agreement"),
        links=_evidence_links(rules, "judge_agreement", links_base, app="${app}"),
        description="The LLM judge measured against human labels over the calibration horizon "
        "(all judge models): sensitivity and specificity for each rate's positive class. "
        "judge_drift fires when the lowest upper bound falls below its floor. Empty without "
        "calibration labels: the rates are then on the judge's scale.",
    )
    abstained = _rate("ragmon_abstained_answers_total", "app", _APP)
    checked = _rate("ragmon_events_total", "app", _APP, 'outcome="checked"')
    lay.panel(
        RULE_PANELS["abstention"],
        [(f"{abstained} / {checked}", "{{app}}")],
        ratio=True,
        w=12,
        thresholds=_threshold(rules, "abstention"),
        links=_evidence_links(rules, "abstention", links_base),
        description='Answers whose every claim is a refusal ("the passages do not say") / '
        "checked answers, from the counters of every worker, as abstention_high reads them. A "
        "surge means retrieval stopped finding what users ask about (docs/uncited.md).",
    )
    lay.panel(
        "Support and hallucination on the human scale ($app)",
        [
            (f'avg(ragmon_{r}_human_ratio{{app=~"$app"}})', f"{r} (human scale)")
            for r in ("support", "hallucination")
        ]
        + [
            (f'avg(ragmon_{r}_ratio{{app=~"$app"}})', f"{r} (judge scale)")
            for r in ("support", "hallucination")
        ],
        ratio=True,
        w=12,
        repeat="app",
        description="The judge-scale estimates corrected with the judge's measured sensitivity "
        "and specificity (docs/estimation.md). Until enough calibration labels exist only the "
        "judge-scale lines show, and the rules read the judge's scale "
        "(ragmon_rate_scale_human = 0).",
    )
    lay.panel(
        "Firing alerts (ragmon)",
        [(f"max by (rule, app) (ragmon_alert_firing{{{_APP}}})", "{{rule}} {{app}}")],
        kind="state-timeline",
        w=12,
    )
    lay.panel(
        "Firing alerts (Prometheus)",
        [
            (
                'sum by (alertname, app) (ALERTS{alertname=~"Ragmon.*",alertstate="firing"})',
                "{{alertname}} {{app}}",
            )
        ],
        kind="state-timeline",
        w=12,
    )
