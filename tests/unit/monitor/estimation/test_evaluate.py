"""The offline evaluation's figures: today's corrections, truth, the resampling loop."""

from __future__ import annotations

import math
import random

import pytest

from monitor.estimation.evaluate import (
    EvalUnit,
    base_sums,
    cheap,
    median_interval,
    reference,
    resample,
    sample_figures,
    truth,
)


def unit(label: str, score: float | None, sup: int, unsup: int, claims: int = 1) -> EvalUnit:
    judgeable = 0 if score is None else 1
    return EvalUnit(label, label, score, claims, sup, unsup, judgeable, sup, unsup)


UNITS = [
    unit("supported", 0.9, 1, 0),
    unit("supported", 0.1, 0, 1),  # cheap tier wrong
    unit("not_supported", 0.2, 0, 1),
    unit("partially_supported", 0.6, 0, 0),
    unit("supported", None, 0, 1),  # uncited: decided by rule
]


def test_truth_cheap_and_reference() -> None:
    assert truth(UNITS) == {"support": 0.6, "hallucination": 0.2}
    assert cheap(UNITS) == {"support": 0.2, "hallucination": 0.6}
    # the uncited claim is not supported by rule: the estimate's target
    assert reference(UNITS) == {"support": 0.4, "hallucination": 0.4}


def test_corrections_replace_the_judged_cheap_verdicts_only() -> None:
    fig = sample_figures(UNITS, base_sums(UNITS), [1, 3])
    # unit 1: cheap not supported -> label supported; unit 3: partial stays partial
    assert fig["support"]["correction"] == pytest.approx(2 / 5)
    assert fig["hallucination"]["correction"] == pytest.approx(2 / 5)
    assert fig["n"] == 2


def test_judging_everything_recovers_the_reference() -> None:
    out = resample(UNITS, judge_rate=1.0, resamples=2, seed=3)
    assert out["support"]["estimate_median"] == pytest.approx(0.4)
    assert out["hallucination"]["estimate_median"] == pytest.approx(0.4)
    assert out["support"]["correction_abs_error_median"] == pytest.approx(0.2)


def test_same_seed_same_figures() -> None:
    many = UNITS * 40
    assert resample(many, 0.3, 20, seed=5) == resample(many, 0.3, 20, seed=5)
    assert resample(many, 0.3, 20, seed=5) != resample(many, 0.3, 20, seed=6)


def test_median_interval_ranks_by_hand() -> None:
    # R = 10: P(B ≤ 1) = 11/1024, two-sided 0.0215 ≤ 0.05; P(B ≤ 2) = 56/1024, 0.109 > 0.05:
    # ranks 2 and 9 (the textbook pair for n = 10)
    assert median_interval([float(x) for x in range(10, 0, -1)]) == (2.0, 9.0)
    # R = 6: 2/64 = 0.031 ≤ 0.05, so ranks 1 and 6; R = 5: 2/32 = 0.0625 > 0.05, no interval
    assert median_interval([3.0, 1.0, 2.0, 6.0, 5.0, 4.0]) == (1.0, 6.0)
    assert median_interval([1.0, 2.0, 3.0, 4.0, 5.0]) is None
    assert median_interval([]) is None


def test_median_interval_covers_the_true_median() -> None:
    # draws from an exponential distribution (median ln 2): the interval holds it in at least
    # 95% of seeded repetitions (the order-statistic interval is conservative)
    hits = 0
    trials = 400
    for seed in range(trials):
        rng = random.Random(seed)
        iv = median_interval([rng.expovariate(1.0) for _ in range(60)])
        assert iv is not None
        hits += iv[0] <= math.log(2) <= iv[1]
    assert 0.93 <= hits / trials <= 0.995


def test_median_interval_with_thousands_of_resamples() -> None:
    # 2^4000 is no float: the ranks come from exact integers. For large R they approach the
    # normal approximation R/2 ∓ 1.96·√R/2 (4000: 1938 and 2063, 1-based)
    lo, hi = median_interval([float(x) for x in range(4000)]) or (None, None)
    assert lo is not None and hi is not None
    assert abs(lo - (2000 - 1.96 * math.sqrt(4000) / 2)) <= 2
    assert abs(hi - (2000 + 1.96 * math.sqrt(4000) / 2)) <= 2
