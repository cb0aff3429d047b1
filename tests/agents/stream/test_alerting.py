"""Alert glue (gauges, log sink, table state), sync comparisons, PromQL and render helpers."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry

from agents.commands.grafana import run_render
from agents.grafana.model import grafana_alert_rules, rule_uid
from agents.grafana.promql import alert_name, figure_query, grafana_expr, prometheus_expr
from agents.grafana.render import render_files
from agents.grafana.sync import folder_uid, is_subset, plan
from agents.stream.alerting import Alerting, build_alerting
from agents.telemetry.logs import configure_logging
from agents.telemetry.metrics import Metrics, build_metrics
from monitor.alerting.alerts import AlertRule, WindowFigures, load_rules
from monitor.config.settings import load_settings

RULE = AlertRule("validity_low", "validity", "below", 0.95, 0.97, min_events=5, for_seconds=0)


@pytest.fixture
def metrics() -> Metrics:
    return build_metrics(CollectorRegistry())


def gauge(metrics: Metrics, app: str) -> float | None:
    return metrics.registry.get_sample_value(
        "ragmon_alert_firing", {"rule": "validity_low", "app": app}
    )


def notifications(metrics: Metrics, sink: str, outcome: str) -> float | None:
    return metrics.registry.get_sample_value(
        "ragmon_alert_notifications_total", {"sink": sink, "outcome": outcome}
    )


def fig(at: float, validity: float, app: str = "a") -> WindowFigures:
    return WindowFigures(app=app, at=at, events=10, values={"validity": validity})


def test_without_grafana_alerts_go_to_the_log(
    metrics: Metrics, capsys: pytest.CaptureFixture[str]
) -> None:
    table: dict[str, object] = {}
    alerting = Alerting((RULE,), metrics, notifier=None, store=table)
    assert gauge(metrics, "a") is None
    alerting.observe(fig(1, 0.99))
    assert gauge(metrics, "a") == 0
    [fired] = alerting.observe(fig(2, 0.5), examples=["e1", "e2"])
    assert fired.examples == ("e1", "e2")
    assert gauge(metrics, "a") == 1 and alerting.firing() == [("validity_low", "a")]
    assert notifications(metrics, "log", "sent") == 1
    assert table["a"]["validity_low"]["status"] == "firing"  # type: ignore[index]
    out = _logged(capsys)
    assert "alert firing" in out and "validity_low" in out


def test_restore_and_forget_follow_partition_ownership(metrics: Metrics) -> None:
    table: dict[str, object] = {}
    Alerting((RULE,), metrics, store=table).observe(fig(1, 0.5))
    fresh = build_metrics(CollectorRegistry())  # another worker takes the app over
    owner = Alerting((RULE,), fresh, store=table)
    owner.restore("a")
    assert gauge(fresh, "a") == 1 and notifications(fresh, "log", "sent") is None
    owner.forget("a")
    assert gauge(fresh, "a") is None
    owner.forget("never-seen")  # no error


def test_unchanged_state_is_not_rewritten(metrics: Metrics) -> None:
    class CountingTable(dict[str, object]):
        writes = 0

        def __setitem__(self, key: str, value: object) -> None:
            self.writes += 1
            super().__setitem__(key, value)

    table = CountingTable()
    alerting = Alerting((RULE,), metrics, store=table)
    alerting.observe(fig(1, 0.5))
    alerting.observe(fig(1, 0.5))  # same window again: same state, no changelog write
    assert table.writes == 1


def test_build_alerting_reads_the_rules_file(tmp_path: Path, metrics: Metrics) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: [{name: dlq, figure: dlq_rate, above: 0.5, window: 300}]")
    settings = load_settings(rules_file=str(rules))
    alerting = build_alerting(settings, metrics)
    assert [r.name for r in alerting.rules] == ["dlq"] and alerting.notifier is None


def test_promql_for_rules_hand_written() -> None:
    q = figure_query("validity", "5m", apps=("a", "b"), min_events=20)
    assert q.value == (
        'sum by (app) (rate(ragmon_citations_total{status="valid",app=~"a|b"}[5m])) / '
        'sum by (app) (rate(ragmon_citations_total{app=~"a|b"}[5m]))'
    )
    assert q.enough == 'sum by (app) (increase(ragmon_events_total{app=~"a|b"}[5m])) >= 20'
    no_hysteresis = AlertRule("dlq", "dlq_rate", "above", 0.1, 0.1, 60, 5, 0)
    assert prometheus_expr(no_hysteresis) == (
        "((sum(rate(ragmon_dlq_total[1m])) / sum(rate(ragmon_events_total[1m]))) > 0.1) "
        "and on() (sum(increase(ragmon_events_total[1m])) >= 5)"
    )
    assert grafana_expr(no_hysteresis).startswith("(sum(rate(ragmon_dlq_total[1m]))")
    assert alert_name(RULE) == "RagmonValidityLow" and rule_uid("a_b") == "ragmon-a-b"


def test_grafana_rule_thresholds_and_recovery() -> None:
    rules = grafana_alert_rules(load_rules(), folder_uid="f", datasource_uid="ds", org_id=3)
    by_uid = {r["uid"]: r for r in rules}
    validity = by_uid["ragmon-validity-low"]
    assert (validity["orgID"], validity["folderUID"], validity["for"]) == (3, "f", "2m")
    [cond] = validity["data"][2]["model"]["conditions"]
    assert cond == {
        "evaluator": {"type": "lt", "params": [0.95]},
        "unloadEvaluator": {"type": "gt", "params": [0.97]},
    }
    assert validity["data"][0]["datasourceUid"] == "ds" and validity["noDataState"] == "OK"
    assert by_uid["ragmon-not-reporting"]["noDataState"] == "Alerting"


def test_is_subset_ignores_fields_grafana_adds() -> None:
    assert is_subset(
        {"a": 1, "b": [{"c": 2}]}, {"a": 1.0, "b": [{"c": 2, "id": 9}], "updated": "x"}
    )
    assert not is_subset({"b": [{"c": 2}]}, {"b": [{"c": 2}, {"c": 3}]})
    assert not is_subset({"a": True}, {"a": 1})
    assert not is_subset({"a": 1}, {})
    assert folder_uid("My RAG alerts!") == "my-rag-alerts" and folder_uid("***") == "ragmon"


def test_plan_without_grafana_creates_everything() -> None:
    actions = plan(
        None,
        folder_title="ragmon",
        dashboard={"uid": "d", "title": "D"},
        alert_rules=grafana_alert_rules(load_rules()),
    )
    assert [a.kind for a in actions] == ["create"] * 11
    with pytest.raises(ValueError, match="uid"):
        plan(None, folder_title="ragmon", dashboard={}, alert_rules=[])


def test_render_writes_then_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = argparse.Namespace(
        config=None, rules=None, out=str(tmp_path), check=True, datasource_uid=None
    )
    assert run_render(args) == 1
    assert capsys.readouterr().out.count("out of date:") == 3
    assert run_render(argparse.Namespace(**{**vars(args), "check": False})) == 0
    assert run_render(args) == 0
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.*")) == sorted(
        render_files(load_rules())
    )


def test_examples_are_ranked_by_how_much_each_answer_moved_the_rate(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rule = AlertRule("validity_low", "validity", "below", 0.95, 0.97, min_events=5,
                     for_seconds=0)  # fmt: skip
    alerting = Alerting((rule,), None, links_base="http://h:1")
    totals = {"citations": 40, "valid_citations": 33}
    # window rate 33/40 = 0.825; an answer lowered it by (0.825·d − n)/(40 − d):
    # e1 (3 of 4 valid) 0.3/36, e2 (0 of 4) 3.3/36, e3 (2 of 4) 1.3/36, e4 (4 of 4) < 0
    candidates = [
        ("e1", {"citations": 4, "valid_citations": 3}),
        ("e2", {"citations": 4, "valid_citations": 0}),
        ("e3", {"citations": 4, "valid_citations": 2}),
        ("e4", {"citations": 4, "valid_citations": 4}),
    ]
    figures = WindowFigures(app="a b", at=1000.0, events=10, values={"validity": 0.825})
    [fired] = alerting.observe(figures, ["e4", "e3", "e2", "e1"], candidates, totals)
    assert fired.examples == ("e2", "e3", "e1")
    assert fired.evidence_url == "http://h:1/evidence?app=a%20b&rule=validity_low&from=700&to=1000"
    assert fired.runbook_url == "http://h:1/evidence/runbook/validity_low"
    out = _logged(capsys)
    assert "http://h:1/evidence?app=a%20b" in out  # the log line carries the link
    # /status lists what fires here, with the link (the rule's window and `for` back)
    assert alerting.firing_links() == [
        {
            "rule": "validity_low",
            "app": "a b",
            "evidence": "http://h:1/evidence?app=a%20b&rule=validity_low&since=300s",
        }
    ]


def test_the_timer_writes_alert_state_to_the_apps_changelog_partition() -> None:
    from agents.stream.alerting import TableStore

    class Table(dict):  # type: ignore[type-arg]
        def __init__(self) -> None:
            super().__init__()
            self.data = self
            self.sent: list[tuple[int, str, object]] = []

        def send_changelog(self, partition: int, key: str, value: object) -> None:
            self.sent.append((partition, key, value))

    table = Table()
    store = TableStore(table, lambda app: {"a": 2, "b": 0}[app])
    store["a"] = {"r": 1}  # outside stream iteration, as from the gauge timer
    assert table == {"a": {"r": 1}} and table.sent == [(2, "a", {"r": 1})]
    assert store.get("a") == {"r": 1} and list(store) == ["a"] and len(store) == 1


@pytest.fixture(autouse=True)
def _logs_to_stderr() -> None:
    # as a worker configures them, whatever an earlier test left (a level, a stream)
    configure_logging("INFO", "json")


def _logged(capsys: pytest.CaptureFixture[str]) -> str:
    """What was logged (to the current sys.stderr, which capsys captures)."""
    return capsys.readouterr().err


def test_the_bound_each_estimated_rule_compares_is_exported(metrics: Metrics) -> None:
    """ragmon_alert_bound_ratio: what Prometheus and Grafana read for support/hallucination."""
    rule = AlertRule("hallucination_high", "hallucination", "above", 0.1, 0.07, min_events=5)
    alerting = Alerting((rule, RULE), metrics)
    values = {"hallucination": 0.2, "hallucination_lower": 0.15, "hallucination_upper": 0.25}

    def bound() -> float | None:
        return metrics.registry.get_sample_value(
            "ragmon_alert_bound_ratio", {"rule": "hallucination_high", "app": "a"}
        )

    alerting.observe(WindowFigures("a", 1, 10, {**values, "hallucination_judged": 40}))
    assert bound() == 0.15  # the lower bound: the far side of an `above` threshold
    assert (
        metrics.registry.get_sample_value(
            "ragmon_alert_bound_ratio", {"rule": "validity_low", "app": "a"}
        )
        is None
    )  # an exact figure has no bound to export
    alerting.observe(WindowFigures("a", 2, 10, {**values, "hallucination_judged": 10}))
    assert bound() is None  # too few judged claims: the rule holds, no series
    alerting.observe(WindowFigures("a", 3, 10, {**values, "hallucination_judged": 40}))
    alerting.forget("a")
    assert bound() is None
