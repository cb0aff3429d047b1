"""Audit records built from a verdict: which answers are audited, and the record's bytes.

A record explains itself (monitor.output.audit_text): the question, the answer, each cited passage
(by default referenced: its span in the document, cut out again by the evidence page from the
answer the record's `source` points to; RAGMON_AUDIT_PASSAGES=copy copies it with its context),
model and tenant, as far as RAGMON_AUDIT_TEXT allows; `sampled_for_judge` says whether the
judge's sampling rule took the answer.

Pure computation (no logger, no metrics, no producer), so a check process can build the
records next to the check and hand the worker only their bytes (agents/checking/pool.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from agents.output.jsonout import dumps
from agents.output.records import COUNT_FIELDS, verdict_vector
from monitor.judge.plan import sample_reason
from monitor.output.audit import Redactor, audit_reason
from monitor.output.audit_text import AuditText, explain_own
from monitor.output.verdict_io import verdict_to_dict
from monitor.records.models import AnswerEvent, Verdict

#: A record must fit in one Kafka message (1 MB by default) with room for headers.
MAX_RECORD_BYTES = 900_000


def lean_verdict_dict(verdict: Verdict) -> dict[str, Any]:
    """`verdict_to_dict` without `cited_text`: it runs for most answers."""
    return verdict_to_dict(verdict, cited_text_max=None)


def encode_record(record: dict[str, Any]) -> bytes:
    return dumps(record)


def fit(record: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    """The record and its bytes, shrunk when it would not fit in one Kafka message."""
    data = encode_record(record)
    if len(data) <= MAX_RECORD_BYTES:
        return record, data
    slim = dict(record, truncated=True)
    slim["claims"] = [{k: v for k, v in c.items() if k != "text"} for c in record["claims"]]
    slim["citations"] = [
        {k: v for k, v in c.items() if k not in ("cited_text", "raw")} for c in record["citations"]
    ]
    data = encode_record(slim)
    if len(data) <= MAX_RECORD_BYTES:
        return slim, data
    slim["claims"], slim["citations"] = [], []
    return slim, encode_record(slim)


@dataclass(frozen=True, slots=True)
class AuditEntry:
    reason: str  # failure | sample
    data: bytes  # the record as published
    record: dict[str, Any] | None  # the same as a dict, when a log line is wanted

    def __reduce__(self) -> tuple[Any, ...]:
        return (AuditEntry, (self.reason, self.data, self.record))  # see Checked.__reduce__


@dataclass(frozen=True, slots=True)
class AuditBuilder:
    """Picklable: a check process gets a copy."""

    sample_rate: float
    cited_text_chars: int = 0
    redactor: Redactor | None = None
    keep_dict: bool = True  # the worker writes audit log lines (RAGMON_AUDIT_LOG)
    text: AuditText | None = None  # None: the lean record (no question, answer or context)
    judge_rates: tuple[float, float] | None = None  # (base, oversample) when the judge is on
    claim_cap: int = 0  # RAGMON_ANSWER_CLAIM_WEIGHT, as the window counts the answer

    def build(
        self,
        verdict: Verdict,
        source: dict[str, Any],
        event: AnswerEvent | None = None,
        vector: list[int] | None = None,
    ) -> AuditEntry | None:
        """The verdict's audit record if it is failing or sampled, else None. `vector`: the
        answer's count vector (`verdict_vector` with `claim_cap`) when the caller has it."""
        reason = audit_reason(verdict, self.sample_rate)
        if reason is None:
            return None
        if self.text is not None:
            # None: no passage copied here (referenced by its span, or a level without them)
            passages: int | None = None
            if self.text.level == "all" and (self.text.passages == "copy" or event is None):
                passages = self.text.passage_chars
            record = explain_own(verdict_to_dict(verdict, passages), event, verdict, self.text)
        elif self.cited_text_chars:
            record = verdict_to_dict(verdict, self.cited_text_chars)
        else:
            record = lean_verdict_dict(verdict)
        if event is not None and self.judge_rates is not None:
            base, oversample = self.judge_rates
            record["sampled_for_judge"] = (
                sample_reason(event, verdict, base, oversample) is not None
            )
        # what the answer added to its app's window: the evidence page ranks by it
        if vector is None:
            vector = verdict_vector(verdict, self.claim_cap)
        record["counts"] = {k: v for k, v in zip(COUNT_FIELDS[2:], vector[2:], strict=False)}
        record["audit_reason"] = reason
        record["source"] = source
        record["audited_at"] = round(time.time(), 6)
        if self.redactor:
            record = self.redactor.record(record)
        record, data = fit(record)
        return AuditEntry(reason, data, record if self.keep_dict else None)
