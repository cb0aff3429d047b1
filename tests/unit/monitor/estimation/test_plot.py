"""The report's band plot: one bar pair per judge rate, the truth line, escaped text."""

from __future__ import annotations

from monitor.estimation.plot import band_svg


def test_band_svg_draws_each_judge_rate_and_the_truth() -> None:
    rows = [
        {"judge_rate": 0.1, "support": {"v": 0.3, "lo": 0.2, "hi": 0.4, "jlo": 0.15, "jhi": 0.45}},
        {
            "judge_rate": 0.2,
            "support": {"v": None, "lo": None, "hi": None, "jlo": None, "jhi": None},
        },
    ]
    svg = band_svg(rows, "support", 0.33)
    assert svg.startswith("<svg") and svg.endswith("</svg>")
    assert svg.count("<circle") == 1  # the rate without an estimate draws no point
    assert "truth 0.330" in svg and "PPI++ interval 0.200–0.400" in svg
    assert ">0.1</text>" in svg and ">0.2</text>" in svg
