"""What `ragmon demo` shows: the worker's gauges scraped, the live summary of them, the summary
printed when the demo stops, and the screen they are printed on."""

from __future__ import annotations

import urllib.request
from typing import IO

from prometheus_client.parser import text_string_to_metric_families

from agents.demo.alerts import AlertLog, alert_lines


def scrape(url: str, timeout: float = 2.0) -> dict[str, list[tuple[dict[str, str], float]]]:
    with urllib.request.urlopen(url, timeout=timeout) as response:
        text = response.read().decode("utf-8")
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return out


def render(
    metrics: dict[str, list[tuple[dict[str, str], float]]],
    phase: str,
    sent: int,
    alerts: AlertLog | None = None,
) -> list[str]:
    def by_app(name: str) -> dict[str, float]:
        return {labels.get("app", ""): value for labels, value in metrics.get(name, [])}

    outcomes: dict[str, float] = {}
    for labels, value in metrics.get("ragmon_events_total", []):
        outcomes[labels["outcome"]] = outcomes.get(labels["outcome"], 0) + value
    dlq = sum(v for _, v in metrics.get("ragmon_dlq_total", []))
    firing = sorted(
        f"{labels['rule']}[{labels['app']}]"
        for labels, value in metrics.get("ragmon_alert_firing", [])
        if value >= 1
    )
    events = by_app("ragmon_window_events")
    judged = by_app("ragmon_window_judged_claims")

    def estimate(rate: str) -> dict[str, str]:
        point = by_app(f"ragmon_{rate}_ratio")
        lo, hi = by_app(f"ragmon_{rate}_ratio_lower"), by_app(f"ragmon_{rate}_ratio_upper")
        return {
            app: f"{v:.3f} [{lo.get(app, 0):.2f},{hi.get(app, 1):.2f}]" for app, v in point.items()
        }

    def plain(name: str) -> dict[str, str]:
        return {app: f"{v:.3f}" for app, v in by_app(name).items()}

    columns = [
        ("validity", plain("ragmon_validity_ratio"), 10),
        ("support [95% CI]", estimate("support"), 20),
        ("halluc. [95% CI]", estimate("hallucination"), 20),
        ("coverage", plain("ragmon_coverage_ratio"), 10),
        ("judged", {app: str(int(v)) for app, v in judged.items()}, 8),
    ]
    lines = [
        f"phase: {phase:<14} sent: {sent:<7} checked: {int(outcomes.get('checked', 0)):<7} "
        f"dead letters: {int(dlq)}",
        f"{'app':<14}{'window':>8}" + "".join(f"{name:>{w}}" for name, _, w in columns),
    ]
    for app in sorted(events):
        cells = "".join(f"{values.get(app, '-'):>{w}}" for _, values, w in columns)
        lines.append(f"{app:<14}{int(events[app]):>8}{cells}")
    if "other" in events:
        lines.append(OTHER_NOTE)
    if dlq and phase == "healthy":
        lines.append(DLQ_NOTE)
    lines.append("alerts firing: " + (", ".join(firing) if firing else "none"))
    if alerts is not None:  # each with its figure, as the alert stated it, and its link
        for key in firing:
            lines.extend(alert_lines(key, alerts.firing.get(key)))
    return lines


#: why a healthy demo shows an "other" row and dead letters: the traffic sends a few malformed
#: events on purpose (Mix.malformed), in every phase, to show the dead-letter path
OTHER_NOTE = "  other: answers whose app could not be read (malformed events, now dead letters)"
DLQ_NOTE = (
    "  dead letters while healthy: the traffic sends ~0.2% malformed events on purpose "
    "(topic ragmon.dlq, ragmon_dlq_total{reason})"
)


def final_summary(
    metrics: dict[str, list[tuple[dict[str, str], float]]],
    *,
    sent: int,
    seconds: float,
    fired: set[str],
    alerts: AlertLog | None = None,
) -> list[str]:
    """What the run did, printed when the demo stops."""
    checked = sum(
        v for labels, v in metrics.get("ragmon_events_total", []) if labels["outcome"] == "checked"
    )
    reasons: dict[str, float] = {}
    for labels, value in metrics.get("ragmon_dlq_total", []):
        reasons[labels["reason"]] = reasons.get(labels["reason"], 0) + value
    dead = ", ".join(f"{int(v)} {k}" for k, v in sorted(reasons.items()) if v) or "none"
    lines = [
        f"summary: {seconds:.0f} s, {sent} events sent, {int(checked)} checked",
        f"  dead letters: {dead}",
        "  alerts that fired: " + (", ".join(sorted(fired)) if fired else "none"),
    ]
    if alerts is not None:
        for key in sorted(fired):
            lines.extend("  " + line for line in alert_lines(key, alerts.fired.get(key)))
    return lines


class Screen:
    """Prints blocks of lines; on a terminal each block replaces the previous one."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.tty = out.isatty()
        self._height = 0

    def show(self, lines: list[str]) -> None:
        if self.tty and self._height:
            self.out.write(f"\x1b[{self._height}F\x1b[J")
        self.out.write("\n".join(lines) + "\n")
        if not self.tty:
            self.out.write("\n")
        self.out.flush()
        self._height = len(lines)

    def say(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()
        self._height = 0
