"""Every PromQL expression ragmon ships, evaluated by a real Prometheus scraping real metrics.

A real ragmon metrics endpoint (the metrics factory behind prometheus_client's HTTP server) is
fed by the checking core over standard-mix events, in several rounds so that Prometheus (1 s
scrapes) sees the counters move. Then each expression of the dashboard, the Prometheus rules
and the Grafana alert rules is sent to Prometheus's HTTP API: each must parse, and the ones that
should have data must return series.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, start_http_server

from agents.grafana.promql import rule_query
from agents.stream.alerting import Alerting
from agents.telemetry.metrics import Metrics, build_metrics
from monitor.alerting.alerts import WindowFigures, load_rules
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Verdict
from tests.conftest import standard_mix
from tests.integration.prometheus_server import PROMETHEUS, Prometheus
from tests.integration.promql_checks import (
    RULES_FILE,
    check_rules_loaded_and_healthy,
    dashboard_queries,
    empty_results,
    grafana_rule_queries,
    shipped_prometheus_rules,
)

ROUNDS = 5

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        PROMETHEUS is None, reason="prometheus not installed (Debian package `prometheus`)"
    ),
]


@dataclass
class Tally:
    events: int = 0
    rejected: int = 0
    citations: int = 0
    valid: int = 0
    claims: int = 0
    cited: int = 0
    decided: int = 0
    supported: int = 0
    unsupported: int = 0


class Feeder:
    """The checking core over events, counted into the real metrics the way a worker counts."""

    def __init__(self, metrics: Metrics) -> None:
        try:
            from monitor.check import check_bytes
        except ImportError as exc:  # another helper's module mid-change
            pytest.skip(f"checking core not importable: {exc}")
        self.check = check_bytes
        self.m = metrics
        self.options = CheckOptions()
        self.tallies: dict[str, Tally] = {}
        self.failing: dict[str, list[str]] = {}
        self.sums: dict[str, list[int]] = {}
        self.alerting = Alerting(load_rules(), metrics)
        metrics.judge_enabled.set(1)
        # human labels of the judged claims (a stand-in: the judge's verdict, one in five
        # flipped), so the judge's sensitivity/specificity and the human-scale gauges exist
        from types import SimpleNamespace

        from agents.stream.human_scale import HumanScale
        from monitor.estimation.pairs import CalibrationPairs

        self.pairs = CalibrationPairs(1e9)
        self.human = HumanScale(
            SimpleNamespace(calibration_min_labels=1), metrics.human, self.pairs
        )

    def feed(self, events: list[bytes]) -> None:
        m = self.m
        for raw in events:
            started = time.perf_counter()
            verdict = self.check(raw, self.options)
            if not hasattr(verdict, "claims"):  # a Rejection
                app = verdict.app or "other"
                m.events.labels(app=app, outcome="rejected").inc()
                m.dlq.labels(reason=verdict.reason).inc()
                self.tallies.setdefault(app, Tally()).rejected += 1
                continue
            app = verdict.app or "other"
            t = self.tallies.setdefault(app, Tally())
            m.events.labels(app=app, outcome="checked").inc()
            for r in verdict.citations:
                m.citations.labels(app=app, format=r.citation.format, status=r.status).inc()
                if r.error:
                    m.citation_errors.labels(app=app, error=r.error).inc()
            valid_ids = {r.citation.index for r in verdict.citations if r.valid}
            for c in verdict.claims:
                v = c.support.verdict
                m.claims.labels(app=app, verdict=v, tier=c.support.tier).inc()
                t.cited += c.claim.cited
                t.decided += c.claim.cited and v != "unverifiable"
                t.supported += c.claim.cited and v == "supported"
                t.unsupported += (
                    not (set(c.claim.citation_indexes) & valid_ids) or v == "not_supported"
                )
            from agents.output.records import COUNT_FIELDS, verdict_vector
            from agents.stream.check_agent import CLAIM_COUNT_KINDS

            vector = verdict_vector(verdict)
            for kind, i in CLAIM_COUNT_KINDS:  # what the check agent adds per answer
                m.claim_counts.labels(app=app, kind=kind).inc(vector[i])
            abstained = COUNT_FIELDS.index("abstained_answers")
            m.abstained_answers.labels(app=app).inc(vector[abstained])
            self._estimation(app, verdict, vector, raw)
            t.events += 1
            t.citations += len(verdict.citations)
            t.valid += sum(1 for r in verdict.citations if r.valid)
            t.claims += len(verdict.claims)
            if any(not r.valid for r in verdict.citations):
                self.failing.setdefault(app, []).append(verdict.event_id)
            m.check_duration.observe(time.perf_counter() - started)
            m.event_lag.observe(0.05)
        self._publish()

    def _estimation(self, app: str, verdict: Verdict, vector: list[int], raw: bytes) -> None:
        """The estimation sums as the window keeps them; a stand-in judge on a 30% hash sample
        answers each claim with the cheap tier's verdict (only the PromQL is checked here)."""
        from agents.output.records import add_vectors, judge_delta
        from monitor.judge.request import judge_items
        from monitor.sampling.policy import hash_fraction

        sums = add_vectors(self.sums.get(app), vector)
        from monitor.inputs.decode import decode_event

        event = decode_event(raw, self.options)
        items = judge_items(verdict, event=event if isinstance(event, AnswerEvent) else None)
        if items and hash_fraction(verdict.event_id) < 0.3:
            said = {"supported": "supported", "not_supported": "not_supported"}
            claims = [
                {"outcome": "ok", "verdict": said.get(str(i.cheap_verdict), "partially_supported")}
                for i in items
            ]
            sums = add_vectors(sums, judge_delta(claims, [i.cheap_score or 0.0 for i in items]))
            self._labels(app, verdict.event_id, [c["verdict"] for c in claims], items)
            self.m.estimation_answers.labels(app=app, outcome="labelled").inc()
        self.sums[app] = sums

    def _labels(self, app: str, event_id: str, verdicts: list[str], items: list[Any]) -> None:
        from monitor.records.labels import HumanLabel, JudgeSide

        flip = {"supported": "not_supported", "not_supported": "supported"}
        for n, (judged, item) in enumerate(zip(verdicts, items, strict=True)):
            human = flip.get(judged, "supported") if n % 5 == 4 else judged
            side = JudgeSide(judged, "gpt-4o-mini", time.time(), app)
            self.pairs.put(HumanLabel(event_id, human, "import", 1.0, item.claim_index, judge=side))

    def _publish(self) -> None:
        """What the aggregate agent exports: the rolling gauges, and the alert rules' verdicts."""
        from agents.output.records import vector_to_counts
        from monitor.estimation.window import ESTIMATION_FIELDS

        for app, t in self.tallies.items():
            counts = vector_to_counts(self.sums.get(app, []))
            estimation = {k: counts[k] for k in ESTIMATION_FIELDS}
            figures = WindowFigures.from_counts(
                app,
                time.time(),
                events=t.events + t.rejected,
                rejected=t.rejected,
                citations=t.citations,
                valid_citations=t.valid,
                claims=t.claims,
                cited_claims=t.cited,
                decided_claims=t.decided,
                supported_claims=t.supported,
                unsupported_claims=t.unsupported,
                **estimation,
            )
            self.m.window_events.labels(app=app).set(figures.events)
            v = figures.values
            for rate in ("support", "hallucination"):
                for gauge, key in zip(
                    self.m.estimate_gauges(rate),
                    (rate, f"{rate}_lower", f"{rate}_upper"),
                    strict=True,
                ):
                    if v[key] is not None:
                        gauge.labels(app=app).set(v[key])
            self.m.window_judged_claims.labels(app=app).set(v["support_judged"] or 0)
            for verdict, key in (
                ("supported", "cheap_support"),
                ("not_supported", "cheap_hallucination"),
            ):
                if v[key] is not None:
                    self.m.cheap_verdict_share.labels(app=app, verdict=verdict).set(v[key])
            for name, gauge in (
                ("validity", self.m.validity_ratio),
                ("coverage", self.m.coverage_ratio),
            ):
                value = figures.values[name]
                if value is not None:
                    gauge.labels(app=app).set(value)
            self.alerting.observe(figures, examples=self.failing.get(app, []))
            self.human.publish(app, counts, time.time())
        self.human.publish_judge(self.tallies, time.time())


def _judge_calls(metrics: Metrics, n: int) -> None:
    """The judge agent's own metrics observer, as a judge worker would drive it."""
    from agents.judging.observer import MetricsObserver

    observer = MetricsObserver(metrics)
    for i in range(n):
        observer.call("gpt-4o-mini", "ok" if i % 10 else "timeout")
        observer.attempt("gpt-4o-mini", 0.8, 900, 60, 0.0002)
    metrics.judge_queue_depth.set(3)


@pytest.fixture(scope="module")
def fed_prometheus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Prometheus, Feeder]]:
    registry = CollectorRegistry()
    metrics = build_metrics(registry)
    feeder = Feeder(metrics)
    events = [json.dumps(e).encode() for e in standard_mix(400, seed=5)]
    for i in range(0, len(events), 50):  # rejects for the DLQ, in every round
        events.insert(i, b"{not json" if i % 100 else b'{"event_id": "x"}')
    server, thread = start_http_server(0, addr="127.0.0.1", registry=registry)
    metrics.broker_up.set(1)
    prom = Prometheus(
        tmp_path_factory.mktemp("prometheus"), [f"127.0.0.1:{server.server_port}"], [RULES_FILE]
    )
    try:
        prom.wait_ready()
        prom.wait_for('up{job="ragmon"} == 1')
        chunk = len(events) // ROUNDS + 1
        for r in range(ROUNDS):  # between scrapes, so Prometheus sees every counter increase
            feeder.feed(events[r * chunk : (r + 1) * chunk])
            _judge_calls(metrics, 10)
            prom.wait_for(f'timestamp(up{{job="ragmon"}}) > {time.time():.3f}')
        yield prom, feeder
    finally:
        prom.close()
        server.shutdown()
        thread.join(5)


# Legitimately empty here: Prometheus's alerts need `for: 2m`, and no ragmon alert has fired
# yet, so there is no notification (the end-to-end test covers both).
MAY_BE_EMPTY = ("ALERTS{", "ragmon_alert_notifications_total")


def test_every_dashboard_query_parses_and_returns_series(
    fed_prometheus: tuple[Prometheus, Feeder],
) -> None:
    prom, _ = fed_prometheus
    queries = dashboard_queries()
    assert len(queries) >= 25
    assert empty_results(prom, queries, MAY_BE_EMPTY) == []


def test_prometheus_rules_load_evaluate_and_record(
    fed_prometheus: tuple[Prometheus, Feeder],
) -> None:
    prom, _ = fed_prometheus
    check_rules_loaded_and_healthy(prom)
    records = [(r["record"], r["expr"]) for r in shipped_prometheus_rules() if "record" in r]
    assert len(records) == 8 and empty_results(prom, records, ()) == []


def test_alert_rule_figures_have_data(fed_prometheus: tuple[Prometheus, Feeder]) -> None:
    prom, feeder = fed_prometheus
    apps = set(feeder.tallies) - {"other"}
    assert len(apps) == 3
    for rule in load_rules():
        q = rule_query(rule)
        values = prom.series(q.value)
        enough = prom.series(q.enough)
        assert values, f"{rule.name}: no data for {q.value}"
        assert enough, f"{rule.name}: fewer than {rule.min_events} events for {q.enough}"
        if q.per_app:
            assert {s["metric"]["app"] for s in values} >= apps
    # the standard mix has ~10% invalid citations: validity breaches 0.95 where the tally says so
    low = {app for app in apps if feeder.tallies[app].valid / feeder.tallies[app].citations < 0.95}
    assert low, "expected the standard mix to breach the validity threshold"
    [alert] = [r for r in shipped_prometheus_rules() if r.get("alert") == "RagmonValidityLow"]
    assert {s["metric"]["app"] for s in prom.series(alert["expr"])} == low
    # and the in-stream evaluation of the same figures is pending there (`for: 2m` not yet over)
    states = {app: feeder.alerting.store[app]["validity_low"]["status"] for app in apps}
    assert {app for app, status in states.items() if status == "pending"} == low


def test_grafana_alert_rule_queries_parse_and_return_series(
    fed_prometheus: tuple[Prometheus, Feeder],
) -> None:
    prom, _ = fed_prometheus
    queries = grafana_rule_queries()
    # one per rule and not_reporting, and per estimated rule the estimate, bounds, judged claims
    assert len(queries) == 9 + 2 * 4
    assert empty_results(prom, queries, ()) == []
    [up] = prom.series('sum(up{job="ragmon"})')
    assert float(up["value"][1]) == 1.0


def test_alert_firing_gauge_is_scraped(fed_prometheus: tuple[Prometheus, Feeder]) -> None:
    prom, _ = fed_prometheus
    found = prom.series('ragmon_alert_firing{rule="validity_low"}')
    assert {s["metric"]["app"] for s in found} >= {"support-bot", "search", "docs-qa"}
    assert all(s["value"][1] == "0" for s in found)  # pending, not yet firing
