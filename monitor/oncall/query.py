"""Selecting and ranking audit records: one definition for the evidence page and `ragmon audit`,
so both answer the same question with the same answers.

An item is an audit record as published (a dict) with where it was read (`AuditItem`). The
check path writes one record per failing or sampled answer (`audit_reason` failure | sample);
the judge agent writes one per judged answer (`reason` judge). A redelivered answer can be
audited twice: the first record of an event id is kept.

Pure: standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from monitor.checks.scoring import OVER_CAP
from monitor.oncall.contribution import FIGURE_FIELDS, inclusion_weight, rank

CLAIM_VERDICTS = ("supported", "partially_supported", "not_supported", "unverifiable")


@dataclass(frozen=True, slots=True)
class AuditItem:
    record: dict[str, Any]
    partition: int = -1
    offset: int = -1
    timestamp: float | None = None  # the Kafka record's, epoch seconds
    #: the record as published when `record` is its slim form (`slimmed`): parsed again only
    #: for the answers a page shows
    raw: bytes | None = None

    def full(self) -> dict[str, Any]:
        if self.raw is None:
            return self.record
        try:
            parsed = json.loads(self.raw)
        except ValueError:
            return self.record
        return parsed if isinstance(parsed, dict) else self.record

    @property
    def is_judge(self) -> bool:
        return self.record.get("reason") == "judge"

    @property
    def at(self) -> float | None:
        """When the answer was audited (checked or judged), else the record's timestamp."""
        for key in ("audited_at", "judged_at"):
            value = self.record.get(key)
            if isinstance(value, int | float):
                return float(value)
        return self.timestamp


#: what ranking and the page's selection read from a record; the rest waits in its bytes
_SLIM_KEYS = ("event_id", "app", "reason", "audit_reason", "audited_at", "judged_at", "rule")


def slimmed(record: Mapping[str, Any], raw: bytes, partition: int, offset: int,
            timestamp: float | None) -> AuditItem:  # fmt: skip
    """An item that keeps a record's bytes (compact) and only the fields ranking needs parsed:
    a page's read of tens of thousands of records must not hold them all as dicts."""
    slim: dict[str, Any] = {k: record[k] for k in _SLIM_KEYS if k in record}
    slim["claims"] = [{"verdict": c.get("verdict")} for c in record.get("claims") or []]
    if record.get("reason") != "judge":
        slim["counts"] = record_counts(record)
    return AuditItem(slim, partition, offset, timestamp, raw)


@dataclass(frozen=True, slots=True)
class AuditFilter:
    app: str | None = None
    start: float | None = None
    end: float | None = None
    event_id: str | None = None
    verdicts: tuple[str, ...] = ()  # any claim with one of these verdicts (cheap or judge)
    reasons: tuple[str, ...] = ()  # audit reason, citation error code or a claim reason's start
    judge: bool = True  # judge records too
    #: (figure, op, threshold) of a rule: only answers whose own ratio is on its breaching side
    breaching: tuple[str, str, float] | None = None

    def in_range(self, item: AuditItem) -> bool:
        at = item.at
        if at is None:
            return self.start is None and self.end is None
        return (self.start is None or at >= self.start) and (self.end is None or at <= self.end)

    def matches(self, item: AuditItem) -> bool:
        r = item.record
        if self.app is not None and r.get("app") != self.app:
            return False
        if self.event_id is not None and r.get("event_id") != self.event_id:
            return False
        if item.is_judge and not self.judge:
            return False
        if not self.in_range(item):
            return False
        if self.verdicts and not set(self.verdicts) & claim_verdicts(r):
            return False
        if self.breaching is not None and (item.is_judge or not breaches(r, *self.breaching)):
            return False
        return not self.reasons or any(has_reason(r, reason) for reason in self.reasons)


def breaches(record: Mapping[str, Any], figure: str, op: str, threshold: float) -> bool:
    """Whether the answer alone is on the rule's breaching side (a ratio it has no
    denominator for, e.g. no citations for validity, is not)."""
    if figure not in FIGURE_FIELDS:
        return True  # judge errors, dead letters: no per-answer ratio to compare
    num, den = FIGURE_FIELDS[figure]
    counts = record_counts(record)
    if not counts[den]:
        return False
    ratio = counts[num] / counts[den]
    return ratio > threshold if op == "above" else ratio < threshold


def claim_verdicts(record: Mapping[str, Any]) -> set[str]:
    return {str(c.get("verdict")) for c in record.get("claims") or [] if c.get("verdict")}


def has_reason(record: Mapping[str, Any], reason: str) -> bool:
    if reason in (record.get("audit_reason"), record.get("reason")):
        return True
    if any(c.get("error") == reason for c in record.get("citations") or []):
        return True
    return any(
        str(text).startswith(reason)
        for c in record.get("claims") or []
        for text in c.get("reasons") or []
    )


def record_counts(record: Mapping[str, Any]) -> dict[str, int]:
    """The answer's window counts: the record's `counts` (what the worker added to the window,
    agents.output.records.verdict_vector), else recounted from its claims and citations as
    monitor.checks.scoring.claim_tally counts them (records written before `counts` existed)."""
    stored = record.get("counts")
    if isinstance(stored, Mapping):
        return {k: int(stored.get(k, 0)) for k in _COUNTED}
    citations = record.get("citations") or []
    valid_ids = {c.get("index") for c in citations if c.get("status") == "valid"}
    n = cited = decided = supported = unsupported = 0
    for c in record.get("claims") or []:
        verdict = c.get("verdict")
        indexes = c.get("citation_indexes") or []
        if indexes:
            cited += 1
            if verdict != "unverifiable":
                decided += 1
                supported += verdict == "supported"
            unsupported += verdict == "not_supported" or valid_ids.isdisjoint(indexes)
        elif (c.get("reasons") or [None, None])[1:2] == [OVER_CAP]:
            continue  # an undecided claim past the cap is not counted
        else:
            unsupported += verdict == "not_supported"
        n += 1
    return {
        "citations": len(citations),
        "valid_citations": len(valid_ids),
        "claims": n,
        "cited_claims": cited,
        "decided_claims": decided,
        "supported_claims": supported,
        "unsupported_claims": unsupported,
    }


_COUNTED = (
    "citations",
    "valid_citations",
    "claims",
    "cited_claims",
    "decided_claims",
    "supported_claims",
    "unsupported_claims",
)


@dataclass
class Answer:
    """One answer's records: the check path's (first seen) and the judge's (latest)."""

    event_id: str
    check: AuditItem | None = None
    judge: AuditItem | None = None
    duplicates: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def group(items: Iterable[AuditItem]) -> dict[str, Answer]:
    answers: dict[str, Answer] = {}
    for item in items:
        eid = str(item.record.get("event_id") or "")
        if not eid:
            continue
        answer = answers.setdefault(eid, Answer(eid))
        if item.is_judge:
            if answer.judge is None or (item.at or 0) >= (answer.judge.at or 0):
                answer.judge = item
        elif answer.check is None:
            answer.check = item
        else:
            answer.duplicates += 1
    return answers


def ranked_answers(
    answers: Mapping[str, Answer], figure: str | None, op: str, sample_rate: float
) -> tuple[list[tuple[Answer, float | None]], dict[str, float] | None]:
    """Answers with their move of the rate, largest first, and the window's estimated totals.
    Without a per-answer figure (judge errors, dead letters): newest first, no move."""
    checked = [a for a in answers.values() if a.check is not None]
    if figure not in FIGURE_FIELDS:
        ordered = sorted(checked, key=lambda a: (-(_at(a)), a.event_id))
        return [(a, None) for a in ordered], None
    counts = {a.event_id: record_counts(a.check.record) for a in checked if a.check}
    weights = {
        a.event_id: inclusion_weight(a.check.record.get("audit_reason"), sample_rate)
        for a in checked
        if a.check
    }
    ranking = rank(counts.items(), figure, op, weights=weights)
    num, den = FIGURE_FIELDS[figure]
    totals = {
        num: sum(weights[e] * c[num] for e, c in counts.items()),
        den: sum(weights[e] * c[den] for e, c in counts.items()),
    }
    return [(answers[c.event_id], c.move) for c in ranking], totals


def _at(answer: Answer) -> float:
    item = answer.check or answer.judge
    return (item.at if item is not None else None) or 0.0
