"""ragmon's Grafana traffic against Grafana's API contract: alert annotations and `grafana sync`."""

from __future__ import annotations

import argparse
import threading
from dataclasses import replace

import httpx
import pytest
from prometheus_client import CollectorRegistry

from agents.commands.grafana import run_sync
from agents.grafana.annotations import ALERT_TAG
from agents.grafana.client import Grafana
from agents.grafana.dashboard import build_dashboard
from agents.grafana.model import grafana_alert_rules
from agents.grafana.notifier import GrafanaNotifier
from agents.grafana.sync import apply, plan
from agents.kafka.broker import free_port
from agents.stream.alerting import Alerting
from agents.telemetry.metrics import Metrics, build_metrics
from monitor.alerting.alerts import AlertRule, AlertState, WindowFigures, evaluate, load_rules
from monitor.config.errors import GrafanaError
from tests.contract.grafana_contract_server import ContractServer, Fault

RULE = AlertRule(
    "validity_low",
    "validity",
    "below",
    0.95,
    0.97,
    min_events=10,
    for_seconds=0,
    severity="critical",
)
T0 = 1_700_000_000.0


def figures(at: float, validity: float, app: str = "support-bot") -> WindowFigures:
    return WindowFigures(app=app, at=at, events=120, values={"validity": validity, "support": 0.9})


def outcomes(metrics: Metrics) -> dict[str, float]:
    found = {}
    for metric in metrics.alert_notifications.collect():
        for s in metric.samples:
            if s.name.endswith("_total") and s.value:
                found[s.labels["outcome"]] = s.value
    return found


def firing_value(metrics: Metrics, app: str = "support-bot") -> float | None:
    return metrics.registry.get_sample_value(
        "ragmon_alert_firing", {"rule": "validity_low", "app": app}
    )


@pytest.fixture
def metrics() -> Metrics:
    return build_metrics(CollectorRegistry())


def notifier(
    server: ContractServer, metrics: Metrics, token: str = "test-token", **kw: float
) -> GrafanaNotifier:
    grafana = Grafana(server.url, token, timeout=kw.pop("timeout", 2.0))
    return GrafanaNotifier(grafana, metrics, backoff_seconds=0.01, **kw)  # type: ignore[arg-type]


def fire(validity: float = 0.80) -> object:
    _, t = evaluate(RULE, AlertState(), figures(T0, validity))
    assert t is not None
    return t


def test_stand_in_rejects_what_the_spec_rejects(grafana_server: ContractServer) -> None:
    auth = {"Authorization": "Bearer test-token"}
    with httpx.Client(base_url=grafana_server.url, headers=auth) as http:
        # `text` is required; times are integer epoch milliseconds
        assert http.post("/api/annotations", json={"time": 1}).status_code == 400
        assert http.post("/api/annotations", json={"text": "x", "time": "now"}).status_code == 400
        assert http.post("/api/annotations", json={"text": "x", "time": 1.5}).status_code == 400
        # the spec lists no 400 for this operation: the stand-in answers 500 and records it
        assert http.get("/api/annotations", params={"limit": "ten"}).status_code == 500
        assert http.post("/api/alerts", json={}).status_code == 404
        assert http.post("/api/v1/provisioning/alert-rules", json={"title": "t"}).status_code == 400
    requests = [v.split(": ", 1)[0] for v in grafana_server.violations]
    assert sorted(set(requests)) == [
        "GET /api/annotations",
        "POST /api/alerts",
        "POST /api/annotations",
        "POST /api/v1/provisioning/alert-rules",
    ]
    assert requests.count("POST /api/annotations") == 3
    assert requests.count("POST /api/v1/provisioning/alert-rules") == 8  # 8 required fields missing
    assert "'text' is a required property" in grafana_server.violations[0]
    grafana_server.violations.clear()


def test_firing_then_resolving_is_one_region_annotation(
    grafana_server: ContractServer, metrics: Metrics
) -> None:
    alerting = Alerting(
        (RULE,), metrics, notifier(grafana_server, metrics), links_base="http://ragmon.example:6066"
    )
    examples = [f"evt-{i}" for i in range(8)]
    [fired] = alerting.observe(figures(T0, 0.80), examples=examples)
    assert fired.kind == "firing" and firing_value(metrics) == 1
    assert alerting.notifier is not None and alerting.notifier.drain(10)  # type: ignore[attr-defined]
    [ann] = grafana_server.annotations.values()
    assert ann["time"] == 1_700_000_000_000
    assert ann["tags"] == [
        "ragmon",
        "validity_low",
        "app:support-bot",
        "severity:critical",
        ALERT_TAG + fired.notification_id,
    ]
    assert "validity = 0.800 (below 0.95, resolves at 0.97)" in ann["text"]
    assert "validity 0.800; window: 120 events; support 0.900" in ann["text"]
    assert (
        "examples (moved the rate most first): evt-0, evt-1, evt-2, evt-3, evt-4" in ann["text"]
        and "evt-5" not in ann["text"]
    )
    # a link to the answers behind it: the app, the rule, the window before the breach to now
    start = 1_700_000_000 - RULE.window_seconds
    assert (
        f'<a href="http://ragmon.example:6066/evidence?app=support-bot&amp;rule=validity_low'
        f'&amp;from={start:.0f}&amp;to=1700000000">evidence: the answers behind it</a>'
    ) in ann["text"]
    assert (
        '<a href="http://ragmon.example:6066/evidence/runbook/validity_low">runbook</a>'
        in ann["text"]
    )

    assert alerting.observe(figures(T0 + 60, 0.96)) == []  # between thresholds: still firing
    [resolved] = alerting.observe(figures(T0 + 120, 0.99))
    assert resolved.kind == "resolved" and firing_value(metrics) == 0
    alerting.close()
    [ann] = grafana_server.annotations.values()
    assert ann["timeEnd"] == 1_700_000_120_000
    assert "RESOLVED" in ann["text"]
    writes = [(s.method, s.path) for s in grafana_server.writes()]
    assert writes == [("POST", "/api/annotations"), ("PATCH", f"/api/annotations/{ann['id']}")]
    assert outcomes(metrics) == {"sent": 2}


def test_restart_and_rebalance_do_not_notify_twice(
    grafana_server: ContractServer, metrics: Metrics
) -> None:
    windows = [figures(T0, 0.80), figures(T0 + 60, 0.99)]
    table: dict[str, object] = {}
    first = Alerting((RULE,), metrics, notifier(grafana_server, metrics), store=table)
    for w in windows:
        first.observe(w)
    first.close()
    assert len(grafana_server.writes()) == 2

    # a restart (or the new owner after a rebalance) restores the table and re-reads the windows
    again = Alerting((RULE,), metrics, notifier(grafana_server, metrics), store=table)
    again.restore("support-bot")
    assert [again.observe(w) for w in windows] == [[], []]
    again.close()
    assert len(grafana_server.writes()) == 2

    # a worker whose state never reached the changelog derives the same ids and finds the annotation
    lost = Alerting((RULE,), metrics, notifier(grafana_server, metrics), store={})
    assert [len(lost.observe(w)) for w in windows] == [1, 1]
    lost.close()
    assert len(grafana_server.writes()) == 2 and len(grafana_server.annotations) == 1
    assert outcomes(metrics) == {"sent": 2, "duplicate": 2}


def test_500s_are_retried_then_sent(grafana_server: ContractServer, metrics: Metrics) -> None:
    grafana_server.faults.append(Fault("POST", r"^/annotations$", status=500, times=2))
    n = notifier(grafana_server, metrics)
    n.submit(fire())  # type: ignore[arg-type]
    assert n.drain(10)
    n.close()
    assert len(grafana_server.annotations) == 1
    assert outcomes(metrics) == {"retry": 2, "sent": 1}


def test_500s_until_the_attempts_run_out(grafana_server: ContractServer, metrics: Metrics) -> None:
    grafana_server.faults.append(Fault("POST", r"^/annotations$", status=500, times=10))
    n = notifier(grafana_server, metrics, max_attempts=3)
    n.submit(fire())  # type: ignore[arg-type]
    assert n.drain(10)
    n.close()
    assert grafana_server.annotations == {}
    assert outcomes(metrics) == {"retry": 2, "failed": 1}


def test_slow_grafana_times_out_without_blocking_or_duplicating(
    grafana_server: ContractServer, metrics: Metrics
) -> None:
    # Grafana stores the annotation, then answers too late for the client's timeout.
    slow = Fault("POST", r"^/annotations$", status=None, hang=threading.Event())
    grafana_server.faults.append(slow)
    n = notifier(grafana_server, metrics, timeout=0.3)
    n.submit(fire())  # type: ignore[arg-type]
    assert slow.entered.wait(10)  # submit returned while Grafana is still holding the request
    assert n.drain(10)
    slow.hang.set()  # type: ignore[union-attr]
    n.close()
    assert len(grafana_server.annotations) == 1  # the retry found it by its tag
    assert outcomes(metrics) == {"retry": 1, "duplicate": 1}


def test_grafana_down_is_counted_and_never_raises(metrics: Metrics) -> None:
    port = free_port()  # nothing listens here
    n = GrafanaNotifier(
        Grafana(f"http://127.0.0.1:{port}", "t", timeout=0.5),
        metrics,
        max_attempts=2,
        backoff_seconds=0.01,
    )
    n.submit(fire())  # type: ignore[arg-type]
    assert n.drain(10)
    n.close()
    assert outcomes(metrics) == {"retry": 1, "failed": 1}


def test_wrong_token_is_401_and_not_retried(
    grafana_server: ContractServer, metrics: Metrics
) -> None:
    n = notifier(grafana_server, metrics, token="wrong")
    n.submit(fire())  # type: ignore[arg-type]
    assert n.drain(10)
    n.close()
    assert [s.status for s in grafana_server.seen] == [401]
    assert outcomes(metrics) == {"unauthorized": 1}
    with pytest.raises(GrafanaError) as err:
        plan(
            Grafana(grafana_server.url, "wrong"),
            folder_title="ragmon",
            dashboard={"uid": "x"},
            alert_rules=[],
        )
    assert err.value.status == 401 and err.value.reason == "unauthorized"


def test_queue_is_bounded_and_drops_the_oldest(
    grafana_server: ContractServer, metrics: Metrics
) -> None:
    stuck = Fault("POST", r"^/annotations$", status=500, hang=threading.Event())
    grafana_server.faults.append(stuck)
    n = notifier(grafana_server, metrics, queue_size=2)
    transitions = [replace(fire(), app=f"app-{i}", notification_id=f"id{i}") for i in range(4)]  # type: ignore[type-var]
    n.submit(transitions[0])
    assert stuck.entered.wait(10)  # the first is in flight, the queue is empty
    for t in transitions[1:]:
        n.submit(t)  # app-1 is dropped when app-3 arrives
    assert n.pending() == 3
    stuck.hang.set()  # type: ignore[union-attr]
    assert n.drain(10)
    n.close()
    apps = sorted(
        t for a in grafana_server.annotations.values() for t in a["tags"] if t.startswith("app:")
    )
    # app-0 failed while the queue was full, so it was the oldest and went too
    assert apps == ["app:app-2", "app:app-3"]
    assert outcomes(metrics) == {"dropped": 2, "retry": 1, "sent": 2}


def _sync(server: ContractServer, rules: tuple[AlertRule, ...]) -> list[str]:
    grafana = Grafana(server.url, "test-token")
    actions = plan(
        grafana,
        folder_title="ragmon",
        dashboard=build_dashboard(rules),
        alert_rules=grafana_alert_rules(rules),
    )
    apply(actions)
    return [f"{a.what}:{a.kind}" for a in actions]


def test_sync_twice_changes_nothing_the_second_time(grafana_server: ContractServer) -> None:
    rules = load_rules()
    first = _sync(grafana_server, rules)
    assert first == ["folder:create", "dashboard:create"] + ["alert rule:create"] * 9
    writes = [(s.method, s.path) for s in grafana_server.writes()]
    assert writes[:2] == [("POST", "/api/folders"), ("POST", "/api/dashboards/db")]
    assert writes[2:] == [("POST", "/api/v1/provisioning/alert-rules")] * 9
    assert all(s.status in (200, 201) for s in grafana_server.seen if s.method != "GET")
    assert set(grafana_server.rules) >= {"ragmon-validity-low", "ragmon-not-reporting"}

    grafana_server.seen.clear()
    second = _sync(grafana_server, rules)
    assert second == ["folder:unchanged", "dashboard:unchanged"] + ["alert rule:unchanged"] * 9
    assert grafana_server.writes() == []

    # a changed threshold updates exactly that rule (and the dashboard's threshold line)
    changed = tuple(replace(r, threshold=0.9) if r.name == "validity_low" else r for r in rules)
    grafana_server.seen.clear()
    third = _sync(grafana_server, changed)
    assert third.count("alert rule:update") == 1 and "dashboard:update" in third
    assert [(s.method, s.path) for s in grafana_server.writes()] == [
        ("POST", "/api/dashboards/db"),
        ("PUT", "/api/v1/provisioning/alert-rules/ragmon-validity-low"),
    ]
    data = grafana_server.rules["ragmon-validity-low"]["data"]
    assert data[2]["model"]["conditions"][0]["evaluator"] == {"type": "lt", "params": [0.9]}


def _args(**kw: object) -> argparse.Namespace:
    base = {
        "config": None,
        "dry_run": False,
        "url": None,
        "rules": None,
        "dashboard": None,
        "datasource_uid": None,
    }
    return argparse.Namespace(**{**base, **kw})


def test_cli_dry_run_prints_the_plan_and_writes_nothing(
    grafana_server: ContractServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("RAGMON_GRAFANA_URL", grafana_server.url)
    monkeypatch.setenv("RAGMON_GRAFANA_TOKEN", "test-token")
    assert run_sync(_args(dry_run=True)) == 0
    out = capsys.readouterr().out
    assert "folder      ragmon" in out and "alert rule  ragmon-dlq-high" in out
    assert out.strip().endswith("11 to create, 0 to update, 0 unchanged (dry run: nothing written)")
    assert grafana_server.writes() == [] and grafana_server.seen  # it did read

    assert run_sync(_args()) == 0
    assert capsys.readouterr().out.strip().endswith("11 created, 0 updated, 0 unchanged")
    assert run_sync(_args(dry_run=True)) == 0
    assert (
        capsys.readouterr()
        .out.strip()
        .endswith("0 to create, 0 to update, 11 unchanged (dry run: nothing written)")
    )


def test_cli_wrong_token_is_a_clear_error(
    grafana_server: ContractServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGMON_GRAFANA_TOKEN", "wrong")
    with pytest.raises(GrafanaError, match="401 unauthorized"):
        run_sync(_args(url=grafana_server.url))
    assert grafana_server.writes() == []


def test_cli_without_a_token_says_no_token_is_set(
    grafana_server: ContractServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGMON_GRAFANA_TOKEN", raising=False)
    with pytest.raises(
        GrafanaError, match=r"401 unauthorized \(no token set: set RAGMON_GRAFANA_TOKEN"
    ):
        run_sync(_args(url=grafana_server.url))
    monkeypatch.setenv("RAGMON_GRAFANA_TOKEN", "wrong")
    with pytest.raises(GrafanaError, match=r"401 unauthorized \(check the token\)"):
        run_sync(_args(url=grafana_server.url))
    assert grafana_server.writes() == []


def test_an_estimated_rule_says_the_estimate_the_interval_and_n() -> None:
    from agents.grafana.annotations import annotation_text
    from monitor.alerting.alerts import AlertRule, Transition

    rule = AlertRule("hallucination_high", "hallucination", "above", 0.1, 0.07)
    values = {"hallucination": 0.18, "hallucination_lower": 0.12, "hallucination_upper": 0.24}
    values.update(hallucination_judged=84, validity=0.99)
    fig = WindowFigures(app="a", at=T0, events=900, values=values)
    text = annotation_text(Transition("firing", rule, "a", T0, T0, 0.12, fig, "id"))
    assert (
        "hallucination lower bound of the 95% interval = 0.120 (above 0.1, resolves at 0.07)"
        in text
    )
    assert "firing now; breaching for 0s" in text
    assert "hallucination 0.180 (95% interval 0.120-0.240, 84 judged claims)" in text


def test_synced_rules_and_dashboard_link_to_the_panel_and_the_evidence(
    grafana_server: ContractServer,
) -> None:
    """What a paged engineer clicks: each per-app rule names the dashboard and the panel it
    reads (`__dashboardUid__`/`__panelId__`, Grafana's own annotations), a runbook and the
    evidence page for the firing app; each app's series on the quality panels links there too."""
    rules = load_rules()
    _sync(grafana_server, rules)
    assert grafana_server.violations == []
    [stored] = grafana_server.dashboards.values()
    dashboard = stored["dashboard"]
    panels = {p["id"]: p for p in dashboard["panels"]}
    by_rule = {r["uid"]: r for r in grafana_server.rules.values()}
    for rule in rules:
        notes = by_rule[f"ragmon-{rule.name.replace('_', '-')}"]["annotations"]
        assert notes["__dashboardUid__"] == dashboard["uid"]
        assert notes["runbook_url"] == f"http://127.0.0.1:6066/evidence/runbook/{rule.name}"
        if rule.figure in ("judge_error_rate", "dlq_rate"):
            assert "evidence_url" not in notes  # no app label to fill in
            continue
        panel = panels[int(notes["__panelId__"])]
        # the panel shows what the rule itself reads (counters; the estimate and its interval)
        assert panel["title"].startswith(
            {"validity": "Citation validity (counters", "support": "Support: estimate",
             "hallucination": "Hallucination: estimate",
             "coverage": "Citation coverage (counters",
             "judge_agreement": "Judge against human labels",
             "abstention": "Abstaining answers (counters"}[rule.figure]
        )  # fmt: skip
        assert notes["evidence_url"] == (
            "http://127.0.0.1:6066/evidence?app={{ $labels.app | urlquery }}"
            f"&rule={rule.name}&since={round(rule.window_seconds + rule.for_seconds)}s"
        )
        # a panel repeated per app links with its $app, one by app series with the series' app
        app = "${app}" if panel.get("repeat") == "app" else "${__field.labels.app}"
        [link] = panel["fieldConfig"]["defaults"]["links"]
        assert link["url"] == (
            f"http://127.0.0.1:6066/evidence?app={app}"
            f"&rule={rule.name}&from=${{__from}}&to=${{__to}}"
        )
