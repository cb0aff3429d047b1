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


def test_units_without_a_judgeable_claim_count_as_the_stream_rules_them() -> None:
    from dataclasses import replace

    refusal = replace(unit("supported", None, 0, 0), ruled=None)  # counts in no rate
    ruled_ok = replace(unit("supported", None, 1, 0), ruled="supported")  # a stated JSON value
    ruled_part = replace(unit("partially_supported", None, 0, 0), ruled="partially_supported")
    units = [*UNITS, refusal, ruled_ok, ruled_part]
    sums, plain = base_sums(units), base_sums(UNITS)
    # by hand: the refusal adds nothing; the others one ruled claim each, of their kind
    assert sums["ruled_unsupported"] == plain["ruled_unsupported"] == 1
    assert sums["ruled_supported"] == plain.get("ruled_supported", 0) + 1
    assert sums["ruled_other"] == plain.get("ruled_other", 0) + 1
    assert {k: v for k, v in sums.items() if not k.startswith("ruled_")} == {
        k: v for k, v in plain.items() if not k.startswith("ruled_")
    }
    # the reference counts 7 units (not the refusal): supported 1 (0.9) + 1 (ruled) = 2 of 7...
    # with UNITS' own reference 2 of 5 supported, 2 of 5 not: (2 + 1) / 7 and 2 / 7
    assert reference(units) == {
        "support": pytest.approx(3 / 7),
        "hallucination": pytest.approx(2 / 7),
    }
    # the truth is the human label of every unit, the refusal included: UNITS' 3 supported of
    # 5, the refusal and ruled_ok supported, ruled_part partly: 5 of 8; 1 of 8 not supported
    assert truth(units) == {"support": 5 / 8, "hallucination": 1 / 8}
    out = resample(units, judge_rate=1.0, resamples=2, seed=1)
    assert out["uncounted_events"] == 1 and out["judgeable_events"] == 4
    assert out["support"]["estimate_median"] == pytest.approx(3 / 7)


def test_refusals_left_out_keep_the_interval_on_the_truth() -> None:
    # 2,000 claims, 10% hallucinated, plus 150 refusals the humans call supported (they state
    # nothing false). Counted as not supported by rule (the old evaluation), the estimate
    # targets (200 + 150) / 2150 = 0.163 against a truth of 200 / 2150 = 0.093; left out as
    # the stream leaves them out, 200 / 2000 = 0.100 (the interval's half-width is ~0.04).
    # Coverage over seeded judge samples:
    from dataclasses import replace

    rng = random.Random(7)
    claims = []
    for i in range(2000):
        bad = i % 10 == 0
        score = min(1.0, max(0.0, rng.gauss(0.3 if bad else 0.7, 0.2)))
        claims.append(unit("not_supported" if bad else "supported", round(score, 3), 0, 0))
    refusals = [unit("supported", None, 0, 0) for _ in range(150)]
    stream = resample([*claims, *(replace(u, ruled=None) for u in refusals)], 0.1, 200, seed=2)
    old = resample([*claims, *refusals], 0.1, 200, seed=2)
    assert stream["hallucination"]["truth"] == pytest.approx(200 / 2150)
    assert stream["hallucination"]["ci_coverage"] >= 0.9
    assert old["hallucination"]["ci_coverage"] <= 0.05
