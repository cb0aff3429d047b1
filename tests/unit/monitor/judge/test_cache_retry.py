"""Cache keys, LRU + TTL, hit rate; Retry-After parsing and backoff."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

from hypothesis import given
from hypothesis import strategies as st

from monitor.judge.cache import TTLCache, cache_key
from monitor.judge.retry import backoff_delay, parse_retry_after


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_key_depends_on_every_part_and_is_unambiguous() -> None:
    k = cache_key("v1", "m", "claim", "evidence")
    assert k == cache_key("v1", "m", "claim", "evidence")
    assert (
        len(
            {
                k,
                cache_key("v2", "m", "claim", "evidence"),
                cache_key("v1", "m2", "claim", "evidence"),
                cache_key("v1", "m", "claim!", "evidence"),
                cache_key("v1", "m", "claim", "evidence!"),
                cache_key("v1", "m", "claime", "vidence"),
            }
        )
        == 6
    )


def test_lru_bound_ttl_and_hit_rate() -> None:
    clock = Clock()
    c: TTLCache[str] = TTLCache(max_entries=2, ttl_seconds=10, clock=clock)
    assert c.hit_rate is None
    c.put("a", "A")
    c.put("b", "B")
    assert c.get("a") == "A"  # a is now most recent
    c.put("c", "C")  # evicts b, the least recently used
    assert c.get("b") is None and len(c) == 2
    clock.t = 9.99
    assert c.get("c") == "C"
    clock.t = 10.0  # put at 0 with ttl 10: expired
    assert c.get("a") is None and len(c) == 1
    assert (c.hits, c.misses) == (2, 2) and c.hit_rate == 0.5


def test_zero_size_cache_stores_nothing() -> None:
    c: TTLCache[int] = TTLCache(0, 10)
    c.put("a", 1)
    assert c.get("a") is None and len(c) == 0


def test_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "2"}, now=0) == 2.0
    assert parse_retry_after({"retry-after": "0.25"}, now=0) == 0.25
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}, now=0) == 1.5
    when = datetime(2030, 1, 1, 0, 0, 30, tzinfo=UTC)
    now = datetime(2030, 1, 1, 0, 0, 0, tzinfo=UTC).timestamp()
    assert parse_retry_after({"Retry-After": format_datetime(when, usegmt=True)}, now) == 30.0
    assert parse_retry_after({"Retry-After": format_datetime(when, usegmt=True)}, now + 60) == 0.0
    for bad in ({}, None, {"retry-after": "soon"}, {"retry-after": "-1"}, {"retry-after": "nan"}):
        assert parse_retry_after(bad, now=0) is None


def test_backoff_is_exponential_with_equal_jitter() -> None:
    # base 0.5: exp = 0.5, 1, 2, 4 ...; delay in [exp/2, exp]
    assert backoff_delay(0, 0.5, 30, None, lambda: 0.0) == 0.25
    assert backoff_delay(0, 0.5, 30, None, lambda: 1.0) == 0.5
    assert backoff_delay(3, 0.5, 30, None, lambda: 0.5) == 3.0  # exp 4 → 2 + 1
    assert backoff_delay(10, 0.5, 30, None, lambda: 1.0) == 30.0  # capped


def test_backoff_honours_retry_after_and_gives_up_beyond_the_cap() -> None:
    assert backoff_delay(0, 0.5, 30, 2.0, lambda: 1.0) == 2.0
    assert backoff_delay(5, 0.5, 30, 2.0, lambda: 1.0) == 16.0  # own backoff is longer
    assert backoff_delay(0, 0.5, 30, 31.0, lambda: 0.0) is None


@given(
    st.integers(0, 20),
    st.floats(0.01, 5),
    st.floats(0.1, 60),
    st.floats(0, 1),
    st.none() | st.floats(0, 60),
)
def test_backoff_bounds(
    attempt: int, base: float, cap: float, r: float, after: float | None
) -> None:
    d = backoff_delay(attempt, base, cap, after, lambda: r)
    if after is not None and after > cap:
        assert d is None
        return
    assert d is not None
    exp = min(cap, base * 2**attempt)
    assert exp / 2 - 1e-9 <= d or (after is not None and d == after)
    assert d <= max(exp, after or 0) + 1e-9
    assert d >= (after or 0)
