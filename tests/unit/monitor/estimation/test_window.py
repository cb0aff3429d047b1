"""The window's estimation sums: exact integers, the rates built from them, and coverage when
claims cluster in answers (the judge samples answers, not claims)."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping

import pytest

from monitor.estimation.ppi import labelled_from, population_from, ppi_mean, t_value, z_value
from monitor.estimation.window import answer_sums, judgeable_split, label_sums, rate_figures, scaled


def _add(into: dict[str, int], sums: Mapping[str, int]) -> None:
    for k, v in sums.items():
        into[k] = into.get(k, 0) + v


def test_sums_of_one_answer_are_integers_in_units_of_1e4() -> None:
    assert scaled(0.1234) == 1234
    got = answer_sums([0.2, 0.4], 0, 1)
    assert got == {
        "ruled_unsupported": 1,
        "all_n": 1,
        "all_m": 2,
        "all_mm": 4,
        "all_f": 6000,
        "all_ff": 36_000_000,
        "all_mf": 12000,
    }
    assert answer_sums([], 0, 2) == {"ruled_unsupported": 2}  # nothing the judge can see
    lab = label_sums([0.2, 0.4], supported=0, unsupported=2)
    assert lab["lab_h"] == 2 and lab["lab_hf"] == 12000 and lab["lab_hm"] == 4
    assert "lab_s" not in lab  # zeros are left out of the record


def _window() -> dict[str, int]:
    # answers: A (1 claim, score 0.9, judge: supported), B (2 claims, 0.2 + 0.4, judge: both
    # not supported), C (1 claim, 0.7, supported), D (1 claim, 0.1, not judged), and 2 uncited
    # claims decided by rule: 7 claims
    sums: dict[str, int] = {}
    for scores, lab in (
        ([0.9], (1, 0)),
        ([0.2, 0.4], (0, 2)),
        ([0.7], (1, 0)),
        ([0.1], None),
    ):
        _add(sums, answer_sums(scores, 0, 0))
        if lab is not None:
            _add(sums, label_sums(scores, *lab))
    _add(sums, answer_sums([], 0, 2))
    return sums


def test_support_rate_is_one_minus_the_not_supported_share_over_answer_totals() -> None:
    # supported = claims − rule-decided not supported − Σ(m − s): labels m − s = 0, 2, 0 on
    # predictor m − f = 0.1, 1.4, 0.3 (labelled), 0.9; 2 of 7 claims decided by rule
    fig = rate_figures(_window(), "support")
    other = ppi_mean(
        labelled_from([0, 2, 0], [0.1, 1.4, 0.3]),
        population_from([0.1, 1.4, 0.3, 0.9]),
        scale=4 / 7,
        offset=2 / 7,
        top=5 / 4,  # Agresti-Coull's pseudo-answers: 5 judgeable claims in 4 answers
    )
    assert fig.estimate is not None and other is not None
    assert fig.estimate.value == pytest.approx(1 - other.value, abs=1e-12)
    assert fig.estimate.stderr == pytest.approx(other.stderr, abs=1e-12)
    assert (fig.estimate.lower, fig.estimate.upper) == pytest.approx(
        (1 - other.upper, 1 - other.lower)
    )
    assert (fig.judged_answers, fig.judged_claims) == (3, 4)
    # no partially supported claim: support and hallucination are complements, equally wide
    hall = rate_figures(_window(), "hallucination").estimate
    assert hall is not None
    assert fig.estimate.value == pytest.approx(1 - hall.value, abs=1e-12)
    assert fig.estimate.upper - fig.estimate.lower == pytest.approx(hall.upper - hall.lower)


def test_a_partially_supported_claim_is_in_neither_rate() -> None:
    # A's one claim judged partially supported: not in support's labels, not in hallucination's
    sums = _window()
    _add(sums, {k: -v for k, v in label_sums([0.9], 1, 0).items()})
    _add(sums, label_sums([0.9], 0, 0))
    support = rate_figures(sums, "support").estimate
    hall = rate_figures(sums, "hallucination").estimate
    want = ppi_mean(
        labelled_from([1, 2, 0], [0.1, 1.4, 0.3]),
        population_from([0.1, 1.4, 0.3, 0.9]),
        scale=4 / 7,
        offset=2 / 7,
        top=5 / 4,
    )
    assert support is not None and hall is not None and want is not None
    assert support.value == pytest.approx(1 - want.value, abs=1e-12)
    assert support.value + hall.value < 1  # the partial share is the rest


def test_hallucination_rate_adds_the_rule_decided_claims() -> None:
    # predictor m - f per answer: 0.1, 1.4, 0.3 (labelled), 0.9; 2 of 7 claims uncited
    fig = rate_figures(_window(), "hallucination")
    want = ppi_mean(
        labelled_from([0, 2, 0], [0.1, 1.4, 0.3]),
        population_from([0.1, 1.4, 0.3, 0.9]),
        scale=4 / 7,
        offset=2 / 7,
        top=5 / 4,
    )
    assert fig.estimate is not None and want is not None
    assert fig.estimate.value == pytest.approx(want.value, abs=1e-12)
    assert fig.estimate.stderr == pytest.approx(want.stderr, abs=1e-12)


def test_no_labels_no_estimate() -> None:
    sums: dict[str, int] = {}
    _add(sums, answer_sums([0.5], 0, 0))
    fig = rate_figures(sums, "support")
    assert fig.estimate is None and fig.judge_only is None
    assert rate_figures({}, "support").estimate is None
    with pytest.raises(ValueError):
        rate_figures(sums, "validity")


def test_coverage_with_claims_clustered_in_answers() -> None:
    rng = random.Random(11)
    answers = []
    for _ in range(1500):
        quality = rng.random()
        m = rng.randint(1, 4)
        # labels correlated within an answer: the design must sample answers as units
        labels = [rng.random() < quality for _ in range(m)]
        scores = [min(1.0, max(0.0, quality + rng.gauss(0, 0.3))) for _ in range(m)]
        answers.append((scores, sum(labels), m - sum(labels)))
    uncited = 300
    claims = sum(len(a[0]) for a in answers) + uncited
    truth_s = sum(a[1] for a in answers) / claims
    truth_h = (sum(a[2] for a in answers) + uncited) / claims
    base: dict[str, int] = {}
    for scores, _, _ in answers:
        _add(base, answer_sums(scores, 0, 0))
    _add(base, answer_sums([], 0, uncited))
    runs, covered = 300, {"support": 0, "hallucination": 0}
    for seed in range(runs):
        pick = random.Random(seed)
        sums = dict(base)
        for scores, s, h in answers:
            if pick.random() < 0.1:
                _add(sums, label_sums(scores, s, h))
        for rate, truth in (("support", truth_s), ("hallucination", truth_h)):
            est = rate_figures(sums, rate).estimate
            assert est is not None
            covered[rate] += est.covers(truth)
    for rate in covered:
        assert 0.92 <= covered[rate] / runs <= 0.985, (rate, covered[rate] / runs)


def test_one_label_everywhere_still_gives_an_interval() -> None:
    # 100 answers of one judgeable claim, 50 judged, none not supported: the sample variance
    # is 0, and a CLT interval of the raw sums would be the point 0. Agresti-Coull's: k = z^2/2
    # pseudo-answers not supported and k supported join the 50, so the judge-only interval is
    # centred at k/(50 + 2k), with those 50 + 2k points' variance over 50 + 2k, times
    # 1 - 50/100, and reaches from 0 up
    sums: dict[str, int] = {}
    for i in range(100):
        score = (i % 10) / 10
        _add(sums, answer_sums([score], 0, 0))
        if i < 50:
            _add(sums, label_sums([score], 1, 0))
    fig = rate_figures(sums, "hallucination")
    assert fig.estimate is not None and fig.judge_only is not None
    k = z_value() ** 2 / 2
    w = 50 + 2 * k
    centre = k / w
    variance = (k - k * k / w) / (w - 1) / w  # the points' Var(y) over their weight
    stderr = math.sqrt(variance * 0.5)
    upper = math.sqrt(0.5) * centre + t_value(0.95, 49) * stderr
    assert fig.judge_only.value == 0.0 and fig.judge_only.lower == 0.0
    assert fig.judge_only.stderr == pytest.approx(stderr, abs=1e-12)
    assert fig.judge_only.upper == pytest.approx(upper, abs=1e-12)
    assert 0.05 < upper < 0.1  # about the "rule of three" for 0 of 50: 3/50
    assert fig.estimate.value == 0.0 and fig.estimate.lower == 0.0
    assert fig.estimate.upper > 0.0
    assert fig.estimate.halfwidth <= fig.judge_only.halfwidth
    # the same window with one claim of the sample not supported
    _add(sums, label_sums([0.5], 0, 1))
    mixed = rate_figures(sums, "hallucination").estimate
    assert mixed is not None and mixed.value > 0


def test_answer_vector_is_answer_sums_in_field_order() -> None:
    from monitor.estimation.window import ESTIMATION_FIELDS, answer_vector
    from tests.agents.helpers import mixed_verdict, verdict

    for v in (mixed_verdict(), verdict()):
        sums = answer_sums(*judgeable_split(v))
        assert answer_vector(v) == [sums.get(name, 0) for name in ESTIMATION_FIELDS]
