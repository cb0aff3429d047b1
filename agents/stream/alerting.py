"""Alert glue for the aggregate agent: evaluate rules on each window update, keep the state in a
table, drive `ragmon_alert_firing`, and hand transitions to Grafana (or the log).

Usage from the aggregate agent (one owner per app, since `scores` is partitioned by app):

    alerting = build_alerting(settings, metrics, store=alert_table)   # a Faust Table keyed by app
    alerting.observe(WindowFigures.from_counts(app, at, events=..., ...), examples=failing_ids)
    alerting.restore(app)   # on partition assignment: gauge from the stored state, no notification
    alerting.forget(app)    # on partition revoke: drop this worker's gauge series

The state is a plain dict per app, reassigned (never mutated in place) so a Faust table writes
it to its changelog; a new owner after a rebalance continues from it without re-notifying.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

import structlog
from faust import current_event

from agents.telemetry.metrics import Metrics
from monitor.alerting.alerts import (
    ESTIMATED,
    AlertRule,
    AlertState,
    Transition,
    WindowFigures,
    evaluate_rules,
    load_rules,
)
from monitor.config.settings import Settings
from monitor.oncall.contribution import FIGURE_FIELDS, rank, top_ids
from monitor.oncall.links import base_url, evidence_url, runbook_url, since_for

log = structlog.get_logger("ragmon.alerts")

MAX_EXAMPLES = 5


class TableStore(MutableMapping[str, Any]):
    """The alert-state table, writable from the aggregate's timer too (rules are evaluated every
    second from the wall clock, not only when an answer arrives). Outside stream iteration Faust
    refuses a table write, since it would not know the changelog partition: it is the app's
    `scores` partition (`partition_of`), so the state follows the app to its next owner."""

    def __init__(self, table: Any, partition_of: Callable[[str], int]) -> None:
        self.table = table
        self.partition_of = partition_of

    def __getitem__(self, key: str) -> Any:
        return self.table[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if current_event() is not None:
            self.table[key] = value
            return
        self.table.data[key] = value
        self.table.send_changelog(self.partition_of(key), key, value)

    def __delitem__(self, key: str) -> None:
        del self.table[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.table)

    def __len__(self) -> int:
        return len(self.table)


class Notifier(Protocol):
    def submit(self, transition: Transition) -> None: ...

    def close(self, timeout: float = 5.0) -> None: ...


class Alerting:
    def __init__(
        self,
        rules: tuple[AlertRule, ...],
        metrics: Metrics | None = None,
        notifier: Notifier | None = None,
        store: MutableMapping[str, Any] | None = None,
        links_base: str | None = None,
        runbook: str = "",
    ) -> None:
        self.rules = rules
        self.links_base = links_base  # RAGMON_PUBLIC_URL or the worker's address
        self.runbook = runbook
        self.metrics = metrics
        self.notifier = notifier
        self.store: MutableMapping[str, Any] = store if store is not None else {}
        #: writes each transition to the audit trail (monitor.oncall.alert_record), so the
        #: evidence page shows the alert's own figures, with its kind: firing, resolved, or
        #: still_firing (a firing rule's figures again once a window has passed since the last
        #: record, so a page opened long after the alert still finds them); set by create_app
        self.recorder: Callable[[Transition, str], None] | None = None
        self._recorded: dict[tuple[str, str], float] = {}  # (rule, app) → last record's time

    def _set_gauges(self, app: str, states: dict[str, Any]) -> None:
        if self.metrics is None:
            return
        for rule in self.rules:
            if rule.applies_to(app):
                firing = AlertState.from_dict(states.get(rule.name)).status == "firing"
                self.metrics.alert_firing.labels(rule=rule.name, app=app).set(1 if firing else 0)

    def _set_bounds(self, figures: WindowFigures) -> None:
        """`ragmon_alert_bound_ratio`: the bound each estimated rule compared, at its own level,
        for the Prometheus and Grafana rules, which cannot compute it (docs/alerting.md)."""
        if self.metrics is None:
            return
        for rule in self.rules:
            if rule.figure not in ESTIMATED or not rule.applies_to(figures.app):
                continue
            value = rule.observed(figures)
            if value is None or figures.sample_size(rule.figure) < rule.min_events:
                with contextlib.suppress(KeyError):
                    self.metrics.alert_bound.remove(rule.name, figures.app)
            else:
                self.metrics.alert_bound.labels(rule=rule.name, app=figures.app).set(value)

    def observe(
        self,
        figures: WindowFigures,
        examples: Sequence[str] = (),
        candidates: Sequence[tuple[str, Mapping[str, int]]] = (),
        totals: Mapping[str, int] | None = None,
    ) -> list[Transition]:
        """Evaluate every rule on one app's current window; returns the transitions.

        `candidates` (event id, counts) are the window's failing answers: a transition's
        examples are those that moved its rule's figure most (monitor.oncall.contribution),
        against the window's `totals`; `examples` is the fallback for other figures."""
        before = dict(self.store.get(figures.app) or {})
        states, transitions = evaluate_rules(self.rules, before, figures)
        if states != before:
            self.store[figures.app] = states
        self._set_gauges(figures.app, states)
        self._set_bounds(figures)
        transitions = [self._explained(t, examples, candidates, totals) for t in transitions]
        for transition in transitions:
            sample = transition.examples
            log.warning(
                "alert " + transition.kind,
                rule=transition.rule.name,
                app=transition.app,
                severity=transition.rule.severity,
                figure=transition.rule.figure,
                value=round(transition.value, 4),
                figures=figures.describe(transition.rule.figure),
                threshold=transition.rule.threshold,
                resolve_at=transition.rule.resolve_threshold,
                events=figures.events,
                since=transition.started_at,
                firing_for_s=round(transition.firing_seconds),
                notification_id=transition.notification_id,
                examples=list(sample),
                evidence=transition.evidence_url,
                no_data=transition.no_data,
            )
            self._record(transition, transition.kind)
            if self.notifier is not None:
                self.notifier.submit(transition)
            elif self.metrics is not None:
                self.metrics.alert_notifications.labels(sink="log", outcome="sent").inc()
        if self.recorder is not None:
            self._still_firing(figures, states, {t.rule.name for t in transitions})
        return transitions

    def _record(self, t: Transition, kind: str) -> None:
        if self.recorder is None:
            return
        self._recorded[(t.rule.name, t.app)] = t.at
        try:
            self.recorder(t, kind)
        except Exception:  # the page loses a figure; the alert itself must go on
            log.exception("alert not written to the audit trail", rule=t.rule.name)

    def _still_firing(
        self, figures: WindowFigures, states: Mapping[str, Any], changed: set[str]
    ) -> None:
        for rule in self.rules:
            state = AlertState.from_dict(states.get(rule.name))
            last = self._recorded.get((rule.name, figures.app))
            if state.status != "firing" or rule.name in changed:
                continue
            if last is not None and figures.at - last < rule.window_seconds:
                continue
            value = rule.observed(figures)
            if value is None:
                continue
            since = state.since if state.since is not None else figures.at
            ident = state.notification_id or ""
            t = Transition("firing", rule, figures.app, figures.at, since, value, figures, ident)
            self._record(self._explained(t, (), (), None), "still_firing")

    def _explained(
        self,
        t: Transition,
        examples: Sequence[str],
        candidates: Sequence[tuple[str, Mapping[str, int]]],
        totals: Mapping[str, int] | None,
    ) -> Transition:
        sample = tuple(examples[:MAX_EXAMPLES])
        if candidates and t.rule.figure in FIGURE_FIELDS:
            ranked = rank(candidates, t.rule.figure, t.rule.op, totals)
            sample = top_ids(ranked, MAX_EXAMPLES)
        if self.links_base is None:
            return replace(t, examples=sample)
        start = t.started_at - t.rule.window_seconds
        return replace(
            t,
            examples=sample,
            evidence_url=evidence_url(self.links_base, t.app, t.rule.name, start, t.at),
            runbook_url=runbook_url(self.runbook, self.links_base, t.rule.name),
        )

    def restore(self, app: str) -> None:
        """After taking over an app: export its stored alert state, notify nothing."""
        self._set_gauges(app, dict(self.store.get(app) or {}))

    def forget(self, app: str) -> None:
        """After losing an app to another worker: its gauges are that worker's to export."""
        if self.metrics is None:
            return
        for rule in self.rules:
            for gauge in (self.metrics.alert_firing, self.metrics.alert_bound):
                with contextlib.suppress(KeyError):
                    gauge.remove(rule.name, app)

    def firing(self) -> list[tuple[str, str]]:
        """(rule, app) pairs firing in the stored state of the apps this worker holds."""
        return [
            (rule, app)
            for app, states in list(self.store.items())
            for rule, state in (states or {}).items()
            if AlertState.from_dict(state).status == "firing"
        ]

    def firing_links(self) -> list[dict[str, str]]:
        """For /status: what fires on the apps this worker holds, with the evidence link."""
        rules = {r.name: r for r in self.rules}
        out = []
        for name, app in sorted(self.firing()):
            entry = {"rule": name, "app": app}
            rule = rules.get(name)
            if self.links_base is not None and rule is not None:
                since = since_for(rule.window_seconds, rule.for_seconds)
                entry["evidence"] = evidence_url(self.links_base, app, name, since=since)
            out.append(entry)
        return out

    def close(self, timeout: float = 5.0) -> None:
        if self.notifier is not None:
            self.notifier.close(timeout)


def build_notifier(settings: Settings, metrics: Metrics | None) -> Notifier | None:
    """A Grafana notifier when RAGMON_GRAFANA_URL is set; None means the structured log only."""
    if not settings.grafana_url:
        return None
    from agents.grafana.client import Grafana
    from agents.grafana.notifier import GrafanaNotifier

    token = settings.grafana_token.get_secret_value() if settings.grafana_token else None
    grafana = Grafana(
        settings.grafana_url,
        token,
        org_id=settings.grafana_org_id,
        timeout=settings.grafana_timeout_seconds,
    )
    return GrafanaNotifier(grafana, metrics, queue_size=settings.grafana_queue_size)


def build_alerting(
    settings: Settings,
    metrics: Metrics | None,
    store: MutableMapping[str, Any] | None = None,
    notifier: Notifier | None = None,
    port: int | None = None,
) -> Alerting:
    rules = load_rules(settings.rules_file)
    for rule in rules:
        if rule.window_seconds != settings.window_seconds:
            log.warning(
                "rule window differs from the aggregate window; in-stream evaluation uses the latter",
                rule=rule.name,
                rule_window=rule.window_seconds,
                aggregate_window=settings.window_seconds,
            )
    if notifier is None:
        notifier = build_notifier(settings, metrics)
    base = base_url(settings.public_url, settings.metrics_host, port or settings.metrics_port)
    return Alerting(rules, metrics, notifier, store, base, settings.runbook_url)
