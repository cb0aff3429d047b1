from __future__ import annotations

from typing import Any

import pytest

from monitor.output.audit_text import AuditText
from monitor.output.citation_why import why_invalid
from tests.unit.monitor.conftest import DOC, audit_record, checked, event_dict

CODE = "line one\nline two\nline three\n"  # three lines: the empty string after the last \n is none


def whys(answer: str, documents: list[dict[str, Any]] | None = None) -> list[str | None]:
    raw = event_dict(answer=answer)
    if documents is not None:
        raw["documents"] = documents
    event, verdict = checked(raw)
    return [why_invalid(c, event) for c in verdict.citations]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        # the example of issue 26: an end past the page, with the page's own length
        (
            "Costs fell [r.pdf:1:500-600].",
            f"span 500-600 past the end of page 1 of r.pdf ({len(DOC)} characters)",
        ),
        ("Costs fell [r.pdf:4:1-20].", "page 4 of r.pdf, which has 1 pages"),
        (
            "Costs fell [other.pdf:1:1-20].",
            "no document 'other.pdf' among the answer's 2 (r.pdf, code.py)",
        ),
        ("Costs fell [3].", "document number 3 of 2 documents"),
        ("Costs fell [code.py:2-7].", "lines 2-7 of code.py, which has 3 lines"),
        ("Costs fell [r.pdf:1:30-10].", "span 30-10 of page 1 of r.pdf is empty or reversed"),
        ("Revenue grew 12% in 2023 [r.pdf:1:12-35].", None),  # valid: nothing to say
    ],
)
def test_why_a_citation_is_invalid_from_the_event(answer: str, expected: str | None) -> None:
    docs = [{"id": "r.pdf", "pages": [DOC]}, {"id": "code.py", "text": CODE}]
    assert whys(answer, docs) == [expected]


@pytest.mark.parametrize("level", ["all", "claims"])
def test_the_audit_record_carries_the_why_unless_no_text_is_kept(level: str) -> None:
    record = audit_record(event_dict(), AuditText(level=level))  # type: ignore[arg-type]
    by_status = {c["status"]: c for c in record["citations"]}
    assert by_status["invalid"]["why"] == (
        f"span 500-600 past the end of page 1 of r.pdf ({len(DOC)} characters)"
    )
    assert "why" not in by_status["valid"]


def test_no_why_at_text_level_none() -> None:
    record = audit_record(event_dict(), AuditText(level="none"))
    assert not any("why" in c for c in record["citations"])
