"""Agreement statistics, checked against values computed by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.output.calibration import (
    agreement_rate,
    agreement_report,
    auroc,
    balanced_accuracy,
    binary_prediction,
    confusion_matrix,
    midranks,
    spearman,
)


def test_balanced_accuracy_is_mean_class_recall() -> None:
    # recall(True) = 2/3, recall(False) = 1/1
    assert balanced_accuracy(
        [True, True, True, False], [True, False, True, False]
    ) == pytest.approx(5 / 6)
    assert balanced_accuracy([True, True], [True, False]) is None  # one class only


def test_auroc_counts_ordered_pairs() -> None:
    # positives 0.35, 0.8 against negatives 0.1, 0.4: 0.35>0.1, 0.8>0.1, 0.8>0.4 → 3/4
    assert auroc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == pytest.approx(0.75)


def test_auroc_counts_ties_as_half() -> None:
    assert auroc([0.5, 0.5, 0.5, 0.5], [True, False, True, False]) == pytest.approx(0.5)
    # positive 0.5 vs negatives 0.2 (win) and 0.5 (tie): (1 + 0.5) / 2
    assert auroc([0.2, 0.5, 0.5], [False, True, False]) == pytest.approx(0.75)
    assert auroc([0.3, 0.6], [True, True]) is None


@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=2, max_size=40))
def test_auroc_equals_the_pairwise_definition(rows: list[tuple[float, bool]]) -> None:
    scores = [s for s, _ in rows]
    positive = [p for _, p in rows]
    pos = [s for s, p in rows if p]
    neg = [s for s, p in rows if not p]
    got = auroc(scores, positive)
    if not pos or not neg:
        assert got is None
        return
    wins = sum(1.0 if a > b else 0.5 if a == b else 0.0 for a in pos for b in neg)
    assert got == pytest.approx(wins / (len(pos) * len(neg)))


def test_midranks_share_ranks_among_ties() -> None:
    assert midranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]


def test_spearman_without_and_with_ties() -> None:
    # d = 0, -1, 1, 0: rho = 1 - 6 * 2 / (4 * 15) = 0.8
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    # ranks x = 1, 2.5, 2.5, 4 against 1..4: 4.5 / sqrt(4.5 * 5) = sqrt(0.9)
    assert spearman([1, 2, 2, 3], [1, 2, 3, 4]) == pytest.approx(math.sqrt(0.9))
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_confusion_matrix_rows_are_truth() -> None:
    got = confusion_matrix(["a", "a", "b"], ["a", "b", "b"], ["a", "b"])
    assert got == {"a": {"a": 1, "b": 1}, "b": {"a": 0, "b": 1}}


def test_agreement_rate() -> None:
    assert agreement_rate([1, 2, 3, 4], [1, 2, 0, 0]) == 0.5
    assert agreement_rate([], []) is None
    with pytest.raises(ValueError):
        agreement_rate([1], [1, 2])


def test_binary_prediction_decides_undecided_verdicts_by_score() -> None:
    assert binary_prediction("supported", 0.1)
    assert not binary_prediction("not_supported", 0.9)
    assert binary_prediction("unverifiable", 0.5)
    assert not binary_prediction("partially_supported", 0.49)


def test_agreement_report_by_hand() -> None:
    labels = ["supported", "supported", "partially_supported", "not_supported"]
    verdicts = ["supported", "unverifiable", "partially_supported", "not_supported"]
    scores = [0.9, 0.45, 0.6, 0.1]
    r = agreement_report(labels, verdicts, scores)
    assert r["n_by_label"] == {"supported": 2, "partially_supported": 1, "not_supported": 1}
    # partial excluded: truth T, T, F; predicted T, F (0.45 < 0.5), F → (1/2 + 1) / 2
    assert r["balanced_accuracy"] == pytest.approx(0.75)
    # partial as negative: truth T, T, F, F; predicted T, F, T (0.6), F → (1/2 + 1/2) / 2
    assert r["balanced_accuracy_partial_negative"] == pytest.approx(0.5)
    assert r["auroc"] == pytest.approx(1.0)
    # positives 0.9, 0.45 against negatives 0.6, 0.1: 3 of 4 pairs
    assert r["auroc_partial_negative"] == pytest.approx(0.75)
    assert r["agreement_rate"] == pytest.approx(0.5)
    # ranks of scores 4, 2, 3, 1 against grades 2, 2, 1, 0 (ranks 3.5, 3.5, 2, 1)
    assert r["spearman"] == pytest.approx(spearman([4, 2, 3, 1], [3.5, 3.5, 2, 1]))
    assert r["confusion"]["supported"]["unverifiable"] == 1
