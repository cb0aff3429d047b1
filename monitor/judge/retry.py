"""Backoff arithmetic for judge retries. Pure."""

from __future__ import annotations

import email.utils
import math
from collections.abc import Callable, Mapping


def parse_retry_after(headers: Mapping[str, str] | None, now: float) -> float | None:
    """Seconds the server asks us to wait: `retry-after-ms`, `retry-after` as seconds or as an
    HTTP date (relative to `now`, a Unix time). None when absent or unreadable."""
    if not headers:
        return None
    lower = {k.lower(): v for k, v in headers.items()}
    raw_ms = lower.get("retry-after-ms")
    if raw_ms is not None:
        try:
            value = float(raw_ms) / 1000.0
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return value
    raw = lower.get("retry-after")
    if raw is None:
        return None
    try:
        value = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError, IndexError):
            return None
        return max(0.0, when.timestamp() - now)
    return value if math.isfinite(value) and value >= 0 else None


def backoff_delay(
    attempt: int,
    base: float,
    cap: float,
    retry_after: float | None,
    rng: Callable[[], float],
) -> float | None:
    """Delay before retry number `attempt` (0-based): exponential, "equal jitter" (half fixed,
    half random, so retries spread out but never collapse to zero), never shorter than the
    server's Retry-After. None when the server asks for more than `cap`: give up rather than
    hold a worker that long."""
    if retry_after is not None and retry_after > cap:
        return None
    exp: float = min(cap, base * (2.0**attempt))
    delay = exp / 2 + rng() * exp / 2
    return max(delay, retry_after or 0.0)
