"""Which verdicts go to the audit trail, and redaction of personal data in their texts.

Pure: standard library only. The sampling decision is a function of the event id (salted
differently from the judge's), so a redelivered event gets the same decision on any worker and
audit samples are independent of judge samples.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Literal

from monitor.records.models import Verdict
from monitor.sampling.policy import hash_fraction

AuditReason = Literal["failure", "sample"]

AUDIT_SALT = "ragmon-audit"

# Built-in pattern names accepted in RAGMON_REDACT next to raw regular expressions.
BUILTIN_PATTERNS: dict[str, str] = {
    "email": r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}",
    # Optional country code, an area code, then groups split by separators: a separator after
    # the area code is required so plain figures ("revenue 12345678") are left alone.
    "phone": r"(?<![\w.])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)|\d{2,4})[\s.-]\d{3,4}[\s.-]?\d{3,4}(?![\w.])",
}

# Keys of verdict records whose values are codes or identifiers, never free text.
_STRUCTURAL_KEYS = frozenset(
    {
        "event_id",
        "app",
        "format",
        "status",
        "error",
        "verdict",
        "tier",
        "kind",
        "confidence",
        "overall_parts",
        "audit_reason",
    }
)


def has_failure(verdict: Verdict) -> bool:
    """An invalid citation or a claim the evidence contradicts or does not cover."""
    if any(not c.valid for c in verdict.citations):
        return True
    return any(c.support.verdict == "not_supported" for c in verdict.claims)


def audit_reason(verdict: Verdict, sample_rate: float) -> AuditReason | None:
    """`failure` for every failing answer, `sample` for a hash-chosen share of the rest."""
    if verdict.error is not None:
        return None  # rejected events are in the dead-letter topic, with their bytes
    return audit_reason_of(verdict.event_id, has_failure(verdict), sample_rate)


def audit_reason_of(event_id: str, failed: bool, sample_rate: float) -> AuditReason | None:
    """`audit_reason` of a verdict without error, from its event id and `has_failure`: what a
    check process sends back of an answer whose verdict stays there."""
    if failed:
        return "failure"
    if sample_rate > 0 and hash_fraction(event_id, AUDIT_SALT) < sample_rate:
        return "sample"
    return None


class Redactor:
    """Replaces matches of the configured patterns in free-text fields with a marker."""

    def __init__(self, patterns: Iterable[str] = ()) -> None:
        compiled: list[tuple[str, re.Pattern[str]]] = []
        for raw in patterns:
            spec = raw.strip()
            if not spec:
                continue
            label = spec if spec in BUILTIN_PATTERNS else "pattern"
            try:
                compiled.append((label, re.compile(BUILTIN_PATTERNS.get(spec, spec))))
            except re.error as exc:
                raise ValueError(f"invalid redaction pattern {spec!r}: {exc}") from None
        self._patterns = tuple(compiled)

    @classmethod
    def from_setting(cls, value: str) -> Redactor:
        """RAGMON_REDACT: comma-separated names or regexes (a regex may not contain a comma)."""
        return cls(part for part in value.split(",") if part.strip())

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def text(self, value: str) -> str:
        for label, pattern in self._patterns:
            value = pattern.sub(f"[redacted:{label}]", value)
        return value

    def record(self, record: Any, key: str | None = None) -> Any:
        """A copy of a JSON-like record with every free-text string redacted."""
        if not self._patterns:
            return record
        if isinstance(record, str):
            return record if key in _STRUCTURAL_KEYS else self.text(record)
        if isinstance(record, dict):
            return {k: self.record(v, k) for k, v in record.items()}
        if isinstance(record, list):
            return [self.record(v, key) for v in record]
        return record
