"""Evidence windows, cosine and aggregation of the semantic signal, with hand-computed values."""

from __future__ import annotations

import math

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from monitor.semantic.windows import answer_score, best_window, cosine, windows

# sentences of 3, 2, 4 and 1 words
TEXT = "Cats eat fish. Dogs bark. Birds sing very loudly. Yes."


def test_windows_grow_to_three_sentences_within_the_word_cap() -> None:
    assert windows(TEXT, sentences=3, max_words=6) == [
        "Cats eat fish. Dogs bark.",  # 3 + 2; adding 4 would make 9 > 6
        "Dogs bark. Birds sing very loudly.",  # 2 + 4 = 6; adding 1 would make 7
        "Birds sing very loudly. Yes.",  # 4 + 1
        "Yes.",
    ]
    assert windows(TEXT, sentences=3, max_words=90) == [
        "Cats eat fish. Dogs bark. Birds sing very loudly.",
        "Dogs bark. Birds sing very loudly. Yes.",
        "Birds sing very loudly. Yes.",
        "Yes.",
    ]


def test_a_long_sentence_is_cut_into_pieces_of_the_word_cap() -> None:
    text = " ".join(f"w{i}" for i in range(7)) + "."
    assert windows(text, sentences=1, max_words=3) == ["w0 w1 w2", "w3 w4 w5", "w6."]


def test_identical_windows_are_kept_once() -> None:
    assert windows("Same here. Same here.", sentences=1) == ["Same here."]
    assert windows("") == []
    with pytest.raises(ValueError):
        windows(TEXT, sentences=0)


def test_cosine_hand_computed() -> None:
    assert cosine([1.0, 0.0], [1.0, 1.0]) == pytest.approx(1 / math.sqrt(2))
    assert cosine([1.0, 2.0], [-2.0, 1.0]) == 0.0
    assert cosine([3.0, 4.0], [6.0, 8.0]) == pytest.approx(1.0)
    assert cosine([0.0, 0.0], [1.0, 1.0]) == 0.0
    with pytest.raises(ValueError):
        cosine([1.0], [1.0, 2.0])


@given(
    st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=8).flatmap(
        lambda u: st.tuples(
            st.just(u), st.lists(st.floats(-1e3, 1e3), min_size=len(u), max_size=len(u))
        )
    )
)
@example(([2.666889151106643e-162], [1.0]))  # underflow in the sum of squares: 1.2 before
def test_cosine_is_bounded_and_symmetric(pair: tuple[list[float], list[float]]) -> None:
    u, v = pair
    c = cosine(u, v)
    assert -1 - 1e-9 <= c <= 1 + 1e-9
    assert c == pytest.approx(cosine(v, u))


def test_best_window_and_answer_score() -> None:
    assert best_window([0.2, 0.7, 0.7, 0.1]) == (1, 0.7)  # the first on a tie
    assert best_window([]) is None
    assert answer_score([0.8, 0.6]) == 0.6  # the weakest claim
    assert answer_score([0.8, None]) == 0.0  # a claim without evidence is unsupported
    assert answer_score([]) is None
