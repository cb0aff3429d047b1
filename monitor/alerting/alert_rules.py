"""What an alert rule is and what it watches: the figures of one app's window.

A rule compares one figure (FIGURES) of a window with a threshold; for the estimated figures
(ESTIMATED) it compares the interval's far bound, and only once enough claims were judged.
Pure. The state machine that runs the rules is monitor/alerting/alerts.py; monitor/alerting/rules_file.py reads
them from YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from monitor.estimation.human import window_human
from monitor.estimation.judge_error import JudgeError
from monitor.estimation.ppi import LEVEL
from monitor.estimation.window import rate_figures, window_values

#: What a rule can watch; each is a ratio in [0, 1] computed over one window of one app.
FIGURES: tuple[str, ...] = (
    "validity",  # valid citations / citations
    "support",  # estimated share of claims the judge would call supported (an interval)
    "hallucination",  # estimated share of claims not supported by their evidence (an interval)
    "coverage",  # cited claims / claims
    "judge_error_rate",  # failed judge calls / judge calls
    "dlq_rate",  # rejected events / events
    # the judge against human labels over the calibration horizon: the lowest upper bound of its
    # sensitivity and specificity (both rates); its sample size is the smaller class's labels
    "judge_agreement",
    "abstention",  # answers whose every claim abstains / checked answers (a refusal surge)
)
WEEK_SECONDS = 7 * 86400.0
#: Effectively independent looks per window length. A week holds WEEK/window windows with no
#: answer in common, but a window watched every second crosses its bound more often than those
#: disjoint windows would: measured with `ragmon eval --alerts` at the threshold (true rate
#: 0.10, level from a budget of 0.5 with 1 look per window), 1.8× as often at 10 answers/s and
#: 3.7× at 2 (for a continuously watched moving sum the factor grows like z², Pickands). 4
#: calibrates 2 answers/s (budgets 0.5-1.5 → 0.33-1.33 pages a week at the threshold). It is an
#: approximation: at 10 answers/s a stream sitting exactly at the threshold paged 2.5 a week for
#: a budget of 1, as the stricter bound lets a firing alert resolve and fire again on the next
#: crossing (docs/alerting.md, "Pages a rotation can trust").
LOOKS_PER_WINDOW = 4.0


def level_for(false_pages_per_week: float, window_seconds: float) -> float:
    """The two-sided level whose far bound fires a rule about `false_pages_per_week` times a
    week on a stream whose true rate sits at the threshold: LOOKS_PER_WINDOW·WEEK/window
    effectively independent looks, each a one-sided test at (1 − level)/2 (docs/alerting.md)."""
    looks = LOOKS_PER_WINDOW * WEEK_SECONDS / window_seconds
    return 1.0 - 2.0 * false_pages_per_week / looks


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
    #: estimated figures: the two-sided level of the interval whose far bound the rule compares
    #: (rules file `level`, or derived from `false_pages_per_week`: level_for)
    level: float = LEVEL
    #: a firing alert resolves only once its figure has stayed back past `resolve_at` this long
    #: (Prometheus' keep_firing_for): one page per incident, and the guard against flapping
    keep_firing_for: float = 0.0

    def observed(self, figures: WindowFigures) -> float | None:
        """What the rule compares with its thresholds; None: no decision."""
        if self.figure not in ESTIMATED:
            return figures.values.get(self.figure)
        judged = figures.values.get(f"{self.figure}_judged")
        if judged is None or judged < self.min_judged:
            return None
        bound = "upper" if self.op == "below" else "lower"
        calibration = figures.calibration.get(self.figure)
        if calibration is not None and figures.sums:
            # on the human scale once calibrated, at the rule's own level: the 95% bounds in
            # `values` are the gauges', not the rule's
            human = window_human(figures.sums, self.figure, replace(calibration, level=self.level))
            if human is not None and human.lower is not None and human.upper is not None:
                return human.upper if self.op == "below" else human.lower
        if self.level == LEVEL or not figures.sums:
            return figures.values.get(f"{self.figure}_{bound}")
        estimate = rate_figures(figures.sums, self.figure, self.level).estimate
        if estimate is None:
            return None
        return estimate.upper if self.op == "below" else estimate.lower

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
    #: the window's estimation sums, for a rule whose interval is at another level than 95%
    sums: Mapping[str, int] = field(default_factory=dict)
    #: per estimated figure, the judge-vs-human table it is corrected with once calibrated
    #: (agents/stream/human_scale.py); empty: the judge's scale
    calibration: Mapping[str, JudgeError] = field(default_factory=dict)

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
        return cls(app=app, at=at, events=events, values=values, counts=sizes, sums=counts)

    def describe(self, figure: str) -> str:
        """`figure` as the alert text says it: an estimate with its interval and n."""
        value = self.values.get(figure)
        if value is None:
            return f"{figure} n/a"
        lo, hi = self.values.get(f"{figure}_lower"), self.values.get(f"{figure}_upper")
        if figure not in ESTIMATED or lo is None or hi is None:
            return f"{figure} {value:.3f}"
        n = int(self.values.get(f"{figure}_judged") or 0)
        return f"{figure} {value:.3f} (95% interval {lo:.3f}-{hi:.3f}, {n} judged claims{self._scale(figure)})"

    def _scale(self, figure: str) -> str:
        """Which scale the figure is on, when the stream says (agents/stream/human_scale.py)."""
        human = self.values.get(f"{figure}_scale_human")
        if human is None:
            return ""
        if human:
            labels = int(self.values.get(f"{figure}_calibration_labels") or 0)
            return f"; human scale, {labels} calibration labels"
        return "; judge scale"


def _ratio(numerator: int, denominator: int) -> float | None:
    return numerator / denominator if denominator > 0 else None
