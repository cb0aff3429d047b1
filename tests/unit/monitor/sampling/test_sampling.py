"""Sampling: deterministic by event id, oversampling, budgets, per-app fair share."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from monitor.sampling.policy import (
    Budget,
    Candidate,
    FairShare,
    Sampler,
    SamplingPolicy,
    TokenBucket,
    hash_fraction,
)


class FakeClock:
    def __init__(self, t: float = 1000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def cand(
    i: int,
    app: str = "a",
    doubtful: bool = False,
    canary: bool = False,
    claims: int = 1,
    tokens: int = 100,
) -> Candidate:
    return Candidate(f"ev-{i}", app, claims, tokens, doubtful=doubtful, canary=canary)


@given(st.text(min_size=1, max_size=50))
def test_hash_fraction_is_stable_and_in_unit_interval(event_id: str) -> None:
    u = hash_fraction(event_id)
    assert 0.0 <= u < 1.0
    assert hash_fraction(event_id) == u


def test_hash_fraction_known_value() -> None:
    # sha256(b"ragmon-judge\x00ev-1")[:8] as a big-endian integer / 2**64
    import hashlib

    digest = hashlib.sha256(b"ragmon-judge\x00ev-1").digest()
    assert hash_fraction("ev-1") == int.from_bytes(digest[:8], "big") / 2**64


@given(st.text(max_size=80), st.text(max_size=20))
def test_hash_fraction_is_sha256_whichever_implementation_computes_it(
    event_id: str, salt: str
) -> None:
    # the check path uses CPython's own SHA-256, not OpenSSL's: the sample must not change
    import hashlib

    digest = hashlib.sha256(f"{salt}\x00{event_id}".encode()).digest()
    assert hash_fraction(event_id, salt) == int.from_bytes(digest[:8], "big") / 2**64


def unlimited(**kw: object) -> Sampler:
    policy = SamplingPolicy(calls_per_minute=0, tokens_per_hour=0, **kw)  # type: ignore[arg-type]
    return Sampler(policy, clock=FakeClock())


def test_same_event_same_decision_and_rate_is_monotone() -> None:
    low, high = unlimited(base_rate=0.1), unlimited(base_rate=0.3)
    ids = range(5000)
    in_low = {i for i in ids if low.decide(cand(i)).sampled}
    in_low_again = {i for i in ids if low.decide(cand(i)).sampled}
    in_high = {i for i in ids if high.decide(cand(i)).sampled}
    assert in_low == in_low_again
    assert in_low <= in_high  # raising the rate only adds events
    # 5000 draws at p=0.1: 500 expected, sd ~21; 6 sd bounds
    assert 370 < len(in_low) < 630
    assert 1330 < len(in_high) < 1670


def test_oversampling_and_canaries() -> None:
    s = unlimited(base_rate=0.0, oversample_rate=0.5)
    assert not any(s.decide(cand(i)).sampled for i in range(200))
    doubtful = [s.decide(cand(i, doubtful=True)) for i in range(2000)]
    assert {d.reason for d in doubtful if d.sampled} == {"oversample"}
    assert 800 < sum(d.sampled for d in doubtful) < 1200
    canaries = [s.decide(cand(i, canary=True)) for i in range(50)]
    assert all(d.sampled and d.reason == "canary" for d in canaries)


def test_nothing_to_judge_is_not_a_drop() -> None:
    s = unlimited(base_rate=1.0)
    d = s.decide(cand(1, claims=0))
    assert not d.sampled and d.reason == "nothing_to_judge" and not d.dropped


def test_token_bucket_refills_continuously_up_to_capacity() -> None:
    clock = FakeClock()
    b = TokenBucket(capacity=10, rate=2.0, clock=clock)
    assert b.take(10)
    assert not b.take(1)
    clock.t += 2.5  # 5 tokens back
    assert b.take(5) and not b.take(0.5)
    clock.t += 100
    assert b.tokens == 10.0
    b.adjust(-15)  # charged more than estimated: a debt
    assert b.tokens == -5.0
    clock.t += 3  # +6
    assert b.can_take(1) and not b.can_take(1.01)


def test_calls_per_minute_budget_drops_and_recovers() -> None:
    clock = FakeClock()
    s = Sampler(
        SamplingPolicy(base_rate=1.0, calls_per_minute=6, tokens_per_hour=0, fairness=False), clock
    )
    decisions = [s.decide(cand(i)) for i in range(10)]
    assert [d.sampled for d in decisions] == [True] * 6 + [False] * 4
    assert {d.reason for d in decisions[6:]} == {"budget_calls"}
    assert all(d.dropped for d in decisions[6:])
    clock.t += 10  # 6/min → one call per 10 s
    assert s.decide(cand(100)).sampled
    assert not s.decide(cand(101)).sampled


def test_calls_are_batches_of_five() -> None:
    s = Sampler(
        SamplingPolicy(base_rate=1.0, calls_per_minute=3, tokens_per_hour=0, fairness=False),
        FakeClock(),
    )
    assert s.decide(cand(1, claims=11)).sampled  # ceil(11/5) = 3 calls
    assert s.decide(cand(2, claims=1)).reason == "budget_calls"


def test_tokens_per_hour_budget() -> None:
    clock = FakeClock()
    s = Sampler(
        SamplingPolicy(base_rate=1.0, calls_per_minute=0, tokens_per_hour=3600, fairness=False),
        clock,
    )
    assert s.decide(cand(1, tokens=3000)).sampled
    d = s.decide(cand(2, tokens=601))
    assert d.reason == "budget_tokens"
    clock.t += 1  # 1 token/s
    assert s.decide(cand(3, tokens=601)).sampled


def test_budget_settle_charges_the_difference() -> None:
    clock = FakeClock()
    b = Budget(0, 1000, clock)
    assert b.take(1, 400) is None
    b.settle_tokens(estimated=400, actual=900)
    assert b.tokens is not None and b.tokens.tokens == 100.0
    assert b.check(1, 101) == "budget_tokens"


def test_fair_share_splits_calls_over_active_apps() -> None:
    clock = FakeClock()
    fair = FairShare(calls_per_minute=10, clock=clock)
    # alone, app "big" may use the whole budget
    assert sum(fair.take("big", 1) for _ in range(12)) == 10
    clock.t += 60  # refilled; now a second app shows up
    assert fair.take("small", 1)
    # two active apps: each is capped at 5 per minute
    assert sum(fair.take("big", 1) for _ in range(12)) == 5
    assert sum(fair.take("small", 1) for _ in range(12)) == 4  # one already used
    clock.t += 120  # "small" went quiet: "big" gets the whole budget back
    assert sum(fair.take("big", 1) for _ in range(12)) == 10


def test_sampler_counts_fair_share_drops() -> None:
    clock = FakeClock()
    s = Sampler(SamplingPolicy(base_rate=1.0, calls_per_minute=4, tokens_per_hour=0), clock)
    assert s.decide(cand(1, app="x")).sampled
    assert s.decide(cand(2, app="y")).sampled
    assert s.decide(cand(3, app="x")).sampled
    d = s.decide(cand(4, app="x"))  # x used its 2 of 4
    assert d.reason == "app_fair_share" and d.dropped
    assert s.decide(cand(5, app="y")).sampled  # y still has its share
