"""The judge's sensitivity and specificity from calibration pairs: hand-computed tables and
Agresti-Coull intervals."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.estimation.judge_error import GRADES, JudgeError, Share, judge_error

Z2 = 1.959963984540054**2


def test_agresti_coull_by_hand() -> None:
    share = Share(18, 20)
    # p~ = (18 + z²/2)/(20 + z²), half-width z·sqrt(p~(1-p~)/(20 + z²))
    p = (18 + Z2 / 2) / (20 + Z2)
    half = math.sqrt(Z2) * math.sqrt(p * (1 - p) / (20 + Z2))
    assert share.value == 0.9
    assert share.lower == pytest.approx(p - half)
    assert share.upper == pytest.approx(min(1.0, p + half))
    assert share.variance() == pytest.approx(p * (1 - p) / (20 + Z2))


def test_all_agreements_still_have_width() -> None:
    share = Share(20, 20)
    assert share.value == 1.0
    assert share.upper == 1.0
    assert share.lower is not None and share.lower < 0.9
    assert share.variance() > 0


def test_no_trial_has_no_value() -> None:
    share = Share(0, 0)
    assert share.value is None and share.lower is None and share.upper is None
    assert share.to_dict()["count"] == 0


def test_table_for_each_rate() -> None:
    pairs = [
        ("not_supported", "not_supported"),  # hallucination TP
        ("supported", "not_supported"),  # hallucination FN; support FP
        ("not_supported", "supported"),  # hallucination FP; support FN
        ("supported", "supported"),  # support TP
        ("partially_supported", "supported"),  # support FN; hallucination TN
        ("unverifiable", "supported"),  # not a grade: left out
        ("supported", "cannot_tell"),  # not a grade: left out
    ]
    hal = judge_error(pairs, "hallucination")
    assert (hal.true_positive, hal.false_negative, hal.true_negative, hal.false_positive) == (
        1,
        1,
        2,
        1,
    )
    sup = judge_error(pairs, "support")
    assert (sup.true_positive, sup.false_negative, sup.true_negative, sup.false_positive) == (
        1,
        2,
        1,
        1,
    )
    assert sup.sensitivity.value == pytest.approx(1 / 3)
    assert sup.specificity.value == pytest.approx(1 / 2)
    assert sup.youden() == pytest.approx(1 / 3 + 1 / 2 - 1)
    assert sup.labels == 5
    assert sup.human_positive.value == pytest.approx(3 / 5)


def test_youden_unknown_without_one_class() -> None:
    assert judge_error([("supported", "supported")], "support").youden() is None


def test_tables_add() -> None:
    a, b = JudgeError(1, 2, 3, 4), JudgeError(10, 20, 30, 40)
    assert a + b == JudgeError(11, 22, 33, 44)


pair = st.tuples(st.sampled_from(GRADES), st.sampled_from(GRADES))


@given(st.lists(pair, max_size=60), st.sampled_from(["support", "hallucination"]))
def test_table_counts_every_graded_pair_once(pairs: list[tuple[str, str]], rate: str) -> None:
    t = judge_error(pairs, rate)
    assert t.labels == len(pairs)
    for share in (t.sensitivity, t.specificity, t.agreement):
        if share.trials:
            assert share.lower is not None and share.upper is not None
            assert 0 <= share.lower <= share.upper <= 1
            # Agresti-Coull's interval holds its own centre, which lies between the share and 1/2
            p, _ = share.adjusted()
            assert share.lower <= p <= share.upper
