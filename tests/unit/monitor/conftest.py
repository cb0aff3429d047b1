from __future__ import annotations

import json
from typing import Any

import pytest

from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.output.audit_text import AuditText, explain
from monitor.output.verdict_io import verdict_to_dict
from monitor.records.models import AnswerEvent, Verdict

DOC = "The report: revenue grew 12% in 2023 while costs fell sharply over the year."


def event_dict(event_id: str = "e1", answer: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "app": "search",
        "question": "What <b>grew</b>?",
        "model": "m1",
        "tenant": "t1",
        "answer": answer
        if answer is not None
        else "Revenue grew 12% in 2023 [r.pdf:1:12-35]. Costs <script>alert(1)</script> fell [r.pdf:1:500-600].",
        "documents": [{"id": "r.pdf", "pages": [DOC]}],
        **extra,
    }


def checked(raw: dict[str, Any]) -> tuple[AnswerEvent, Verdict]:
    event = decode_event(json.dumps(raw).encode(), CheckOptions())
    assert isinstance(event, AnswerEvent)
    return event, check_event(event, CheckOptions())


def audit_record(
    raw: dict[str, Any], policy: AuditText | None = None, **fields: Any
) -> dict[str, Any]:
    event, verdict = checked(raw)
    record = explain(verdict_to_dict(verdict, 10**6), event, verdict, policy or AuditText())
    record.update(fields)
    return record


@pytest.fixture
def record() -> dict[str, Any]:
    return audit_record(event_dict(), audit_reason="failure", audited_at=1000.0)
