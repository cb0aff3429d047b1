"""The alert glue's record of each transition for the audit trail (the evidence page shows
the alert's own figures from it)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry

from agents.stream.alerting import Alerting
from agents.telemetry.metrics import build_metrics
from monitor.alerting.alerts import AlertRule, WindowFigures

RULE = AlertRule("validity_low", "validity", "below", 0.95, 0.97, min_events=5, for_seconds=0)


def fig(at: float, validity: float, app: str = "a") -> WindowFigures:
    return WindowFigures(app=app, at=at, events=10, values={"validity": validity})


def test_each_transition_is_recorded_and_a_failing_recorder_costs_no_alert() -> None:
    """The recorder writes transitions to the audit trail (the evidence page reads them); if
    it raises, the alert still fires and notifies."""
    recorded: list[tuple[float, str]] = []
    metrics = build_metrics(CollectorRegistry())
    alerting = Alerting((RULE,), metrics)
    alerting.recorder = lambda t, kind: recorded.append((t.at, kind))
    alerting.observe(fig(1, 0.99))
    alerting.observe(fig(2, 0.5))  # fires
    # while it fires, its figures again once a window (300 s) has passed since the last record
    for at in (100, 301, 302, 500, 603):
        assert alerting.observe(fig(at, 0.5)) == []
    alerting.observe(fig(700, 0.99))  # resolves
    alerting.observe(fig(1100, 0.99))  # resolved: nothing more
    assert recorded == [
        (2, "firing"),
        (302, "still_firing"),
        (603, "still_firing"),
        (700, "resolved"),
    ]

    def broken(*_: object) -> None:
        raise RuntimeError("producer gone")

    alerting.recorder = broken
    [again] = alerting.observe(fig(1200, 0.5))
    assert again.kind == "firing"
    firing = {"rule": "validity_low", "app": "a"}
    assert metrics.registry.get_sample_value("ragmon_alert_firing", firing) == 1
    sent = {"sink": "log", "outcome": "sent"}
    assert metrics.registry.get_sample_value("ragmon_alert_notifications_total", sent) == 3
