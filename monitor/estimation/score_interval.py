"""The interval of a rate estimated from a window's own human labels, alone or averaged with the
judge's corrected estimate: a score interval. Pure.

The labels are a uniform sample of the window's claims: `successes` of `trials` (b = their
share), with variance f·p(1 − p)/n at the true rate p (f: the finite-population correction).
Averaged with another estimate a of variance v_a(p) by inverse-variance weights, as
monitor.estimation.human does, the estimate at a rate p₀ and its standard error are

    w(p₀) = v_b(p₀)/(v_a(p₀) + v_b(p₀)),  est(p₀) = w·a + (1 − w)·b,
    se(p₀) = √(v_a·v_b/(v_a + v_b))

and the interval is every p₀ with |est(p₀) − p₀| ≤ t·se(p₀): the rates the average does not
reject, each judged with the variances it implies. With the labels alone (no a) this is Wilson's
interval ("Probable inference, the law of succession, and statistical inference", JASA 1927),
finite-population corrected.

Why not the estimate ± t·se at the estimate (a Wald interval): a low draw of b gets a small
variance, so a large weight and a narrow interval at once, and the interval misses low far more
often than high. On RAGTruth's rate of 0.10 with 200 labels and a simulated judge that read
0.933-0.939 coverage, 45 misses low against 16 high in 1,000 resamples (docs/estimation.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: bisection steps per bound: 2^-60 of [0, 1], below any float's spacing near 1
_STEPS = 60
_EDGE = 1e-12  # the ends of [0, 1], where a binomial variance vanishes


def score_bounds(
    successes: int,
    trials: int,
    fpc: float,
    t: float,
    other: tuple[float, Callable[[float], float]] | None = None,
) -> tuple[float, float]:
    """(lower, upper) for the share `successes`/`trials` of a uniform sample (`fpc`: 1 − n/N,
    or 1 for an unbounded population), averaged with `other` = (its estimate, its variance at
    a rate) when given; `t`: the quantile (z, or Student's t). `trials` must be positive."""
    if trials <= 0:
        raise ValueError("no labelled claim")
    b = successes / trials
    if fpc <= 0:  # every claim of the window labelled: the share is the rate
        return b, b

    def excess(p: float) -> float:
        """(est(p) − p)/se(p): positive below the interval, negative above it."""
        v_b = max(p * (1 - p), _EDGE) * fpc / trials
        if other is None:
            return (b - p) / math.sqrt(v_b)
        a, variance = other
        v_a = variance(p)
        w = v_b / (v_a + v_b)
        return (w * a + (1 - w) * b - p) / math.sqrt(v_a * v_b / (v_a + v_b))

    def crossing(lo: float, hi: float, target: float) -> float:
        # excess falls through `target` between lo and hi (it does at both bounds: it is
        # above t at the lower end of the scan and below −t at the upper end)
        for _ in range(_STEPS):
            mid = (lo + hi) / 2
            if excess(mid) > target:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    # where the average meets the rate it is judged at: the bounds lie either side of it
    centre = crossing(_EDGE, 1 - _EDGE, 0.0)
    lower = 0.0 if excess(_EDGE) <= t else crossing(_EDGE, centre, t)
    upper = 1.0 if excess(1 - _EDGE) >= -t else crossing(centre, 1 - _EDGE, -t)
    return lower, upper
