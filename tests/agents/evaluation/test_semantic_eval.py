"""`ragmon eval --semantic`'s figures from per-event rows (no model needed), hand-computed."""

from __future__ import annotations

from typing import Any

import pytest

from agents.evaluation.semantic_eval import figures, fit_rules, format_figures
from agents.semantic import rules


def _row(i: int, label: str, verdict: str, cheap: float, cosine: float | None) -> dict[str, Any]:
    return {
        "event_id": f"e{i}",
        "label": label,
        "cheap_verdict": verdict,
        "cheap_score": cheap,
        "cosine": cosine,
        "claim_ms": [10.0 * (i + 1)],
        "windows": [i + 1],
        "capped": 0,
    }


ROWS = [
    _row(0, "supported", "partially_supported", 0.4, 0.80),
    _row(1, "supported", "supported", 0.9, 0.70),
    _row(2, "not_supported", "partially_supported", 0.6, 0.30),
    _row(3, "not_supported", "not_supported", 0.1, 0.65),
    _row(4, "partially_supported", "partially_supported", 0.5, None),
]


def test_figures_hand_computed() -> None:
    f = figures(ROWS, resamples=50)
    assert (f["n"], f["n_strict"]) == (5, 4)
    # cheap AUROC over the 4 strict rows: positives 0.4, 0.9 vs negatives 0.6, 0.1 →
    # pairs won: (0.4>0.1), (0.9>0.6), (0.9>0.1) = 3 of 4
    assert f["cheap"]["auroc"] == 0.75
    # cosine: 0.80, 0.70 vs 0.30, 0.65: all 4 pairs won
    assert f["cosine"]["auroc"] == 1.0
    assert f["cosine"]["auroc_gain_vs_cheap"][0] == pytest.approx(0.25)
    # cheap decisions with cut 0.5: e0 partial 0.4 → no, e1 supported → yes, e2 partial
    # 0.6 → yes, e3 not_supported → no: recall 1/2 on each class
    assert f["cheap"]["balanced_accuracy"] == 0.5
    # the frozen cosine cut 0.642: e0, e1 yes; e2 no; e3 (0.65) yes → (1 + 1/2) / 2
    assert -rules.COSINE[1] / rules.COSINE[0] == pytest.approx(0.642, abs=1e-3)
    assert f["cosine"]["balanced_accuracy"] == 0.75
    # partial as negative: the row without evidence scores cosine 0, a true negative
    assert f["cosine"]["balanced_accuracy_partial_negative"] == pytest.approx((1 + 2 / 3) / 2)
    assert f["cost"]["median_ms_per_claim"] == 30.0
    assert f["cost"]["median_windows_per_claim"] == 3
    text = format_figures(f, 0.5)
    assert "cosine" in text and "+0.250" in text


def test_fit_rules_leaves_partial_out_and_cuts_between_the_classes() -> None:
    rows = [
        _row(i, "supported" if i % 2 else "not_supported", "partially_supported", 0.5, c)
        for i, c in enumerate([0.2, 0.9, 0.4, 0.7, 0.3, 0.6, 0.5, 0.8])
    ]
    rows.append(_row(9, "partially_supported", "partially_supported", 0.5, 5.0))
    w, bias = fit_rules(rows)["cosine"]
    assert 0.4 < -bias / w < 0.7  # between the negatives' 0.2-0.5 and the positives' 0.6-0.9
