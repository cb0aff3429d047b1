"""An alert's transition as an audit record, so the evidence page shows the alert's own figures.

The page reads the audit topic by time; the in-stream alert evaluates the aggregate's window,
which no page request can rebuild exactly (records in flight, buckets, deduplication). So when
a rule fires or resolves, the worker also writes what it decided on to the audit trail:

    {"reason": "alert", "kind": "firing", "rule": ..., "app": ..., "audited_at": at,
     "figure": "hallucination", "estimate": 0.174, "lower": 0.162, "upper": 0.192,
     "judged": 353, "scale": "judge", "text": "hallucination 0.174 (95% interval ...)", ...}

and the page of that rule and app shows the transitions in its range with exactly those
numbers, whichever worker serves it. `scale` says what the figure is on: `judge` for the
support and hallucination estimates (the judge's verdicts, monitor/estimation), `count` for the
exact ratios of counts (validity, coverage, judge errors, dead letters). A record has no
`event_id`: it is no answer, and the page's ranking (monitor.oncall.query.group) skips it.

Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from monitor.alerting.alert_rules import ESTIMATED
from monitor.alerting.alerts import Transition

ALERT_REASON = "alert"


def scale_of(figure: str, values: Mapping[str, Any] | None = None) -> str:
    """What a figure is measured on. A figure the estimator reports on another scale names it
    in its values (`<figure>_scale`); today every estimate is on the judge's."""
    if figure not in ESTIMATED:
        return "count"
    named = (values or {}).get(f"{figure}_scale")
    if isinstance(named, str) and named:
        return named
    # the stream's human-scale figures (agents/stream/human_scale.py) flag themselves 1.0
    return "human" if (values or {}).get(f"{figure}_scale_human") == 1.0 else "judge"


def _number(value: Any, digits: int = 6) -> float | None:
    return round(float(value), digits) if isinstance(value, int | float) else None


def alert_record(
    t: Transition, window_seconds: float | None = None, kind: str | None = None
) -> dict[str, Any]:
    """`window_seconds`: the window the figures were computed over (the worker's aggregate
    window, RAGMON_WINDOW_SECONDS), when it is not the rule's own. `kind`: the transition's,
    or `still_firing` for a firing rule's figures recorded again."""
    figures, rule, figure = t.figures, t.rule, t.rule.figure
    values = figures.values
    judged = values.get(f"{figure}_judged")
    return {
        "reason": ALERT_REASON,
        "kind": kind or t.kind,
        "rule": rule.name,
        "app": t.app,
        "audited_at": round(t.at, 6),
        "started_at": round(t.started_at, 6),
        "figure": figure,
        "op": rule.op,
        "threshold": rule.threshold,
        "resolve_at": rule.resolve_threshold,
        # what the rule compared: the estimate's far bound for an estimate, else the ratio
        "compared": _number(t.value),
        "estimate": _number(values.get(figure)),
        "lower": _number(values.get(f"{figure}_lower")),
        "upper": _number(values.get(f"{figure}_upper")),
        "judged": int(judged) if isinstance(judged, int | float) else None,
        "scale": scale_of(figure, values),
        "events": figures.events,
        "window_seconds": rule.window_seconds if window_seconds is None else window_seconds,
        "text": figures.describe(figure),
        "no_data": t.no_data,
        "notification_id": t.notification_id,
        "examples": list(t.examples),
    }


def is_alert(record: Mapping[str, Any]) -> bool:
    return record.get("reason") == ALERT_REASON


def alerts_for(
    records: Iterable[Mapping[str, Any]], app: str, rule: str | None, limit: int = 5
) -> list[dict[str, Any]]:
    """The alert records of `app` (and `rule`, when given) among `records`, newest first."""
    found = [
        dict(r)
        for r in records
        if is_alert(r) and r.get("app") == app and (rule is None or r.get("rule") == rule)
    ]
    found.sort(key=lambda r: -float(r.get("audited_at") or 0))
    return found[:limit]


def describe(record: Mapping[str, Any]) -> str:
    """One line: `firing at <value> …`, the stated text with its scale."""
    scale = record.get("scale")
    on = "on the judge's scale" if scale == "judge" else f"on the {scale} scale"
    if scale == "count":
        on = "an exact ratio of counts"
    return f"{record.get('text')} ({on})"
