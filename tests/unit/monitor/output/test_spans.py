from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from monitor.output.spans import (
    intersection_size,
    jaccard,
    merge,
    size,
    span_accuracy,
    token_intervals,
    tolerant_jaccard,
)

K = ("doc1.pdf", 1)


def test_seed_example_corrected_jaccard_is_one_third() -> None:
    # [100,200) ∩ [150,250) = 50 chars, union = [100,250) = 150 chars.
    acc = span_accuracy([(K, 100, 200)], [(K, 150, 250)])
    assert acc["jaccard"] == 50 / 150
    assert acc["dice"] == 2 * 50 / (100 + 100)
    assert acc["char_precision"] == 0.5
    assert acc["char_recall"] == 0.5
    assert acc["char_f1"] == 0.5
    assert acc["mean_best_jaccard"] == 1 / 3
    # prediction snapped 10 chars towards gold: [140,240) vs [100,200) → 60 / 140.
    assert acc["tolerance_jaccard"] == 60 / 140


def test_perfect_and_disjoint() -> None:
    perfect = span_accuracy([(K, 100, 150)], [(K, 100, 150)])
    assert perfect["jaccard"] == perfect["tolerance_jaccard"] == 1.0
    assert perfect["perfect_matches"] == 1.0
    disjoint = span_accuracy([(K, 100, 150)], [(K, 200, 250)])
    assert disjoint["jaccard"] == 0.0
    assert disjoint["char_f1"] == 0.0
    assert disjoint["perfect_matches"] == 0.0


def test_tolerance_never_hurts_and_absorbs_small_shifts() -> None:
    # 4 chars early at the start and 6 late at the end: within ±10, so it counts as exact.
    assert tolerant_jaccard((1230, 1290), (1234, 1296), 10) == 1.0
    assert jaccard((1230, 1290), (1234, 1296)) == 56 / 66


def test_best_match_is_per_gold_span() -> None:
    gold = [(K, 0, 100), (K, 500, 600)]
    pred = [(K, 0, 100), (K, 550, 600)]
    acc = span_accuracy(gold, pred)
    # gold 1 best = 1.0, gold 2 best = 50/100: mean 0.75 (a single global max would say 1.0).
    assert acc["mean_best_jaccard"] == 0.75
    assert acc["perfect_matches"] == 1.0


def test_other_page_does_not_match() -> None:
    acc = span_accuracy([(("a", 1), 0, 10)], [(("a", 2), 0, 10)])
    assert acc["jaccard"] == 0.0
    assert acc["char_precision"] == 0.0


def test_overlapping_predictions_are_counted_once() -> None:
    acc = span_accuracy([(K, 0, 100)], [(K, 0, 60), (K, 40, 100)])
    assert acc["char_precision"] == 1.0
    assert acc["jaccard"] == 1.0


def test_token_precision_recall() -> None:
    text = "alpha beta gamma delta"  # tokens [0,5) [6,10) [11,16) [17,22)
    toks = {K: token_intervals(text)}
    assert toks[K] == [(0, 5), (6, 10), (11, 16), (17, 22)]
    acc = span_accuracy([(K, 0, 10)], [(K, 8, 16)], tokens=toks)
    # gold tokens {alpha, beta}; predicted overlaps {beta, gamma}.
    assert acc["token_precision"] == 0.5
    assert acc["token_recall"] == 0.5


intervals = st.lists(
    st.tuples(st.integers(0, 300), st.integers(0, 300)).map(lambda t: (min(t), max(t))), max_size=12
)


@given(intervals, intervals)
def test_interval_arithmetic_matches_sets(
    a: list[tuple[int, int]], b: list[tuple[int, int]]
) -> None:
    sa = {i for s, e in a for i in range(s, e)}
    sb = {i for s, e in b for i in range(s, e)}
    ma, mb = merge(a), merge(b)
    assert size(ma) == len(sa)
    assert intersection_size(ma, mb) == len(sa & sb)
    assert all(x[1] < y[0] for x, y in itertools.pairwise(ma))


@given(intervals, intervals)
def test_metrics_bounded_and_consistent(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> None:
    acc = span_accuracy([(K, s, e) for s, e in a], [(K, s, e) for s, e in b])
    for key, value in acc.items():
        if key not in ("perfect_matches", "good_matches"):
            assert 0.0 <= value <= 1.0, key
    j, d = acc["jaccard"], acc["dice"]
    assert abs(d - 2 * j / (1 + j)) < 1e-9  # Dice and Jaccard are one function of each other


@given(
    st.tuples(st.integers(0, 200), st.integers(1, 100)),
    st.tuples(st.integers(0, 200), st.integers(1, 100)),
    st.integers(0, 30),
)
def test_tolerant_at_least_exact(g: tuple[int, int], p: tuple[int, int], tol: int) -> None:
    gold = (g[0], g[0] + g[1])
    pred = (p[0], p[0] + p[1])
    assert tolerant_jaccard(gold, pred, tol) >= jaccard(gold, pred) - 1e-12
    assert tolerant_jaccard(gold, pred, 0) == jaccard(gold, pred)
