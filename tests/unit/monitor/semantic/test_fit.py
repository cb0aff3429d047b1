"""The cut fitting (class-balanced logistic regression) and the paired bootstrap of AUROC gain."""

from __future__ import annotations

import math
import random
from statistics import NormalDist

import pytest

from monitor.semantic.fit import balanced_logistic, linear_score, paired_auroc_gain, split_half


def test_balanced_logistic_hand_computed() -> None:
    # x=0: 1 positive, 1 negative; x=1: 3 positive, 1 negative. Class weights n/(2 n_class):
    # positives 6/8, negatives 6/4. Two x values make the model saturated, so the fitted
    # probability at each x is its weighted positive share: x=0: .75/(.75+1.5) = 1/3,
    # x=1: 2.25/(2.25+1.5) = 0.6; bias = logit(1/3) = -ln 2, w = logit(0.6) - logit(1/3) = ln 3.
    xs = [[0.0], [0.0], [1.0], [1.0], [1.0], [1.0]]
    ys = [True, False, True, True, True, False]
    w, bias = balanced_logistic(xs, ys, ridge=0.0)
    assert bias == pytest.approx(-math.log(2), abs=1e-9)
    assert w == pytest.approx(math.log(3), abs=1e-9)
    assert linear_score([w, bias], [1.0]) == pytest.approx(math.log(1.5))


def test_balanced_logistic_ignores_class_shares() -> None:
    # the same two clouds, the positives repeated 9 times: the balanced cut stays in between
    rng = random.Random(1)
    neg = [[rng.gauss(0.0, 1.0)] for _ in range(100)]
    pos = [[rng.gauss(2.0, 1.0)] for _ in range(100)]
    w1, b1 = balanced_logistic(neg + pos, [False] * 100 + [True] * 100)
    w9, b9 = balanced_logistic(neg + pos * 9, [False] * 100 + [True] * 900)
    assert -b1 / w1 == pytest.approx(-b9 / w9, abs=1e-6)
    assert 0.7 < -b1 / w1 < 1.3  # near the midpoint 1.0 of the two means


def test_balanced_logistic_refuses_one_class_and_constant_features() -> None:
    with pytest.raises(ValueError, match="both classes"):
        balanced_logistic([[0.0], [1.0]], [True, True])
    with pytest.raises(ValueError, match="singular"):
        balanced_logistic([[1.0, 1.0]] * 4, [True, False, True, False], ridge=0.0)


def test_paired_gain_hand_computed() -> None:
    truth = [False, False, True, True]
    perfect = [0.1, 0.2, 0.8, 0.9]
    reversed_ = [0.9, 0.8, 0.2, 0.1]
    gain = paired_auroc_gain(perfect, reversed_, truth, resamples=200)
    assert gain is not None and gain[0] == 1.0
    same = paired_auroc_gain(perfect, perfect, truth, resamples=200)
    assert same == (0.0, 0.0, 0.0)
    assert paired_auroc_gain(perfect, perfect, [True] * 4) is None


def test_paired_gain_interval_covers_the_true_gain() -> None:
    # scores N(d, 1) for positives, N(0, 1) for negatives have AUROC Φ(d/√2); the two scores
    # are independent given the label, so the true gain is Φ(1/√2) − Φ(0.5/√2) ≈ 0.1217.
    phi = NormalDist().cdf
    truth_gain = phi(1 / math.sqrt(2)) - phi(0.5 / math.sqrt(2))
    rng = random.Random(7)
    covered = trials = 0
    for seed in range(60):
        labels = [i % 2 == 0 for i in range(120)]
        new = [rng.gauss(1.0 if y else 0.0, 1.0) for y in labels]
        old = [rng.gauss(0.5 if y else 0.0, 1.0) for y in labels]
        result = paired_auroc_gain(new, old, labels, resamples=150, seed=seed)
        assert result is not None
        trials += 1
        covered += result[1] <= truth_gain <= result[2]
    # nominal 95%; a percentile interval over 150 resamples covers a little less
    assert covered / trials >= 0.85


def test_split_half_is_seeded_disjoint_and_complete() -> None:
    ids = [f"e{i}" for i in range(11)]
    fit, test = split_half(ids, seed=0)
    assert len(fit) == 5 and len(test) == 6
    assert fit | test == set(ids) and not fit & test
    assert split_half(list(reversed(ids)), seed=0) == (fit, test)  # order of input irrelevant
    assert split_half(ids, seed=1) != (fit, test)
