"""Labelled claims with their real cheap scores: what the alert simulator draws answers from.

A claim is (cheap score, human label) for one claim the judge would see
(monitor.judge.request.judge_items). WiCE and ExpertQA events hold one labelled claim: its score
is that of the event's weakest judgeable claim (as `ragmon eval --rates` scores an event).
RAGTruth events are whole answers whose labels mark hallucinated spans: each judgeable claim of
the answer is one labelled claim, not supported when its characters overlap a marked span,
supported otherwise (agents/evaluation/spans.py, the mapping `ragmon eval` uses). `partially_supported` claims are left out: the simulator's rates are the
not-supported share P and the supported share 1 − P.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.evaluation.jsonl import jsonl_rows
from agents.evaluation.spans import claim_span_labels, parse_span_row
from monitor.config.errors import InputError
from monitor.judge.request import judge_items
from monitor.records.models import AnswerEvent, Verdict


@dataclass(frozen=True, slots=True)
class ClaimPool:
    """Cheap scores of labelled claims, by label."""

    supported: tuple[float, ...]
    not_supported: tuple[float, ...]
    sources: Mapping[str, int]  # claims taken per file

    def __post_init__(self) -> None:
        if not self.supported or not self.not_supported:
            raise InputError(
                "the alert simulation needs labelled claims of both kinds (supported and "
                f"not_supported); got {len(self.supported)} and {len(self.not_supported)}"
            )


def load_label_rows(path: str) -> dict[str, dict[str, Any]]:
    """event_id → the whole label row (RAGTruth's rows carry `spans`)."""
    rows: dict[str, dict[str, Any]] = {}
    for where, row in jsonl_rows(path):
        try:
            rows[str(row["event_id"])] = row
        except (KeyError, TypeError):
            raise InputError(f"{where}: not a {{event_id, label}} object") from None
    return rows


def labelled_claims(
    checked: Sequence[tuple[AnswerEvent, Verdict]], rows: Mapping[str, Mapping[str, Any]]
) -> list[tuple[float, str]]:
    """(cheap score, supported | not_supported) of every labelled judgeable claim."""
    out: list[tuple[float, str]] = []
    for event, verdict in checked:
        row = rows.get(event.event_id)
        if row is None:
            continue
        judgeable = {i.claim_index for i in judge_items(verdict, event=event)}
        claims = [c for c in verdict.claims if c.claim.index in judgeable]
        if not claims:
            continue
        if "spans" in row:  # span-labelled answer (RAGTruth): per claim, by overlap
            spans = parse_span_row(row, f"labels of {event.event_id}").spans
            labels = claim_span_labels([c.claim for c in claims], spans)
            out.extend((c.support.score, label) for c, label in zip(claims, labels, strict=True))
            continue
        label = row.get("label")
        if label in ("supported", "not_supported"):
            out.append((min(c.support.score for c in claims), str(label)))
    return out


def pool_of(claims_by_source: Mapping[str, Sequence[tuple[float, str]]]) -> ClaimPool:
    supported: list[float] = []
    bad: list[float] = []
    for claims in claims_by_source.values():
        for score, label in claims:
            (supported if label == "supported" else bad).append(score)
    return ClaimPool(
        tuple(supported),
        tuple(bad),
        {name: len(claims) for name, claims in claims_by_source.items()},
    )
