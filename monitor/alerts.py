"""Threshold alert rules and their state machine (inactive → pending → firing → inactive).

Pure: no I/O beyond reading a rules file, no clocks. Time is the caller's evaluation time
(event time of the aggregate window), so replaying the same windows after a restart or a
rebalance yields the same states and the same notification ids; an older window than the one
last evaluated is ignored. States serialise to plain dicts for a Faust table.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import yaml

from monitor.errors import ConfigError
from monitor.estimation.window import window_values

DEFAULT_RULES_FILE = Path(__file__).with_name("rules_default.yaml")

#: What a rule can watch; each is a ratio in [0, 1] computed over one window of one app.
FIGURES: tuple[str, ...] = (
    "validity",  # valid citations / citations
    "support",  # estimated share of claims the judge would call supported (an interval)
    "hallucination",  # estimated share of claims not supported by their evidence (an interval)
    "coverage",  # cited claims / claims
    "judge_error_rate",  # failed judge calls / judge calls
    "dlq_rate",  # rejected events / events
)
#: Figures that are estimates with a 95% interval (monitor/estimation): a rule on them watches the
#: bound on the far side of its threshold (a `below` rule the upper bound, an `above` rule the
#: lower), so it fires on evidence, and only once `min_judged` claims were judged.
ESTIMATED: tuple[str, ...] = ("support", "hallucination")
SEVERITIES: tuple[str, ...] = ("critical", "warning", "info")

Op = Literal["below", "above"]
Status = Literal["inactive", "pending", "firing"]

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_RULE_KEYS = frozenset(
    {"name", "figure", "below", "above", "resolve_at", "window", "min_events", "for",
     "severity", "apps", "summary", "min_judged", "no_data"}
)  # fmt: skip


def parse_duration(value: object, what: str) -> float:
    """Seconds from `90`, `90s`, `5m`, `1h`, `250ms`; ConfigError otherwise."""
    if isinstance(value, bool):
        raise ConfigError(f"{what}: expected a duration like 5m, got {value!r}")
    if isinstance(value, int | float):
        seconds = float(value)
    else:
        match = _DURATION.match(str(value).strip())
        if not match:
            raise ConfigError(f"{what}: expected a duration like 30s, 5m or 1h, got {value!r}")
        seconds = float(match.group(1)) * _UNIT_SECONDS[match.group(2) or "s"]
    if seconds < 0:
        raise ConfigError(f"{what}: duration must not be negative")
    return seconds


def format_duration(seconds: float) -> str:
    """The shortest Prometheus duration for whole seconds: 300 → "5m", 90 → "90s"."""
    whole = round(seconds)
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if whole and whole % size == 0:
            return f"{whole // size}{unit}"
    return f"{whole}s"


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


@dataclass(frozen=True, slots=True)
class AlertState:
    status: Status = "inactive"
    since: float | None = None  # start of the current breach (pending or firing)
    fired_at: float | None = None
    updated: float | None = None  # `at` of the newest figures evaluated
    value: float | None = None
    notification_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "since": self.since,
            "fired_at": self.fired_at,
            "updated": self.updated,
            "value": self.value,
            "notification_id": self.notification_id,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> AlertState:
        if not data:
            return cls()
        status = data.get("status", "inactive")
        if status not in ("inactive", "pending", "firing"):
            status = "inactive"
        return cls(
            status=status,
            since=_opt_float(data.get("since")),
            fired_at=_opt_float(data.get("fired_at")),
            updated=_opt_float(data.get("updated")),
            value=_opt_float(data.get("value")),
            notification_id=data.get("notification_id"),
        )


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True, slots=True)
class Transition:
    kind: Literal["firing", "resolved"]
    rule: AlertRule
    app: str
    at: float  # when it fired or resolved
    started_at: float  # start of the breach: the annotation's time
    value: float
    figures: WindowFigures
    notification_id: str
    no_data: bool = False  # resolved because the app's window emptied
    examples: tuple[str, ...] = ()  # ranked: the answer that moved the rate most first
    evidence_url: str | None = None  # the evidence page for this app, rule and breach
    runbook_url: str | None = None


def notification_id(rule: str, app: str, since: float) -> str:
    """Same rule, app and breach start → same id, on whichever worker evaluates it."""
    raw = f"{rule}\x00{app}\x00{round(since * 1000)}".encode()
    return hashlib.sha256(raw).hexdigest()[:16]


def evaluate(
    rule: AlertRule, state: AlertState, figures: WindowFigures
) -> tuple[AlertState, Transition | None]:
    """Advance one rule's state for one app; a Transition when it fires or resolves."""
    if not rule.applies_to(figures.app):
        return state, None
    at = figures.at
    if state.updated is not None and at < state.updated:
        return state, None  # a replayed, older window must not move the state backwards
    value = rule.observed(figures)
    if figures.events == 0 and rule.no_data == "resolve" and state.status != "inactive":
        if state.status == "pending":
            return AlertState(updated=at), None
        since = state.since if state.since is not None else at
        ident = state.notification_id or notification_id(rule.name, figures.app, since)
        last = state.value if state.value is not None else rule.resolve_threshold
        resolved = Transition("resolved", rule, figures.app, at, since, last, figures, ident, True)
        return AlertState(updated=at), resolved
    if value is None or figures.sample_size(rule.figure) < rule.min_events:
        # Too little data to decide either way: hold, so quiet periods neither fire nor flap.
        return replace(state, updated=at), None
    if state.status == "firing":
        if not rule.clears(value):
            return replace(state, updated=at, value=value), None
        since = state.since if state.since is not None else at
        ident = state.notification_id or notification_id(rule.name, figures.app, since)
        resolved = Transition("resolved", rule, figures.app, at, since, value, figures, ident)
        return AlertState(updated=at, value=value), resolved
    if not rule.breaches(value):
        return AlertState(updated=at, value=value), None
    since = state.since if state.status == "pending" and state.since is not None else at
    if at - since < rule.for_seconds:
        return AlertState("pending", since=since, updated=at, value=value), None
    ident = notification_id(rule.name, figures.app, since)
    fired = AlertState("firing", since, fired_at=at, updated=at, value=value, notification_id=ident)
    return fired, Transition("firing", rule, figures.app, at, since, value, figures, ident)


def evaluate_rules(
    rules: tuple[AlertRule, ...],
    states: Mapping[str, Mapping[str, Any]],
    figures: WindowFigures,
) -> tuple[dict[str, dict[str, Any]], list[Transition]]:
    """All rules for one app. `states` maps rule name → AlertState dict (a table value)."""
    new_states: dict[str, dict[str, Any]] = {}
    transitions: list[Transition] = []
    for rule in rules:
        state, change = evaluate(rule, AlertState.from_dict(states.get(rule.name)), figures)
        new_states[rule.name] = state.to_dict()
        if change is not None:
            transitions.append(change)
    return new_states, transitions


# --- loading -------------------------------------------------------------------------------


def load_rules(path: str | Path | None = None) -> tuple[AlertRule, ...]:
    """Rules from a YAML file; the built-in defaults when `path` is empty."""
    source = Path(path) if path else DEFAULT_RULES_FILE
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read rules file {source}: {exc.strerror}") from exc
    return parse_rules(text, str(source))


def parse_rules(text: str, origin: str = "<rules>") -> tuple[AlertRule, ...]:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{origin} is not valid YAML: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("rules"), list):
        raise ConfigError(f"{origin}: expected a mapping with a `rules` list")
    unknown = set(doc) - {"defaults", "rules"}
    if unknown:
        raise ConfigError(f"{origin}: unknown top-level keys {sorted(unknown)}")
    defaults = doc.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise ConfigError(f"{origin}: `defaults` must be a mapping")
    rules = tuple(
        _rule({**defaults, **raw} if isinstance(raw, dict) else raw, f"{origin} rule {i + 1}")
        for i, raw in enumerate(doc["rules"])
    )
    names = [r.name for r in rules]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"{origin}: duplicate rule names {dupes}")
    return rules


def _rule(raw: object, where: str) -> AlertRule:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping")
    unknown = set(raw) - _RULE_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown keys {sorted(unknown)}")
    name = str(raw.get("name", ""))
    if not _NAME.match(name):
        raise ConfigError(f"{where}: name must match {_NAME.pattern}, got {name!r}")
    where = f"rule {name}"
    figure = raw.get("figure")
    if figure not in FIGURES:
        raise ConfigError(f"{where}: figure must be one of {', '.join(FIGURES)}")
    if ("below" in raw) == ("above" in raw):
        raise ConfigError(f"{where}: give exactly one of `below` or `above`")
    op: Op = "below" if "below" in raw else "above"
    threshold = _unit_float(raw[op], f"{where}: {op}")
    resolve = _unit_float(raw.get("resolve_at", threshold), f"{where}: resolve_at")
    if (op == "below" and resolve < threshold) or (op == "above" and resolve > threshold):
        side = "at or above" if op == "below" else "at or below"
        raise ConfigError(f"{where}: resolve_at must be {side} the threshold {threshold}")
    window = parse_duration(raw.get("window", 300), f"{where}: window")
    if window < 1:
        raise ConfigError(f"{where}: window must be at least 1s")
    min_events = raw.get("min_events", 20)
    if isinstance(min_events, bool) or not isinstance(min_events, int) or min_events < 1:
        raise ConfigError(f"{where}: min_events must be a positive integer")
    min_judged = raw.get("min_judged", 30)
    if isinstance(min_judged, bool) or not isinstance(min_judged, int) or min_judged < 2:
        raise ConfigError(f"{where}: min_judged must be an integer of at least 2")
    severity = str(raw.get("severity", "warning"))
    if severity not in SEVERITIES:
        raise ConfigError(f"{where}: severity must be one of {', '.join(SEVERITIES)}")
    no_data = str(raw.get("no_data", "resolve"))
    if no_data not in ("resolve", "hold"):
        raise ConfigError(f"{where}: no_data must be resolve or hold")
    apps = raw.get("apps") or []
    if not isinstance(apps, list) or not all(isinstance(a, str) and a for a in apps):
        raise ConfigError(f"{where}: apps must be a list of app names")
    return AlertRule(
        name=name,
        figure=str(figure),
        op=op,
        threshold=threshold,
        resolve_threshold=resolve,
        window_seconds=window,
        min_events=min_events,
        for_seconds=parse_duration(raw.get("for", 120), f"{where}: for"),
        severity=severity,
        apps=tuple(apps),
        summary=str(raw.get("summary", "")),
        min_judged=min_judged,
        no_data=no_data,
    )


def _unit_float(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{what}: expected a number, got {value!r}")
    if not 0.0 <= float(value) <= 1.0:
        raise ConfigError(f"{what}: ratios are between 0 and 1, got {value}")
    return float(value)
