"""`ragmon eval --html`: one self-contained HTML file (inline CSS and SVG, no scripts, no network).

Per tier (cheap, and judge when present): score distributions per human label, ROC curves
(supported vs not_supported with partial left out, and with partial counted as negative),
the confusion matrix of human labels × verdicts, and a per-app table. Pure: standard library.
"""

from __future__ import annotations

import html
import itertools
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

LABELS = ("supported", "partially_supported", "not_supported")
VERDICTS = ("supported", "partially_supported", "not_supported", "unverifiable")
_COLOURS = {"supported": "#2e7d32", "partially_supported": "#f9a825", "not_supported": "#c62828"}
_BINS = 10


@dataclass(frozen=True, slots=True)
class ReportRow:
    event_id: str
    app: str
    label: str  # the human label
    cheap_verdict: str | None
    cheap_score: float | None
    judge_verdict: str | None = None
    judge_score: float | None = None


def roc_points(scores: Sequence[float], positive: Sequence[bool]) -> list[tuple[float, float]]:
    """(false positive rate, true positive rate) from the highest threshold down; tied scores
    move the curve diagonally, so the area below equals the tie-aware AUROC."""
    pos = sum(positive)
    neg = len(positive) - pos
    if not pos or not neg:
        return []
    by_score: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for s, p in zip(scores, positive, strict=True):
        by_score[s][0 if p else 1] += 1
    points = [(0.0, 0.0)]
    tp = fp = 0
    for s in sorted(by_score, reverse=True):
        tp += by_score[s][0]
        fp += by_score[s][1]
        points.append((fp / neg, tp / pos))
    return points


def area(points: Sequence[tuple[float, float]]) -> float | None:
    if not points:
        return None
    return sum((x1 - x0) * (y0 + y1) / 2 for (x0, y0), (x1, y1) in itertools.pairwise(points))


def _tier(rows: Sequence[ReportRow], tier: str) -> list[tuple[ReportRow, str | None, float | None]]:
    if tier == "judge":
        return [(r, r.judge_verdict, r.judge_score) for r in rows if r.judge_verdict is not None]
    return [(r, r.cheap_verdict, r.cheap_score) for r in rows]


def _svg_histograms(data: list[tuple[ReportRow, str | None, float | None]]) -> str:
    w, h, pad = 520, 200, 30
    counts = {label: [0] * _BINS for label in LABELS}
    for row, _, score in data:
        if score is not None and row.label in counts:
            counts[row.label][min(_BINS - 1, int(score * _BINS))] += 1
    top = max([max(c) for c in counts.values()] + [1])
    bar = (w - 2 * pad) / _BINS / len(LABELS)
    parts = [f'<svg width="{w}" height="{h + 40}" role="img" aria-label="score histogram">']
    parts.append(f'<line x1="{pad}" y1="{h}" x2="{w - pad}" y2="{h}" stroke="#555"/>')
    for b in range(_BINS + 1):
        x = pad + b * bar * len(LABELS)
        parts.append(
            f'<text x="{x:.1f}" y="{h + 14}" font-size="10" text-anchor="middle">{b / _BINS:.1f}</text>'
        )
    for k, label in enumerate(LABELS):
        for b, n in enumerate(counts[label]):
            height = (h - 20) * n / top
            x = pad + (b * len(LABELS) + k) * bar
            parts.append(
                f'<rect x="{x:.1f}" y="{h - height:.1f}" width="{bar - 1:.1f}" height="{height:.1f}" '
                f'fill="{_COLOURS[label]}"><title>{label} {b / _BINS:.1f}-{(b + 1) / _BINS:.1f}: {n}</title></rect>'
            )
        parts.append(
            f'<rect x="{pad + k * 170}" y="{h + 24}" width="10" height="10" fill="{_COLOURS[label]}"/>'
            f'<text x="{pad + k * 170 + 14}" y="{h + 33}" font-size="11">{label} ({sum(counts[label])})</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _roc_variants(
    data: list[tuple[ReportRow, str | None, float | None]],
) -> list[tuple[str, list[tuple[float, float]]]]:
    scored = [(r.label, s) for r, _, s in data if s is not None]
    strict = [(lab, s) for lab, s in scored if lab != "partially_supported"]
    return [
        (
            "supported vs not_supported",
            roc_points([s for _, s in strict], [lab == "supported" for lab, _ in strict]),
        ),
        (
            "partial counted as negative",
            roc_points([s for _, s in scored], [lab == "supported" for lab, _ in scored]),
        ),
    ]


def _svg_roc(curves: list[tuple[str, list[tuple[float, float]]]]) -> str:
    size, pad = 260, 30
    colours = ("#1565c0", "#8e24aa")
    parts = [
        f'<svg width="{size + 2 * pad + 200}" height="{size + 2 * pad}" role="img" aria-label="ROC curve">'
    ]
    parts.append(
        f'<rect x="{pad}" y="{pad}" width="{size}" height="{size}" fill="none" stroke="#555"/>'
    )
    parts.append(
        f'<line x1="{pad}" y1="{pad + size}" x2="{pad + size}" y2="{pad}" stroke="#bbb" stroke-dasharray="4"/>'
    )
    parts.append(
        f'<text x="{pad + size / 2}" y="{2 * pad + size - 4}" font-size="11" text-anchor="middle">false positive rate</text>'
    )
    parts.append(
        f'<text x="10" y="{pad + size / 2}" font-size="11" transform="rotate(-90 10 {pad + size / 2})" text-anchor="middle">true positive rate</text>'
    )
    for k, (name, points) in enumerate(curves):
        auc = area(points)
        if points:
            path = " ".join(f"{pad + x * size:.1f},{pad + size - y * size:.1f}" for x, y in points)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{colours[k]}" stroke-width="2"/>'
            )
        label = f"{name}: AUROC {auc:.3f}" if auc is not None else f"{name}: n/a"
        parts.append(
            f'<text x="{size + pad + 10}" y="{pad + 14 + 18 * k}" font-size="11" fill="{colours[k]}">{html.escape(label)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _confusion(data: list[tuple[ReportRow, str | None, float | None]]) -> str:
    counts = Counter((r.label, v or "unverifiable") for r, v, _ in data)
    head = "".join(f"<th>{v}</th>" for v in VERDICTS)
    body = "".join(
        f"<tr><th>{label}</th>"
        + "".join(f"<td>{counts[(label, v)]}</td>" for v in VERDICTS)
        + "</tr>"
        for label in LABELS
    )
    return f"<table><tr><th>human \\ verdict</th>{head}</tr>{body}</table>"


def _agree(label: str, verdict: str | None) -> bool | None:
    """Seed 001 §7.3: the tier says supports ⇔ supported; a person says so for supported/partial."""
    if verdict is None or verdict == "unverifiable":
        return None
    return (verdict == "supported") == (label in ("supported", "partially_supported"))


def _per_app(rows: Sequence[ReportRow]) -> str:
    apps: dict[str, list[ReportRow]] = defaultdict(list)
    for r in rows:
        apps[r.app].append(r)

    def ratio(values: list[bool | None]) -> str:
        decided = [v for v in values if v is not None]
        return f"{sum(decided) / len(decided):.3f}" if decided else "–"

    out = [
        "<table><tr><th>app</th><th>events</th><th>supported / partial / not</th>"
        "<th>cheap agreement</th><th>judged</th><th>judge agreement</th><th>judge vs cheap disagreement</th></tr>"
    ]
    for app in sorted(apps):
        rs = apps[app]
        labels = Counter(r.label for r in rs)
        judged = [r for r in rs if r.judge_verdict is not None]
        disagree = [r.judge_verdict != r.cheap_verdict for r in judged]
        out.append(
            f"<tr><td>{html.escape(app)}</td><td>{len(rs)}</td>"
            f"<td>{labels['supported']} / {labels['partially_supported']} / {labels['not_supported']}</td>"
            f"<td>{ratio([_agree(r.label, r.cheap_verdict) for r in rs])}</td><td>{len(judged)}</td>"
            f"<td>{ratio([_agree(r.label, r.judge_verdict) for r in judged])}</td>"
            f"<td>{ratio(list(disagree))}</td></tr>"
        )
    out.append("</table>")
    return "".join(out)


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1000px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}
th{background:#f4f4f4}h2{border-bottom:1px solid #ddd;padding-bottom:4px}.note{color:#666;font-size:0.9em}"""


def render_report(
    rows: Sequence[ReportRow],
    title: str = "ragmon evaluation",
    summary: str = "",
    extra: str = "",
) -> str:
    """`extra`: trusted HTML placed after the summary (the rates section)."""
    tiers = ["cheap"] + (["judge"] if any(r.judge_verdict is not None for r in rows) else [])
    sections = []
    for tier in tiers:
        data = _tier(rows, tier)
        sections.append(
            f"<h2>{tier} tier ({len(data)} claims)</h2>"
            f"<h3>Score distribution per human label</h3>{_svg_histograms(data)}"
            f"<h3>ROC</h3>{_svg_roc(_roc_variants(data))}"
            f"<h3>Confusion matrix</h3>{_confusion(data)}"
        )
    pre = f"<pre>{html.escape(summary)}</pre>" if summary else ""
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_CSS}</style></head><body><h1>{html.escape(title)}</h1>"
        f'<p class="note">{len(rows)} labelled events. Agreement follows seed 001 §7.3: a tier '
        "agrees when it says supported exactly when the person said supported or partially supported; "
        "unverifiable verdicts are left out.</p>"
        f"{pre}{extra}<h2>Per app</h2>{_per_app(rows)}{''.join(sections)}</body></html>\n"
    )
