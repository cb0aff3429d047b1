"""The human-scale correction: Rogan-Gladen by hand, the delta-method variance by hand, the
inverse-variance combination, the degenerate cases, and coverage over many seeded samples of a
known population."""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from monitor.estimation.evaluate import EvalUnit
from monitor.estimation.evaluate_human import calibration, resample_human, simulate_judge
from monitor.estimation.human import (
    NO_BETTER_THAN_CHANCE,
    NO_HUMAN_NEGATIVE,
    NO_HUMAN_POSITIVE,
    combine,
    correct,
    human_only,
    rogan_gladen,
    window_human,
)
from monitor.estimation.judge_error import JudgeError, Share
from monitor.estimation.window import answer_sums, label_sums

Z = 1.959963984540054
Z2 = Z * Z


def ac_var(x: int, n: int) -> float:
    p = (x + Z2 / 2) / (n + Z2)
    return p * (1 - p) / (n + Z2)


def test_rogan_gladen_by_hand() -> None:
    # the example: a true rate of 0.20 read by a judge of Se 0.9, Sp 0.7 as
    # 0.20·0.9 + 0.80·0.3 = 0.42; the correction gives 0.20 back
    assert rogan_gladen(0.42, 0.9, 0.7) == pytest.approx(0.2)
    assert rogan_gladen(0.3, 1.0, 1.0) == pytest.approx(0.3)
    with pytest.raises(ValueError):
        rogan_gladen(0.3, 0.5, 0.5)


TABLE = JudgeError(true_positive=18, false_negative=2, true_negative=56, false_positive=24)


def test_delta_method_by_hand() -> None:
    # Se = 18/20 = 0.9, Sp = 56/80 = 0.7, J = 0.6; p = (0.42 + 0.7 - 1)/0.6 = 0.2
    # Var = [0.02² + 0.2²·ac(18,20) + 0.8²·ac(56,80)] / 0.6²
    got = correct(0.42, 0.02, TABLE)
    var = (0.02**2 + 0.04 * ac_var(18, 20) + 0.64 * ac_var(56, 80)) / 0.36
    assert got.value == pytest.approx(0.2)
    assert got.stderr == pytest.approx(math.sqrt(var))
    assert got.lower == pytest.approx(0.2 - Z * math.sqrt(var))
    assert got.upper == pytest.approx(0.2 + Z * math.sqrt(var))
    assert got.labels == 100 and got.reason is None


def test_window_term_by_hand() -> None:
    # W = [p·Se~(1-Se~) + (1-p)·Sp~(1-Sp~)]/M with the adjusted shares, M = 500
    se = (18 + Z2 / 2) / (20 + Z2)
    sp = (56 + Z2 / 2) / (80 + Z2)
    w = (0.2 * se * (1 - se) + 0.8 * sp * (1 - sp)) / 500
    var = (0.05**2 + 0.04 * ac_var(18, 20) + 0.64 * ac_var(56, 80) + w) / 0.36
    assert correct(0.42, 0.05, TABLE, window_claims=500).stderr == pytest.approx(math.sqrt(var))


def test_scale_offset_and_student_t() -> None:
    # rate = 0.1 + 0.5·0.2 = 0.2; stderr scaled by 0.5; t with 9 degrees of freedom (2.262)
    base = correct(0.42, 0.05, TABLE)
    got = correct(0.42, 0.05, TABLE, df=9, scale=0.5, offset=0.1)
    assert got.value == pytest.approx(0.2)
    assert got.stderr == pytest.approx(0.5 * (base.stderr or 0))
    assert got.upper == pytest.approx(0.2 + 2.2622 * 0.5 * (base.stderr or 0), abs=2e-4)


def test_combine_by_hand() -> None:
    # weights 1/4 : 3/4 for variances 3 : 1; variance 3·1/(3+1)
    assert combine((0.4, 3.0), (0.2, 1.0)) == pytest.approx((0.25, 0.75))
    assert combine((0.4, 3.0), None) == (0.4, 3.0)
    assert combine((0.4, 0.0), (0.2, 1.0)) == (0.4, 0.0)


def test_direct_labels_combine_with_the_correction() -> None:
    direct = Share(30, 100)  # 30 of 100 labelled claims of a window of 400 positive
    v_direct = ac_var(30, 100) * (1 - 100 / 400)
    got = correct(0.42, 0.05, TABLE, direct=direct, window_claims=400)
    rg_w = correct(0.42, 0.05, TABLE, window_claims=400)
    v_rg = (rg_w.stderr or 0) ** 2
    w = v_direct / (v_rg + v_direct)
    assert got.value == pytest.approx(w * 0.2 + (1 - w) * 0.3)
    assert got.stderr == pytest.approx(math.sqrt(v_rg * v_direct / (v_rg + v_direct)))
    assert (got.stderr or 1) < min(rg_w.stderr or 0, math.sqrt(v_direct))


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        (JudgeError(0, 0, 5, 1), NO_HUMAN_POSITIVE),
        (JudgeError(5, 1, 0, 0), NO_HUMAN_NEGATIVE),
        (JudgeError(5, 5, 5, 5), NO_BETTER_THAN_CHANCE),  # Se + Sp = 1
        (JudgeError(2, 8, 3, 7), NO_BETTER_THAN_CHANCE),  # Se + Sp = 0.5: an inverted judge
    ],
)
def test_degenerate_tables_give_a_reason_and_no_figure(table: JudgeError, reason: str) -> None:
    got = correct(0.3, 0.05, table)
    assert got.reason == reason
    assert got.value is None and got.lower is None and got.upper is None
    assert got.judged == 0.3
    assert not got.covers(0.3)
    # ... unless the window has human labels of its own: they alone give the figure
    alone = correct(0.3, 0.05, table, direct=Share(3, 10), window_claims=100)
    assert alone.value == pytest.approx(0.3)
    assert alone.reason is None


def test_human_only_interval() -> None:
    assert human_only(JudgeError(0, 0, 0, 0)) is None
    lo, hi = human_only(TABLE) or (0, 0)
    assert (lo, hi) == (Share(20, 100).lower, Share(20, 100).upper)


@given(
    st.floats(0.0, 1.0),
    st.floats(0.55, 1.0),
    st.floats(0.55, 1.0),
)
def test_correction_inverts_the_judge(p: float, se: float, sp: float) -> None:
    judged = se * p + (1 - sp) * (1 - p)
    assert rogan_gladen(judged, se, sp) == pytest.approx(p, abs=1e-9)


@given(
    st.floats(0.0, 1.0),
    st.floats(0.0, 0.2),
    st.integers(1, 50),
    st.integers(0, 50),
    st.integers(1, 50),
    st.integers(0, 50),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
)
def test_interval_is_ordered_and_holds_the_estimate(
    judged: float, stderr: float, tp: int, fn: int, tn: int, fp: int, scale: float, offset: float
) -> None:
    assume(scale + offset <= 1.0)
    got = correct(judged, stderr, JudgeError(tp, fn, tn, fp), scale=scale, offset=offset)
    if got.reason is not None:
        assert tp / (tp + fn) + tn / (tn + fp) <= 1 + 1e-12
        return
    assert got.lower is not None and got.upper is not None and got.value is not None
    assert 0 <= got.lower <= got.value <= got.upper <= 1


@given(st.floats(-1, 1), st.floats(1e-6, 1), st.floats(-1, 1), st.floats(1e-6, 1))
def test_combination_lies_between_and_is_narrower(a: float, va: float, b: float, vb: float) -> None:
    value, var = combine((a, va), (b, vb))
    assert min(a, b) - 1e-12 <= value <= max(a, b) + 1e-12
    assert var <= min(va, vb) + 1e-15


def test_coverage_of_a_known_population() -> None:
    """A window of 1,500 claims with a human rate of 0.2; a judge of Se 0.9, Sp 0.7 reads each
    claim afresh every trial; 10% of the window is judged (the judge-scale share with its
    finite-population-corrected stderr); 200 calibration labels from a separate horizon. The
    interval must hold the window's human rate about 95% of the time."""
    m, rate, se, sp = 1500, 0.2, 0.9, 0.7
    rng = random.Random(7)
    human = [1 if i < m * rate else 0 for i in range(m)]
    covered, widths = [], []
    for _ in range(600):
        judge = [int(rng.random() < (se if h else 1 - sp)) for h in human]
        sample = rng.sample(range(m), m // 10)
        ys = [judge[i] for i in sample]
        n = len(ys)
        p_j = statistics.fmean(ys)
        stderr = math.sqrt(statistics.variance(ys) / n * (1 - n / m))
        horizon = [int(rng.random() < 0.25) for _ in range(200)]  # the horizon's rate differs
        tp = fn = tn = fp = 0
        for h in horizon:
            j = rng.random() < (se if h else 1 - sp)
            if h:
                tp, fn = tp + j, fn + (not j)
            else:
                fp, tn = fp + j, tn + (not j)
        got = correct(p_j, stderr, JudgeError(tp, fn, tn, fp), df=n - 1, window_claims=m)
        covered.append(got.covers(rate))
        widths.append(got.halfwidth or 0)
    coverage = statistics.fmean(covered)
    assert 0.93 <= coverage <= 0.99, coverage
    # the judge-scale interval alone would hold 0.42, not 0.2: the correction is doing the work
    assert statistics.median(widths) < 0.25


def _units(n: int, rate_ns: float, rate_s: float, seed: int) -> list[EvalUnit]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        u = rng.random()
        label = (
            "not_supported"
            if u < rate_ns
            else "supported"
            if u < rate_ns + rate_s
            else "partially_supported"
        )
        score = min(1.0, max(0.0, rng.gauss(0.7 if label == "supported" else 0.4, 0.2)))
        out.append(EvalUnit(label, label, round(score, 4), 1, 0, 0, 1, 0, 0))
    return out


def test_simulated_judge_has_the_asked_error() -> None:
    units = _units(4000, 0.2, 0.5, 1)
    judged = simulate_judge(units, 0.9, 0.7, random.Random(2))
    table = calibration(judged, 4000, random.Random(3))["hallucination"]
    assert table.sensitivity.lower is not None and table.sensitivity.upper is not None
    assert table.sensitivity.lower <= 0.9 <= table.sensitivity.upper
    assert table.specificity.lower is not None and table.specificity.upper is not None
    assert table.specificity.lower <= 0.7 <= table.specificity.upper
    assert [u.truth for u in judged] == [u.truth for u in units]


def test_eval_coverage_against_a_known_truth() -> None:
    """The whole offline path (window sums, PPI++, calibration, correction) over 300 seeded
    resamples of a synthetic labelled set: both corrected intervals cover 0.90-0.99."""
    units = _units(800, 0.2, 0.5, 4)
    out = resample_human(units, 0.1, 300, 0, 150, sensitivity=0.9, specificity=0.7)
    for rate in ("support", "hallucination"):
        r = out[rate]
        assert 0.90 <= r["corrected_ci_coverage"] <= 0.99, (rate, r)
        # every resample's interval covers, or misses on one side
        sides = r["corrected_ci_miss_above"] + r["corrected_ci_miss_below"]
        assert sides + r["corrected_ci_coverage"] == pytest.approx(1.0)
        assert max(r["corrected_ci_miss_above"], r["corrected_ci_miss_below"]) <= 0.06, r
        assert 0.90 <= r["rogan_gladen_ci_coverage"] <= 0.995, (rate, r)
        # the judge-scale estimate is biased by the simulated judge; the correction is not
        assert r["corrected_abs_error_median"] < r["judge_scale_abs_error_median"]


def test_window_human_matches_correct_on_the_window_share() -> None:
    # four judgeable one-claim answers and one decided by rule (not supported): claims = 5
    sums: dict[str, int] = {}
    for s in (0.9, 0.2, 0.6, 0.5):
        for k, v in answer_sums([s], 0, 0).items():
            sums[k] = sums.get(k, 0) + v
    sums["ruled_unsupported"] = 1
    for s, h in ((0.9, 0), (0.2, 1), (0.6, 1)):
        for k, v in label_sums([s], 1 - h, h).items():
            sums[k] = sums.get(k, 0) + v
    got = window_human(sums, "hallucination", TABLE)
    assert got is not None and got.value is not None
    # the judge-scale share of the judgeable claims is recovered from the rate: 0.8·p_J + 0.2
    assert 0 <= got.judged <= 1
    assert got.value == pytest.approx(
        min(1.0, max(0.0, 0.2 + 0.8 * min(1.0, max(0.0, rogan_gladen(got.judged, 0.9, 0.7)))))
    )
    assert window_human({}, "hallucination", TABLE) is None
