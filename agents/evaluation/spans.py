"""Span labels (RAGTruth): human-marked character ranges of an answer → labels of ragmon's claims.

A labels row may carry `spans: [{start, end, ...}]`, character offsets into the event's
`answer` that people marked as unsupported (shared/eval/README.md). ragmon splits the answer
into its own claims; each claim is `not_supported` when its [start, end) range overlaps a
marked span, else `supported`. This module is the one place that mapping lives: `ragmon eval`
(span_eval.py) and `ragmon eval --rates` read claim labels from `claim_span_labels`.
Pure: no check runs here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from agents.evaluation.jsonl import jsonl_rows
from monitor.config.errors import InputError

Span = tuple[int, int]


class HasRange(Protocol):
    @property
    def start(self) -> int: ...
    @property
    def end(self) -> int: ...


@dataclass(frozen=True)
class SpanLabel:
    """One labels row of a span-labelled file."""

    event_id: str
    label: str  # not_supported when any span was marked, else supported
    spans: tuple[Span, ...]
    task_type: str | None = None
    model: str | None = None

    @property
    def hallucinated(self) -> bool:
        return bool(self.spans) or self.label == "not_supported"


def overlaps(start: int, end: int, spans: Iterable[Span]) -> bool:
    """True when [start, end) shares at least one character with one of the spans."""
    return any(s < end and start < e and s < e for s, e in spans)


def claim_span_labels(claims: Sequence[HasRange], spans: Sequence[Span]) -> list[str]:
    """Per claim: `not_supported` when it overlaps a marked span, else `supported`."""
    return ["not_supported" if overlaps(c.start, c.end, spans) else "supported" for c in claims]


def parse_span_row(row: Mapping[str, object], where: str) -> SpanLabel:
    """One JSON labels row with `spans`; InputError naming `where` when it is malformed."""
    try:
        event_id = str(row["event_id"])
        raw_spans = row["spans"]
        if not isinstance(raw_spans, list):
            raise TypeError
        spans = tuple(sorted((int(s["start"]), int(s["end"])) for s in raw_spans))
    except (KeyError, TypeError, ValueError):
        raise InputError(f"{where}: not an {{event_id, spans: [{{start, end}}]}} row") from None
    if any(s < 0 or e < s for s, e in spans):
        raise InputError(f"{where}: a span's start must be >= 0 and <= its end")
    label = row.get("label")
    if label is None:
        label = "not_supported" if spans else "supported"
    task, model = row.get("task_type"), row.get("model")
    return SpanLabel(
        event_id=event_id,
        label=str(label),
        spans=spans,
        task_type=None if task is None else str(task),
        model=None if model is None else str(model),
    )


def load_span_labels(path: str) -> dict[str, SpanLabel] | None:
    """event_id → SpanLabel; None when the file's first row has no `spans` (a claim-label file,
    read by `ragmon eval`'s load_labels). Once the first row has spans, every row must."""
    out: dict[str, SpanLabel] = {}
    for where, row in jsonl_rows(path):
        if not isinstance(row, dict) or "spans" not in row:
            if not out:
                return None
            raise InputError(f"{where}: row without `spans` in a span-labelled file")
        label = parse_span_row(row, where)
        out[label.event_id] = label
    return out or None
