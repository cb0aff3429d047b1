"""What an alert annotation in Grafana says: its tags (one carries the notification id, so a
worker finds an annotation another posted) and its text, as the on-call rotation reads it."""

from __future__ import annotations

import html

from monitor.alerting.alerts import ESTIMATED, Transition

__all__ = ["ALERT_TAG", "annotation_tags", "annotation_text", "firing_line", "human_duration"]

ALERT_TAG = "ragmon-alert:"


def annotation_tags(t: Transition) -> list[str]:
    return [
        "ragmon",
        t.rule.name,
        f"app:{t.app}",
        f"severity:{t.rule.severity}",
        ALERT_TAG + t.notification_id,
    ]


def human_duration(seconds: float) -> str:
    """1h 02m, 37m 10s, 45s."""
    whole = max(0, round(seconds))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h {minutes:02d}m"
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def firing_line(t: Transition) -> str:
    """How long it has been firing, as the rotation reads it."""
    breach = human_duration(t.at - t.started_at)
    if t.kind == "firing":
        return f"firing now; breaching for {breach} (pending {t.rule.for_seconds:g}s)"
    return f"fired for {human_duration(t.firing_seconds)}; breach began {breach} ago"


def annotation_text(t: Transition) -> str:
    rule = t.rule
    state = "FIRING" if t.kind == "firing" else "RESOLVED"
    if t.no_data:
        state += " (no data: the app's window holds no answer)"
    watched = f"{rule.figure} = {t.value:.3f}"
    if rule.figure in ESTIMATED:  # the rule compares a bound: say which, and the estimate
        bound = "upper" if rule.op == "below" else "lower"
        watched = (
            f"{rule.figure} {bound} bound of the {rule.level * 100:.6g}% interval = {t.value:.3f}"
        )
    shown = [k for k in ("validity", "support", "hallucination", "coverage") if k != rule.figure]
    others = ", ".join(t.figures.describe(k) for k in shown if t.figures.values.get(k) is not None)
    lines = [
        f"ragmon {rule.name} {state} for app {t.app}: {watched} "
        f"({rule.op} {rule.threshold:g}, resolves at {rule.resolve_threshold:g})",
        f"{t.figures.describe(rule.figure)}; window: {t.figures.events} events"
        + (f"; {others}" if others else ""),
        firing_line(t),
    ]
    if t.examples:
        lines.append("examples (moved the rate most first): " + ", ".join(t.examples[:5]))
    if t.evidence_url:
        # Grafana renders annotation text as HTML: a link, not a bare URL
        href = html.escape(t.evidence_url, quote=True)
        lines.append(f'<a href="{href}">evidence: the answers behind it</a>')
    if t.runbook_url:
        lines.append(f'<a href="{html.escape(t.runbook_url, quote=True)}">runbook</a>')
    return "\n".join(lines)
