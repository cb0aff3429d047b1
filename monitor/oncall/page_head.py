"""The top of the evidence page: the alert's own figures, then every other figure named for what
it is, and the 404 page that lists the names that exist.

The alert's figures come from its audit record (monitor.oncall.alert_record): exactly what the
rule decided on, for its window, with the scale it is on. The page's other numbers are about
the audited answers it read, and say so.

Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import quote, urlencode

from monitor.oncall.html_bits import CSS, esc, link, when
from monitor.oncall.links import EVIDENCE_PATH

SCALES = {
    "judge": "judge scale: the LLM judge's verdicts on the judged sample, not yet corrected "
    "against human labels",
    "human": "human scale: the judge's verdicts corrected with human labels",
    "count": "exact ratio of the window's counts",
}


def _pct(value: object) -> str:
    return f"{float(value):.3f}" if isinstance(value, int | float) else "n/a"


def _alert(record: Mapping[str, Any]) -> str:
    figure, scale = record.get("figure"), str(record.get("scale") or "")
    bound = "lower" if record.get("op") == "above" else "upper"
    if record.get("lower") is not None and record.get("upper") is not None:
        stated = (
            f"{esc(figure)} <b>{_pct(record.get('estimate'))}</b> (95% interval "
            f"{_pct(record.get('lower'))}–{_pct(record.get('upper'))}, "
            f"{esc(record.get('judged'))} judged claims)"
        )
        rule_reads = f"the rule compares the interval's {bound} bound"
    else:
        stated = f"{esc(figure)} <b>{_pct(record.get('estimate'))}</b>"
        rule_reads = "the rule compares this ratio"
    window = record.get("window_seconds")
    return (
        f'<div class="alert"><b>{esc(record.get("kind"))}</b> {esc(record.get("rule"))} at '
        f"{when(record.get('audited_at'))}: "
        f'<span class="stated">{esc(record.get("text"))}</span><br>'
        f"{stated} · {esc(SCALES.get(scale, scale))} · over the window of "
        f"{esc(window)} s ending then, {esc(record.get('events'))} answers · {rule_reads} "
        f"({_pct(record.get('compared'))}) with {esc(record.get('op'))} "
        f"{esc(record.get('threshold'))}</div>"
    )


def render_alerts(report: Mapping[str, Any]) -> str:
    """The rule's evaluations in the range, as the alert stated them; or why there are none."""
    alerts: Sequence[Mapping[str, Any]] = report.get("alerts") or []
    if alerts:
        return "<h2>The alert</h2>" + "".join(_alert(a) for a in alerts)
    if report.get("rule"):
        return (
            '<p class="meta">The alert: no transition of this rule for this app in the range '
            "(the worker writes one to the audit trail when the rule fires or resolves); "
            "widen the range to the alert's time.</p>"
        )
    return ""


def render_figures(report: Mapping[str, Any]) -> str:
    """Every other number on the page, each with what it counts."""
    estimate = report.get("estimate") or {}
    facts = [
        f"range {when(report.get('from'))} to {when(report.get('to'))}",
        f"{esc(report.get('answers_in_range'))} audited answers in the range (failing ones "
        "and a sample of the rest, not every answer)",
        f"{esc(report.get('records_read'))} audit records read",
    ]
    if report.get("figure"):
        facts.append(
            f"ranked by {esc(report.get('figure'))} ({esc(report.get('op'))} "
            f"{esc(report.get('threshold'))})"
        )
    if estimate.get("rate") is not None:
        facts.append(
            f"cheap-check {esc(report.get('figure'))} over these answers "
            f"{float(estimate['rate']) * 100:.2f}% ({esc(estimate.get('what'))})"
        )
    return '<p class="meta">' + " · ".join(facts) + "</p>"


class _Missing(Protocol):
    what: str
    known: list[str]


def render_not_found(problem: _Missing, query: Mapping[str, str], base: str) -> str:
    """404: what was asked for does not exist; the names that do, each a link."""
    items = []
    for name in problem.known:
        params = {**query, problem.what: name}
        href = f"{base}{EVIDENCE_PATH}?{urlencode(params, quote_via=quote)}"
        items.append(f"<li>{link(href, name)}</li>")
    kind = "apps" if problem.what == "app" else "rules"
    listing = f"<ul>{''.join(items)}</ul>" if items else f"<p>No {kind} known in this range.</p>"
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>ragmon evidence: not "
        f"found</title><style>{CSS}</style></head><body><h1>Not found</h1>"
        f'<p class="problem">{esc(problem)}</p><p>Known {kind}:</p>{listing}</body></html>'
    )
