"""The instruction-count section's arithmetic: callgrind's summary line, the per-answer slope."""

from __future__ import annotations

import pytest

from agents.bench.instructions import per_answer, read_summary


def test_read_summary_takes_the_total() -> None:
    text = "version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nsummary: 5765969013\ntotals: 1\n"
    assert read_summary(text) == 5_765_969_013
    with pytest.raises(ValueError, match="summary"):
        read_summary("events: Ir\n")


def test_per_answer_is_the_slope_between_two_runs() -> None:
    # 1,000 answers: 5,765,969,013; 2,000: 7,706,430,593 → (7,706,430,593 − 5,765,969,013) / 1,000
    assert per_answer((1000, 5_765_969_013), (2000, 7_706_430_593)) == pytest.approx(1_940_461.58)
    # start-up cost cancels: the same per-answer cost over another constant
    assert per_answer((10, 1_000 + 10 * 7), (30, 1_000 + 30 * 7)) == 7
    with pytest.raises(ValueError):
        per_answer((10, 1), (10, 2))
