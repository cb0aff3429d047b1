"""Every Prometheus metric ragmon exports, built once per registry (never the global one)."""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from agents.telemetry.human_metrics import HumanMetrics, build_human_metrics

OTHER = "other"

_LATENCY_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1.0)
_LAG_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
# up to 120 s: a local CPU server takes tens of seconds per call (its default timeout is 120 s)
_JUDGE_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 60.0, 120.0)

# The estimated rates (ragmon_<rate>_ratio, each with _lower/_upper bounds): what each counts.
_ESTIMATED_SHARES = {
    "support": "the LLM judge would call supported (prediction-powered: cheap score on every "
    "claim, judge verdicts on the uniform sample)",
    "hallucination": "not supported by their cited evidence, as the LLM judge would say "
    "(uncited claims count as not supported)",
}
_ABSENT_UNTIL_JUDGED = (
    "Absent while fewer than 2 sampled answers were judged, so always absent with the judge off "
    "(ragmon_judge_enabled 0)."
)


class AppLabels:
    """Bounds the `app` label: an allow-list, or the first `max_apps` seen; the rest is "other"."""

    def __init__(self, allow: Iterable[str] = (), max_apps: int = 20) -> None:
        self._fixed = bool(tuple(allow))
        self._known: set[str] = set(allow)
        self._max = max_apps
        self._lock = threading.Lock()

    def __call__(self, app: str | None) -> str:
        if not app:
            return OTHER
        if app in self._known:
            return app
        if self._fixed:
            return OTHER
        with self._lock:
            if len(self._known) < self._max:
                self._known.add(app)
                return app
        return OTHER


@dataclass(frozen=True)
class Metrics:
    registry: CollectorRegistry
    events: Counter
    citations: Counter
    citation_errors: Counter
    claims: Counter
    claim_counts: Counter
    uncited_claims: Counter
    dlq: Counter
    check_duration: Histogram
    event_lag: Histogram
    validity_ratio: Gauge
    coverage_ratio: Gauge
    window_events: Gauge
    # rate ("support", "hallucination") -> (estimate, lower bound, upper bound) of its 95% interval
    estimates: Mapping[str, tuple[Gauge, Gauge, Gauge]]
    window_judged_claims: Gauge
    cheap_verdict_share: Gauge
    estimation_answers: Counter
    judge_enabled: Gauge
    judge_requests: Counter
    judge_tokens: Counter
    judge_cost: Counter
    judge_queue_depth: Gauge
    judge_latency: Histogram
    judge_cache: Counter
    judge_dropped: Counter
    judge_retries: Counter
    judge_invalid_replies: Counter
    judge_agreement_ratio: Gauge
    semantic_claims: Counter
    cheap_agreement_ratio: Gauge
    audit_records: Counter
    alert_firing: Gauge
    alert_bound: Gauge
    alert_notifications: Counter
    broker_up: Gauge
    duplicates: Counter
    publish_errors: Counter
    check_process_restarts: Counter
    check_worker_answers: Counter
    human: HumanMetrics  # the judge against people; the human-scale rates
    abstained_answers: Counter
    abstention_ratio: Gauge

    def ratio_gauges(self) -> tuple[Gauge, ...]:
        return (
            self.validity_ratio,
            self.coverage_ratio,
            self.window_events,
            *(gauge for trio in self.estimates.values() for gauge in trio),
            self.window_judged_claims,
            self.abstention_ratio,
        )

    def estimate_gauges(self, rate: str) -> tuple[Gauge, Gauge, Gauge]:
        """(estimate, lower bound, upper bound) of `support` or `hallucination`."""
        return self.estimates[rate]


def build_metrics(registry: CollectorRegistry) -> Metrics:
    def counter(name: str, doc: str, labels: tuple[str, ...] = ()) -> Counter:
        return Counter(f"ragmon_{name}", doc, labels, registry=registry)

    def gauge(name: str, doc: str, labels: tuple[str, ...] = ()) -> Gauge:
        return Gauge(f"ragmon_{name}", doc, labels, registry=registry)

    def hist(
        name: str, doc: str, buckets: tuple[float, ...], labels: tuple[str, ...] = ()
    ) -> Histogram:
        return Histogram(f"ragmon_{name}", doc, labels, buckets=buckets, registry=registry)

    def estimate(rate: str, share: str) -> tuple[Gauge, Gauge, Gauge]:
        point = f"{rate}_ratio"
        doc = f"Estimated share of the rolling window's claims {share}. {_ABSENT_UNTIL_JUDGED}"
        estimated = gauge(point, doc, ("app",))
        lower, upper = (
            gauge(
                f"{point}_{bound}",
                f"{bound.title()} bound of ragmon_{point}'s 95% interval.",
                ("app",),
            )
            for bound in ("lower", "upper")
        )
        return estimated, lower, upper

    return Metrics(
        registry=registry,
        events=counter(
            "events", "Answer events by outcome (checked, rejected, duplicate).", ("app", "outcome")
        ),
        citations=counter(
            "citations", "Citations by format and status.", ("app", "format", "status")
        ),
        citation_errors=counter(
            "citation_errors", "Invalid citations by error code.", ("app", "error")
        ),
        claims=counter("claims", "Claims by verdict and tier.", ("app", "verdict", "tier")),
        claim_counts=counter(
            "claim_counts",
            "Claim counts behind the support, hallucination and coverage ratios (cheap tier), "
            "by kind: claims, cited, decided (cited, not unverifiable), supported (of decided), "
            "hallucinated (not supported by the retrieved context: not_supported, cited or "
            "uncited, or cited by invalid citations only).",
            ("app", "kind"),
        ),
        uncited_claims=counter(
            "uncited_claims",
            "Uncited claims by the verdict of their check against all of the event's documents "
            "(not_supported ones are hallucinations; the rest are coverage gaps only).",
            ("app", "verdict"),
        ),
        dlq=counter("dlq", "Records sent to the dead-letter topic, by reason.", ("reason",)),
        check_duration=hist(
            "check_duration_seconds", "Time of the cheap checks per event.", _LATENCY_BUCKETS
        ),
        event_lag=hist(
            "event_lag_seconds", "From the event's timestamp to the end of its check.", _LAG_BUCKETS
        ),
        validity_ratio=gauge(
            "validity_ratio", "Valid citations / citations in the rolling window.", ("app",)
        ),
        estimates={rate: estimate(rate, share) for rate, share in _ESTIMATED_SHARES.items()},
        window_judged_claims=gauge(
            "window_judged_claims",
            "Claims of the rolling window's uniform judge sample with a judge verdict: the "
            "labels behind the support and hallucination estimates (0 with the judge off).",
            ("app",),
        ),
        cheap_verdict_share=gauge(
            "cheap_verdict_share",
            "Share of the rolling window's claims by the cheap tier's verdict alone (supported, "
            "not_supported: no valid citation or a failed check). NOT the support or "
            "hallucination rate: the cheap tier's verdicts are biased; those are "
            "ragmon_support_ratio and ragmon_hallucination_ratio.",
            ("app", "verdict"),
        ),
        estimation_answers=counter(
            "estimation_answers",
            "Answers of the uniform (base-rate) judge sample behind the estimates, by outcome: "
            "sent to the judge, dropped (budget, fair share, full queue), labelled (every claim "
            "got a verdict), incomplete (a claim without a verdict: left out).",
            ("app", "outcome"),
        ),
        judge_enabled=gauge(
            "judge_enabled",
            "1 when this worker samples answers for the LLM judge; 0: no support or "
            "hallucination estimate, only the cheap verdict shares.",
        ),
        coverage_ratio=gauge(
            "coverage_ratio", "Cited claims / claims in the rolling window.", ("app",)
        ),
        window_events=gauge("window_events", "Events in the rolling window.", ("app",)),
        judge_requests=counter(
            "judge_requests", "Judge calls by model and outcome.", ("model", "outcome")
        ),
        judge_tokens=counter(
            "judge_tokens", "Judge tokens by model and direction (in/out).", ("model", "direction")
        ),
        judge_cost=counter(
            "judge_cost_usd", "Estimated judge cost from the configured price table.", ("model",)
        ),
        judge_queue_depth=gauge("judge_queue_depth", "Judge work waiting in this worker."),
        judge_latency=hist(
            "judge_latency_seconds", "Latency of one judge call.", _JUDGE_BUCKETS, ("model",)
        ),
        judge_cache=counter(
            "judge_cache", "Judge cache lookups by result (hit/miss).", ("result",)
        ),
        judge_dropped=counter(
            "judge_dropped",
            "Judge work dropped, by reason (budget_calls, budget_tokens, app_fair_share, "
            "queue_full, judge_down).",
            ("reason",),
        ),
        judge_invalid_replies=counter(
            "judge_invalid_replies",
            "Judge replies that were not a verdict, by reason (monitor.judge.schema).",
            ("model", "reason"),
        ),
        judge_retries=counter(
            "judge_retries", "Judge call attempts retried, by reason.", ("model", "reason")
        ),
        judge_agreement_ratio=gauge(
            "judge_agreement_ratio", "Judge agreement with canary gold labels.", ("app",)
        ),
        semantic_claims=counter(
            "semantic_claims",
            "Judged claims the semantic tier also scored, by its opinion (supported, "
            "not_supported, no_evidence; docs/semantic.md).",
            ("app", "opinion"),
        ),
        cheap_agreement_ratio=gauge(
            "cheap_agreement_ratio", "Cheap-tier agreement with canary gold labels.", ("app",)
        ),
        audit_records=counter(
            "audit_records", "Audit records written, by why they were kept.", ("reason",)
        ),
        alert_firing=gauge(
            "alert_firing", "1 while an alert rule fires for an app.", ("rule", "app")
        ),
        alert_bound=gauge(
            "alert_bound_ratio",
            "What a rule on an estimated figure compares with its threshold: the far bound of "
            "the interval at the rule's level; no series while the rule holds (too few judged).",
            ("rule", "app"),
        ),
        alert_notifications=counter(
            "alert_notifications", "Alert notifications by sink and outcome.", ("sink", "outcome")
        ),
        broker_up=gauge("broker_up", "1 while the Kafka broker answers this worker."),
        duplicates=counter(
            "duplicate_events", "Redelivered events ignored by the windowed rates.", ("app",)
        ),
        publish_errors=counter(
            "publish_errors", "Output records the Kafka producer failed to publish.", ("topic",)
        ),
        check_process_restarts=counter(
            "check_process_restarts",
            "Check processes (RAGMON_CHECK_PROCESSES) started again after one died.",
        ),
        check_worker_answers=counter(
            "check_worker_answers",
            "Answers the worker checked itself while its check processes were behind "
            "(RAGMON_CHECK_HELP).",
        ),
        human=build_human_metrics(registry),
        abstained_answers=counter(
            "abstained_answers",
            'Checked answers whose every claim abstains ("the passages do not say"): '
            "refusals, neither supported nor hallucinated.",
            ("app",),
        ),
        abstention_ratio=gauge(
            "abstention_ratio",
            "Answers whose every claim abstains / checked answers in the rolling window "
            "(a surge: retrieval stopped finding what users ask about).",
            ("app",),
        ),
    )
