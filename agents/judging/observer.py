"""The judge client's observer for Prometheus: turns the JudgeClient's calls, attempts, retries,
cache lookups, invalid replies and problems into the judge metrics (and a log line per distinct
problem). Used by the judge agent, `ragmon eval` and the benchmarks."""

from __future__ import annotations

import structlog

from agents.telemetry.counting import Children
from agents.telemetry.metrics import Metrics

log = structlog.get_logger("ragmon.judge")
__all__ = ["MetricsObserver"]


class MetricsObserver:
    """JudgeObserver → Prometheus."""

    def __init__(self, metrics: Metrics, *, log_problems: bool = True) -> None:
        self.m = metrics
        self.log_problems = log_problems  # off where the caller reports them (ragmon eval)
        # labels() takes a lock and builds a key each time; a lookup runs once per judged pair
        self._child = Children()
        self._told: set[tuple[str, str, str]] = set()  # problems already logged

    def call(self, model: str, outcome: str) -> None:
        self._child(self.m.judge_requests, (model, outcome)).inc()

    def attempt(
        self, model: str, seconds: float, tokens_in: int, tokens_out: int, cost_usd: float
    ) -> None:
        self.m.judge_latency.labels(model=model).observe(seconds)
        if tokens_in:
            self.m.judge_tokens.labels(model=model, direction="in").inc(tokens_in)
        if tokens_out:
            self.m.judge_tokens.labels(model=model, direction="out").inc(tokens_out)
        if cost_usd:
            self.m.judge_cost.labels(model=model).inc(cost_usd)

    def retry(self, model: str, reason: str) -> None:
        self.m.judge_retries.labels(model=model, reason=reason).inc()

    def cache(self, hit: bool) -> None:
        self._child(self.m.judge_cache, ("hit" if hit else "miss",)).inc()

    def invalid(self, model: str, reason: str) -> None:
        self.m.judge_invalid_replies.labels(model=model, reason=reason).inc()

    def problem(self, model: str, what: str, detail: str) -> None:
        # the server's own words (secrets removed by the client): the one thing that tells an
        # operator why a judge fails, e.g. a response format the server does not take
        key = (model, what, detail)
        if (
            not self.log_problems or key in self._told
        ):  # a server down or misconfigured says the same on every call
            return
        if len(self._told) < 1_000:
            self._told.add(key)
        log.warning("judge problem", model=model, outcome=what, detail=detail)
