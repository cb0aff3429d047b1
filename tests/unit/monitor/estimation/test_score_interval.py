"""The score interval of a window's own labels, alone (Wilson's, by hand) or averaged with the
judge's corrected estimate (its defining equation at the bounds, by hand); Hypothesis for its
shape; coverage over seeded samples of a known population at a low rate, on both sides."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.estimation.human import correct
from monitor.estimation.judge_error import JudgeError
from monitor.estimation.score_interval import score_bounds

Z = 1.959963984540054


def wilson(p: float, n: float, z: float = Z) -> tuple[float, float]:
    """Wilson's closed form for a share p of n: (p + z²/2n ± z·√(p(1 − p)/n + z²/4n²)) /
    (1 + z²/n)."""
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def test_alone_is_wilson_by_hand() -> None:
    # 20 of 200: centre (0.1 + 0.009604)/1.019207 = 0.107539,
    # half 1.96·√(0.00045 + 0.0000240)/1.019207 = 0.041867
    lo, hi = score_bounds(20, 200, 1.0, Z)
    assert (lo, hi) == pytest.approx(wilson(0.1, 200), abs=1e-9)
    assert (lo, hi) == pytest.approx((0.06567, 0.14941), abs=1e-5)


def test_finite_population_is_wilson_of_the_effective_sample() -> None:
    # variance f·p(1 − p)/n = p(1 − p)/(n/f): 30 of 100 labelled in a window of 400, f = 0.75
    lo, hi = score_bounds(30, 100, 0.75, Z)
    n_eff = 100 / 0.75
    assert (lo, hi) == pytest.approx(wilson(0.3, n_eff), abs=1e-9)
    assert score_bounds(7, 10, 0.0, Z) == (0.7, 0.7)  # the whole window labelled: exact


def test_no_success_and_all_successes() -> None:
    # 0 of 50: Wilson's [0, z²/(n + z²)]; 50 of 50 mirrors it
    lo, hi = score_bounds(0, 50, 1.0, Z)
    assert lo == 0.0
    assert hi == pytest.approx(Z * Z / (50 + Z * Z), abs=1e-9)
    lo, hi = score_bounds(50, 50, 1.0, Z)
    assert hi == 1.0
    assert lo == pytest.approx(1 - Z * Z / (50 + Z * Z), abs=1e-9)
    with pytest.raises(ValueError):
        score_bounds(0, 0, 1.0, Z)


def test_averaged_bounds_solve_the_defining_equation_by_hand() -> None:
    # a = 0.2 with a variance 0.004 + 0.01·p; b = 30/100, f = 0.75. At each bound p₀ the
    # average with the weights at p₀ lies t standard errors from p₀.
    def v_a(p: float) -> float:
        return 0.004 + 0.01 * p

    lo, hi = score_bounds(30, 100, 0.75, Z, (0.2, v_a))
    for bound, sign in ((lo, 1), (hi, -1)):
        v_b = bound * (1 - bound) * 0.75 / 100
        w = v_b / (v_a(bound) + v_b)
        average = w * 0.2 + (1 - w) * 0.3
        se = math.sqrt(v_a(bound) * v_b / (v_a(bound) + v_b))
        assert average - bound == pytest.approx(sign * Z * se, abs=1e-9)
    # between the two estimates' own intervals, and narrower than the labels' alone
    alone = score_bounds(30, 100, 0.75, Z)
    assert hi - lo < alone[1] - alone[0]
    assert 0.2 < (lo + hi) / 2 < 0.3


def test_an_exact_other_estimate_pins_the_interval() -> None:
    # the other estimate's variance ~0: the interval is a ± t·√v_a, whatever the labels say
    lo, hi = score_bounds(30, 100, 1.0, Z, (0.2, lambda p: 1e-8))
    assert (lo, hi) == pytest.approx((0.2 - Z * 1e-4, 0.2 + Z * 1e-4), abs=1e-6)


@given(
    st.integers(0, 300),
    st.integers(1, 300),
    st.floats(0.05, 1.0),
    st.none() | st.tuples(st.floats(-0.2, 1.2), st.floats(1e-5, 0.5)),
)
def test_interval_shape(x: int, n: int, fpc: float, other: tuple[float, float] | None) -> None:
    x = min(x, n)
    pair = None if other is None else (other[0], lambda p, v=other[1]: v)
    lo, hi = score_bounds(x, n, fpc, Z, pair)
    assert 0.0 <= lo <= hi <= 1.0
    if other is None:
        assert lo <= x / n <= hi  # Wilson's holds the share
        more = score_bounds(min(x + 1, n), n, fpc, Z)
        assert more[0] >= lo - 1e-12 and more[1] >= hi - 1e-12  # more positives, higher bounds


def test_correct_uses_the_score_interval_with_direct_labels() -> None:
    table = JudgeError(true_positive=18, false_negative=2, true_negative=56, false_positive=24)
    direct = JudgeError(30, 0, 70, 0).human_positive  # 30 of 100 labelled claims positive
    got = correct(0.42, 0.05, table, direct=direct, window_claims=400)
    rg_alone = correct(0.42, 0.05, table, window_claims=400)
    assert got.lower is not None and got.upper is not None and got.value is not None
    assert got.lower <= got.value <= got.upper
    # the RG estimate alone is the symmetric delta-method interval, unchanged
    assert rg_alone.value is not None and rg_alone.stderr is not None
    assert rg_alone.upper == pytest.approx(rg_alone.value + Z * rg_alone.stderr)
    # with a degenerate table the labels alone give Wilson's (finite-population corrected)
    alone = correct(0.3, 0.05, JudgeError(5, 5, 5, 5), direct=direct, window_claims=400)
    assert (alone.lower, alone.upper) == pytest.approx(wilson(0.3, 100 / 0.75), abs=1e-9)


def test_coverage_at_a_low_rate_misses_on_both_sides_alike() -> None:
    """A window of 2,000 claims at a human rate of 0.10; a judge of Se 0.9, Sp 0.7 reads each
    claim afresh every trial; 5% of the window judged; 100 claims of the window labelled by
    people, which both calibrate the judge and count directly. A 95% interval should miss about
    2.5% on each side. Centred on the estimate with its variance at the estimate (the Wald
    interval this replaced), this population read 1.5% above and 5.4% below."""
    m, rate, se, sp = 2000, 0.10, 0.9, 0.7
    rng = random.Random(1)
    human = [1 if i < m * rate else 0 for i in range(m)]
    above = below = trials = 0
    for _ in range(1500):
        judge = [int(rng.random() < (se if h else 1 - sp)) for h in human]
        sample = rng.sample(range(m), m // 20)
        ys = [judge[i] for i in sample]
        n = len(ys)
        stderr = math.sqrt(statistics.variance(ys) / n * (1 - n / m))
        tp = fn = tn = fp = 0
        for i in rng.sample(range(m), 100):
            h, j = human[i], judge[i]
            if h:
                tp, fn = tp + j, fn + (not j)
            else:
                fp, tn = fp + j, tn + (not j)
        table = JudgeError(tp, fn, tn, fp)
        got = correct(
            statistics.fmean(ys),
            stderr,
            table,
            df=n - 1,
            window_claims=m,
            direct=table.human_positive,
        )
        if got.lower is None or got.upper is None:
            continue
        trials += 1
        above += got.lower > rate
        below += got.upper < rate
    assert trials > 1400
    assert above / trials <= 0.04 and below / trials <= 0.04, (above, below, trials)
    assert 0.93 <= 1 - (above + below) / trials <= 0.98
