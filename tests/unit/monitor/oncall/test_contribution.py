from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.oncall.contribution import inclusion_weight, leave_one_out, rank, top_ids


def test_leave_one_out_by_hand() -> None:
    # Window: 10 hallucinated of 40 claims (0.25). An answer with 4 of 5: without it 6/35.
    assert leave_one_out(10, 40, 4, 5) == pytest.approx(0.25 - 6 / 35)
    # An answer at the window's rate moves nothing.
    assert leave_one_out(10, 40, 1, 4) == pytest.approx(0.0)
    # A clean answer lowers the rate: without it 10/36.
    assert leave_one_out(10, 40, 0, 4) == pytest.approx(0.25 - 10 / 36)
    # The whole window, or an empty one: nothing to compare with.
    assert leave_one_out(3, 5, 3, 5) == 0.0
    assert leave_one_out(0, 0, 0, 0) == 0.0


@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.integers(0, 20)).map(lambda t: (min(t), max(t))),
        min_size=2,
        max_size=30,
    )
)
def test_leave_one_out_is_the_exact_difference(parts: list[tuple[int, int]]) -> None:
    total_n = sum(n for n, _ in parts)
    total_d = sum(d for _, d in parts)
    for n, d in parts:
        if total_d == 0 or total_d - d == 0:
            continue
        exact = Fraction(total_n, total_d) - Fraction(total_n - n, total_d - d)
        assert leave_one_out(total_n, total_d, n, d) == pytest.approx(float(exact), abs=1e-12)


def test_rank_above_puts_the_worst_answer_first_not_the_latest() -> None:
    answers = [
        ("a-clean", {"unsupported_claims": 0, "claims": 4}),
        ("b-one-bad", {"unsupported_claims": 1, "claims": 4}),
        ("c-all-bad", {"unsupported_claims": 6, "claims": 6}),
        ("d-half", {"unsupported_claims": 2, "claims": 4}),
    ]
    ranked = rank(answers, "hallucination", "above")
    # totals 9/18 = 0.5; moves: c (6-3)/12=0.25, d 0, b (1-2)/14<0, a (0-2)/14<0
    assert [c.event_id for c in ranked] == ["c-all-bad", "d-half", "b-one-bad", "a-clean"]
    assert ranked[0].move == pytest.approx(0.25)
    assert ranked[1].move == pytest.approx(0.0)
    assert ranked[2].move == pytest.approx(-1 / 14)
    assert top_ids(ranked, 5) == ("c-all-bad",)


def test_rank_below_uses_the_other_direction() -> None:
    # validity: 2 valid of 10 citations in "x", 8 of 8 in "y" → totals 10/18
    answers = [
        ("x", {"valid_citations": 2, "citations": 10}),
        ("y", {"valid_citations": 8, "citations": 8}),
    ]
    ranked = rank(answers, "validity", "below")
    assert ranked[0].event_id == "x"
    # without x the rate is 8/8 = 1, so x lowered it by 1 - 10/18
    assert ranked[0].move == pytest.approx(1 - 10 / 18)


def test_exact_totals_override_the_estimate() -> None:
    answers = [("x", {"unsupported_claims": 2, "claims": 2})]
    ranked = rank(answers, "hallucination", "above", totals={"unsupported_claims": 2, "claims": 20})
    assert ranked[0].move == pytest.approx(0.1 - 0 / 18)


def test_unknown_figure_is_refused() -> None:
    with pytest.raises(ValueError):
        rank([], "dlq_rate", "above")


def test_inclusion_weight() -> None:
    assert inclusion_weight("failure", 0.01) == 1.0
    assert inclusion_weight("sample", 0.25) == 4.0
    assert inclusion_weight("sample", 0.0) == 1.0
