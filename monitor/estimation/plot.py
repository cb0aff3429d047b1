"""The HTML report's picture of `ragmon eval --rates`: per judge rate, the median estimate and the
median 95% interval (PPI++ and judge-only) against the true rate. Pure: inline SVG text."""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

W, H, PAD = 520, 260, 44


def _x(i: int, count: int) -> float:
    return PAD + (W - 2 * PAD) * (i + 0.5) / max(1, count)


def _y(v: float) -> float:
    return H - PAD - (H - 2 * PAD) * v


def band_svg(rows: Sequence[Mapping[str, Any]], rate: str, truth: float) -> str:
    """One rate: x = judge rate (the labelled sample's size), y = the rate in [0, 1]."""
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" role="img" '
        f'aria-label="{html.escape(rate)} estimate and interval against the truth">',
        f'<rect x="{PAD}" y="{PAD}" width="{W - 2 * PAD}" height="{H - 2 * PAD}" fill="none" '
        'stroke="#ccc"/>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<text x="{PAD - 6}" y="{_y(tick) + 4:.1f}" font-size="10" text-anchor="end">'
            f"{tick:.2f}</text>"
        )
    parts.append(
        f'<line x1="{PAD}" x2="{W - PAD}" y1="{_y(truth):.1f}" y2="{_y(truth):.1f}" '
        'stroke="#2a2" stroke-dasharray="4 3"/>'
        f'<text x="{PAD + 4}" y="{_y(truth) - 4:.1f}" font-size="10" fill="#2a2">'
        f"truth {truth:.3f}</text>"
    )
    for i, row in enumerate(rows):
        got = row[rate]
        x = _x(i, len(rows))
        parts.append(
            f'<text x="{x:.1f}" y="{H - PAD + 14}" font-size="10" text-anchor="middle">'
            f"{row['judge_rate']:g}</text>"
        )
        if got.get("v") is None:
            continue
        jlo, jhi = got["jlo"], got["jhi"]
        parts.append(
            f'<rect x="{x - 12:.1f}" y="{_y(jhi):.1f}" width="24" height="{_y(jlo) - _y(jhi):.1f}"'
            ' fill="#ddd"><title>judge-only interval (median bounds)</title></rect>'
        )
        lo, hi, v = got["lo"], got["hi"], got["v"]
        parts.append(
            f'<rect x="{x - 6:.1f}" y="{_y(hi):.1f}" width="12" height="{_y(lo) - _y(hi):.1f}" '
            f'fill="#69c"><title>PPI++ interval {lo:.3f}–{hi:.3f}</title></rect>'
            f'<circle cx="{x:.1f}" cy="{_y(v):.1f}" r="3" fill="#036">'
            f"<title>median estimate {v:.3f}</title></circle>"
        )
    parts.append(
        f'<text x="{W / 2}" y="{H - 6}" font-size="11" text-anchor="middle">judge rate '
        "(share of answers judged)</text>"
        f'<text x="{PAD}" y="{PAD - 10}" font-size="12">{html.escape(rate)}: median estimate, '
        "median interval (blue: PPI++, grey: judge only)</text></svg>"
    )
    return "".join(parts)
