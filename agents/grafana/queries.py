"""PromQL fragments the dashboard's panels share: a per-label rate sum and histogram quantiles,
over `$__rate_interval` and the `$app` variable."""

from __future__ import annotations

__all__ = ["APP_MATCH", "RATE_INTERVAL", "percentiles", "rate_sum"]

RATE_INTERVAL = "$__rate_interval"
APP_MATCH = 'app=~"$app"'


def rate_sum(metric: str, by: str, *matchers: str) -> str:
    sel = ",".join(m for m in matchers if m)
    return f"sum by ({by}) (rate({metric}{{{sel}}}[{RATE_INTERVAL}]))"


def percentiles(metric: str, qs: tuple[float, ...], label: str = "") -> list[tuple[str, str]]:
    """One target per quantile of a histogram, legend "p95" (or "p95 {{label}}" per `label`)."""
    by, legend = (f"le, {label}", f" {{{{{label}}}}}") if label else ("le", "")
    rate = f"sum by ({by}) (rate({metric}_bucket[{RATE_INTERVAL}]))"
    return [(f"histogram_quantile({q}, {rate})", f"p{round(q * 100)}{legend}") for q in qs]
