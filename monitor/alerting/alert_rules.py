"""What an alert rule is and what it watches: the figures of one app's window.

A rule compares one figure (FIGURES) of a window with a threshold; for the estimated figures
(ESTIMATED) it compares the interval's far bound, and only once enough claims were judged.
Pure. The state machine that runs the rules is monitor/alerting/alerts.py; monitor/alerting/rules_file.py reads
them from YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from monitor.estimation.window import window_values

#: What a rule can watch; each is a ratio in [0, 1] computed over one window of one app.
FIGURES: tuple[str, ...] = (
    "validity",  # valid citations / citations
    "support",  # estimated share of claims the judge would call supported (an interval)
    "hallucination",  # estimated share of claims not supported by their evidence (an interval)
    "coverage",  # cited claims / claims
    "judge_error_rate",  # failed judge calls / judge calls
    "dlq_rate",  # rejected events / events
    "abstention",  # answers whose every claim abstains / checked answers (a refusal surge)
)
#: Figures that are estimates with a 95% interval (monitor/estimation): a rule on them watches the
#: bound on the far side of its threshold (a `below` rule the upper bound, an `above` rule the
#: lower), so it fires on evidence, and only once `min_judged` claims were judged.
ESTIMATED: tuple[str, ...] = ("support", "hallucination")
SEVERITIES: tuple[str, ...] = ("critical", "warning", "info")

Op = Literal["below", "above"]


@dataclass(frozen=True, slots=True)
class AlertRule:
    name: str
    figure: str
    op: Op
    threshold: float
    resolve_threshold: float
    window_seconds: float = 300.0
    min_events: int = 20
    for_seconds: float = 120.0
    severity: str = "warning"
    apps: tuple[str, ...] = ()
    summary: str = ""
    min_judged: int = 30
    #: an app whose window holds no answer at all (its traffic stopped): "resolve" a firing or
    #: pending alert, as Prometheus (no series) and the Grafana-managed rules (noDataState OK)
    #: do, or "hold" the state until answers come back
    no_data: str = "resolve"

    def observed(self, figures: WindowFigures) -> float | None:
        """What the rule compares with its thresholds; None: no decision."""
        if self.figure not in ESTIMATED:
            return figures.values.get(self.figure)
        judged = figures.values.get(f"{self.figure}_judged")
        if judged is None or judged < self.min_judged:
            return None
        bound = "upper" if self.op == "below" else "lower"
        return figures.values.get(f"{self.figure}_{bound}")

    def applies_to(self, app: str) -> bool:
        return not self.apps or app in self.apps

    def breaches(self, value: float) -> bool:
        return value < self.threshold if self.op == "below" else value > self.threshold

    def clears(self, value: float) -> bool:
        """Back on the healthy side of the resolve threshold (hysteresis)."""
        if self.op == "below":
            return value >= self.resolve_threshold
        return value <= self.resolve_threshold


@dataclass(frozen=True, slots=True)
class WindowFigures:
    """One app's figures over one window, at evaluation time `at` (epoch seconds)."""

    app: str
    at: float
    events: int
    values: Mapping[str, float | None] = field(default_factory=dict)
    #: per figure, how many things it is a share of when that is not the events (the judge
    #: error rate is a share of judge calls: one failed call among 20 events is not 20 calls)
    counts: Mapping[str, int] = field(default_factory=dict)

    def sample_size(self, figure: str) -> int:
        """What `min_events` is compared with for `figure`."""
        return self.counts.get(figure, self.events)

    @classmethod
    def from_counts(cls, app: str, at: float, *, events: int, **counts: int) -> WindowFigures:
        """Figures from window counts (agents/output/records.py COUNT_FIELDS): exact ratios,
        None with a zero denominator (no data); support and hallucination are estimates with
        their bounds and judged claims (monitor.estimation.window.window_values); the cheap
        tier's own shares are `cheap_support` and `cheap_hallucination`."""
        c = counts.get
        claims = c("claims", 0)
        values: dict[str, float | None] = {
            "validity": _ratio(c("valid_citations", 0), c("citations", 0)),
            "coverage": _ratio(c("cited_claims", 0), claims),
            "judge_error_rate": _ratio(c("judge_errors", 0), c("judge_calls", 0)),
            "dlq_rate": _ratio(c("rejected", 0), events),
            "cheap_support": _ratio(c("supported_claims", 0), claims),
            "cheap_hallucination": _ratio(c("unsupported_claims", 0), claims),
            "abstention": _ratio(c("abstained_answers", 0), events - c("rejected", 0)),
        }
        values.update(window_values(counts))
        # the judge error rate's minimum counts judge calls, not events
        sizes = {"judge_error_rate": c("judge_calls", 0)}
        return cls(app=app, at=at, events=events, values=values, counts=sizes)

    def describe(self, figure: str) -> str:
        """`figure` as the alert text says it: an estimate with its interval and n."""
        value = self.values.get(figure)
        if value is None:
            return f"{figure} n/a"
        lo, hi = self.values.get(f"{figure}_lower"), self.values.get(f"{figure}_upper")
        if figure not in ESTIMATED or lo is None or hi is None:
            return f"{figure} {value:.3f}"
        n = int(self.values.get(f"{figure}_judged") or 0)
        return f"{figure} {value:.3f} (95% interval {lo:.3f}-{hi:.3f}, {n} judged claims)"


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator > 0 else None
