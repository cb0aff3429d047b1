"""Which answers go to the LLM judge, within hard budgets. Pure: standard library only.

Sampling is a function of the event id, so a redelivered event (or the same event on another
worker) gets the same decision at a given rate, and raising the rate only adds events. Answers the
cheap tier could not settle (unverifiable or failing claims) get a higher rate; canaries (events
with `gold.label`) are always sampled so the judge's own agreement stays visible.

Budgets are token buckets with an injectable clock. They are per process: with N workers, give
each 1/N of the provider's limit. Per-app fairness splits the calls-per-minute budget evenly over
the apps that asked for the judge recently, so one noisy app cannot starve the others.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any, Literal, get_args

from monitor.records.models import AnswerEvent, Verdict
from monitor.records.record import record

Clock = Callable[[], float]

SampleReason = Literal["canary", "oversample", "base"]
DropReason = Literal["budget_calls", "budget_tokens", "app_fair_share", "queue_full", "judge_down"]
Skip = Literal["not_sampled", "nothing_to_judge"]

#: Decisions that are counted as dropped work (ragmon_judge_dropped_total{reason}): DropReason's
#: values, so a new reason is named once
DROP_REASONS: tuple[str, ...] = get_args(DropReason)


def _builtin_sha256() -> Callable[[bytes], Any]:
    """CPython's own SHA-256 (`_sha2` from 3.12, `_sha256` before): the same digest as
    hashlib's OpenSSL one, but OpenSSL's larger code runs out of a cold cache on the check path,
    where this hash runs once per answer (5.6 µs against 3.3 µs per call right after a check)."""
    for name in ("_sha2", "_sha256"):
        try:
            module = __import__(name)
        except ImportError:
            continue
        found: Callable[[bytes], Any] = module.sha256
        return found
    return hashlib.sha256


_sha256 = _builtin_sha256()


def hash_fraction(event_id: str, salt: str = "ragmon-judge") -> float:
    """A stable pseudo-random number in [0, 1) derived from the event id: the first 8 bytes of
    SHA-256 of `salt`, NUL, `event_id`, big-endian, over 2**64."""
    digest = _sha256(f"{salt}\x00{event_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class TokenBucket:
    """`capacity` tokens, refilled continuously at `rate` per second, never above capacity."""

    def __init__(self, capacity: float, rate: float, clock: Clock = time.monotonic) -> None:
        if capacity < 0 or rate < 0:
            raise ValueError("capacity and rate must be >= 0")
        self._clock = clock
        self.capacity = float(capacity)
        self.rate = float(rate)
        self._tokens = float(capacity)
        self._stamp = clock()

    def _refill(self) -> None:
        now = self._clock()
        elapsed = max(0.0, now - self._stamp)
        self._stamp = now
        self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)

    @property
    def tokens(self) -> float:
        self._refill()
        return self._tokens

    def can_take(self, n: float = 1.0) -> bool:
        self._refill()
        return self._tokens >= n

    def take(self, n: float = 1.0) -> bool:
        """Take `n` tokens if all are there; all or nothing."""
        if not self.can_take(n):
            return False
        self._tokens -= n
        return True

    def adjust(self, delta: float) -> None:
        """Charge (negative) or refund (positive) after the fact, e.g. real vs estimated tokens.
        The balance may go below zero: the debt is paid back by the refill before new work."""
        self._refill()
        self._tokens = min(self.capacity, self._tokens + delta)

    def reconfigure(self, capacity: float, rate: float) -> None:
        """New size; the share of the bucket already used stays used."""
        self._refill()
        fill = self._tokens / self.capacity if self.capacity else 1.0
        self.capacity = float(capacity)
        self.rate = float(rate)
        self._tokens = fill * self.capacity


class Budget:
    """Calls per minute and tokens per hour; 0 disables that limit."""

    def __init__(self, calls_per_minute: int, tokens_per_hour: int, clock: Clock = time.monotonic):
        self.calls: TokenBucket | None = (
            TokenBucket(calls_per_minute, calls_per_minute / 60.0, clock)
            if calls_per_minute
            else None
        )
        self.tokens: TokenBucket | None = (
            TokenBucket(tokens_per_hour, tokens_per_hour / 3600.0, clock)
            if tokens_per_hour
            else None
        )

    def check(self, calls: int, tokens: int) -> DropReason | None:
        """Why the work does not fit now, or None if it does (nothing is taken)."""
        if self.calls is not None and not self.calls.can_take(calls):
            return "budget_calls"
        if self.tokens is not None and not self.tokens.can_take(tokens):
            return "budget_tokens"
        return None

    def take(self, calls: int, tokens: int) -> DropReason | None:
        reason = self.check(calls, tokens)
        if reason is None:
            if self.calls is not None:
                self.calls.take(calls)
            if self.tokens is not None:
                self.tokens.take(tokens)
        return reason

    def settle_tokens(self, estimated: int, actual: int) -> None:
        if self.tokens is not None:
            self.tokens.adjust(estimated - actual)


class FairShare:
    """Each app active in the last `horizon` seconds may use 1/n of the calls-per-minute budget."""

    def __init__(self, calls_per_minute: int, horizon: float = 60.0, clock: Clock = time.monotonic):
        self._cpm = calls_per_minute
        self._horizon = horizon
        self._clock = clock
        self._seen: dict[str, float] = {}
        self._buckets: dict[str, TokenBucket] = {}
        self._share = 0

    def _active(self, app: str) -> int:
        now = self._clock()
        self._seen[app] = now
        for other in [a for a, t in self._seen.items() if now - t > self._horizon]:
            del self._seen[other]
            self._buckets.pop(other, None)
        return len(self._seen)

    def take(self, app: str, calls: int) -> bool:
        if not self._cpm:
            return True
        n = self._active(app)
        per_app = self._cpm / n
        bucket = self._buckets.get(app)
        if bucket is None:
            bucket = self._buckets[app] = TokenBucket(per_app, per_app / 60.0, self._clock)
        if n != self._share:
            for b in self._buckets.values():
                b.reconfigure(self._cpm / n, self._cpm / n / 60.0)
            self._share = n
        return bucket.take(calls)

    def refund(self, app: str, calls: int) -> None:
        bucket = self._buckets.get(app)
        if bucket is not None:
            bucket.adjust(calls)


@record
class SamplingPolicy:
    base_rate: float = 0.05
    oversample_rate: float = 0.5
    calls_per_minute: int = 60
    tokens_per_hour: int = 200_000
    fairness: bool = True
    batch_size: int = 5


@record
class Candidate:
    """What the sampler needs to know about one checked answer."""

    event_id: str
    app: str
    judgeable_claims: int
    est_tokens: int
    doubtful: bool = False  # has unverifiable or failing claims / invalid citations
    canary: bool = False


@record
class Decision:
    sampled: bool
    reason: SampleReason | DropReason | Skip

    @property
    def dropped(self) -> bool:
        return self.reason in DROP_REASONS


NOT_SAMPLED = Decision(False, "not_sampled")
#: shed at the source while the judge's queue is full (a constant: the check path returns it for
#: nearly every sampled answer while the judge is saturated)
QUEUE_FULL = Decision(False, "queue_full")
#: shed at the source while the judge is in its cool-down after a refused connection: the call
#: would fail at once, after the request was built, published, consumed and parsed
JUDGE_DOWN = Decision(False, "judge_down")


def is_doubtful(verdict: Verdict) -> bool:
    """The cheap tier left something open or found a failure the judge can double-check."""
    if any(not c.valid for c in verdict.citations):
        return True
    return any(
        r.support.verdict in ("unverifiable", "not_supported", "partially_supported")
        for r in verdict.claims
    )


class Sampler:
    def __init__(self, policy: SamplingPolicy, clock: Clock = time.monotonic) -> None:
        self.policy = policy
        self.budget = Budget(policy.calls_per_minute, policy.tokens_per_hour, clock)
        self.fair = FairShare(policy.calls_per_minute if policy.fairness else 0, clock=clock)

    def rate_for(self, candidate: Candidate) -> tuple[float, SampleReason]:
        if candidate.canary:
            return 1.0, "canary"
        if candidate.doubtful and self.policy.oversample_rate > self.policy.base_rate:
            return self.policy.oversample_rate, "oversample"
        return self.policy.base_rate, "base"

    def decide(self, candidate: Candidate) -> Decision:
        rate, reason = self.rate_for(candidate)
        if hash_fraction(candidate.event_id) >= rate:
            return NOT_SAMPLED
        return self.admit(candidate, reason)

    def admit(self, candidate: Candidate, reason: SampleReason) -> Decision:
        """Budgets and fair share for an answer the hash already selected."""
        if candidate.judgeable_claims <= 0:
            return Decision(False, "nothing_to_judge")
        calls = -(-candidate.judgeable_claims // max(1, self.policy.batch_size))
        over = self.budget.check(calls, candidate.est_tokens)
        if over is not None:
            return Decision(False, over)
        if not self.fair.take(candidate.app, calls):
            return Decision(False, "app_fair_share")
        self.budget.take(calls, candidate.est_tokens)
        return Decision(True, reason)


def candidate_for(
    event: AnswerEvent, verdict: Verdict, judgeable_claims: int, est_tokens: int
) -> Candidate:
    return Candidate(
        event_id=event.event_id,
        app=event.app or "",
        judgeable_claims=judgeable_claims,
        est_tokens=est_tokens,
        doubtful=is_doubtful(verdict),
        canary=event.gold_label is not None,
    )
