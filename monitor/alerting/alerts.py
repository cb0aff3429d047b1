"""Threshold alert rules and their state machine (inactive → pending → firing → inactive).

Pure: no I/O, no clocks. Time is the caller's evaluation time (event time of the aggregate
window), so replaying the same windows after a restart or a rebalance yields the same states and
the same notification ids; an older window than the one last evaluated is ignored. States serialise to plain dicts for a Faust table.

The rules and the window figures they watch are in monitor/alerting/alert_rules.py, reading rules files
and durations in monitor/alerting/rules_file.py; their names are re-exported here, where the rest of
ragmon imports them from.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from monitor.alerting.alert_rules import (
    ESTIMATED,
    FIGURES,
    SEVERITIES,
    AlertRule,
    Op,
    WindowFigures,
)
from monitor.alerting.rules_file import (
    DEFAULT_RULES_FILE,
    format_duration,
    load_rules,
    parse_duration,
    parse_rules,
)

__all__ = [
    "DEFAULT_RULES_FILE",
    "ESTIMATED",
    "FIGURES",
    "SEVERITIES",
    "AlertRule",
    "AlertState",
    "Op",
    "Status",
    "Transition",
    "WindowFigures",
    "evaluate",
    "evaluate_rules",
    "format_duration",
    "load_rules",
    "notification_id",
    "parse_duration",
    "parse_rules",
]

Status = Literal["inactive", "pending", "firing"]


@dataclass(frozen=True, slots=True)
class AlertState:
    status: Status = "inactive"
    since: float | None = None  # start of the current breach (pending or firing)
    fired_at: float | None = None
    updated: float | None = None  # `at` of the newest figures evaluated
    value: float | None = None
    notification_id: str | None = None
    #: firing, with the figure back past resolve_at since then (keep_firing_for counts from it)
    quiet_since: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "since": self.since,
            "fired_at": self.fired_at,
            "updated": self.updated,
            "value": self.value,
            "notification_id": self.notification_id,
            "quiet_since": self.quiet_since,
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
            quiet_since=_opt_float(data.get("quiet_since")),
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
    fired_at: float | None = None  # when it fired (a resolved transition: how long it fired)

    @property
    def firing_seconds(self) -> float:
        """How long the alert has been firing (0 when it fires now)."""
        return max(0.0, self.at - self.fired_at) if self.fired_at is not None else 0.0


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
        resolved = Transition(
            "resolved", rule, figures.app, at, since, last, figures, ident, True,
            fired_at=state.fired_at,
        )  # fmt: skip
        return AlertState(updated=at), resolved
    if value is None or figures.sample_size(rule.figure) < rule.min_events:
        # Too little data to decide either way: hold, so quiet periods neither fire nor flap.
        return replace(state, updated=at), None
    if state.status == "firing":
        if not rule.clears(value):
            return replace(state, updated=at, value=value, quiet_since=None), None
        # back past resolve_at: resolved once it stays there keep_firing_for (a dip of the
        # bound in the middle of an incident is not the end of it)
        quiet = state.quiet_since if state.quiet_since is not None else at
        if at - quiet < rule.keep_firing_for:
            return replace(state, updated=at, value=value, quiet_since=quiet), None
        since = state.since if state.since is not None else at
        ident = state.notification_id or notification_id(rule.name, figures.app, since)
        resolved = Transition(
            "resolved", rule, figures.app, at, since, value, figures, ident,
            fired_at=state.fired_at,
        )  # fmt: skip
        return AlertState(updated=at, value=value), resolved
    if not rule.breaches(value):
        return AlertState(updated=at, value=value), None
    since = state.since if state.status == "pending" and state.since is not None else at
    if at - since < rule.for_seconds:
        return AlertState("pending", since=since, updated=at, value=value), None
    ident = notification_id(rule.name, figures.app, since)
    fired = AlertState("firing", since, fired_at=at, updated=at, value=value, notification_id=ident)
    firing = Transition("firing", rule, figures.app, at, since, value, figures, ident, fired_at=at)
    return fired, firing


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
