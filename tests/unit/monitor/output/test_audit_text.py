from __future__ import annotations

import json
from typing import Any

import pytest

from monitor.output.audit_text import (
    AuditText,
    bare_marker,
    clip,
    explain,
    explain_own,
    strip_judge_text,
)
from monitor.output.verdict_io import verdict_to_dict
from tests.unit.monitor.conftest import DOC, audit_record, checked, event_dict


def test_all_keeps_question_answer_passage_and_context(record: dict[str, Any]) -> None:
    assert record["question"] == "What <b>grew</b>?"
    assert record["answer"].startswith("Revenue grew 12%")
    assert (record["model"], record["tenant"], record["text_level"]) == ("m1", "t1", "all")
    valid = record["citations"][0]
    assert valid["cited_text"] == DOC[12:35] == "revenue grew 12% in 202"
    # 12 characters before the span: the whole start of the page; after: to the end of it
    assert valid["context_before"] == DOC[:12]
    assert valid["context_after"] == DOC[35:]
    invalid = record["citations"][1]
    assert invalid["error"] == "span_out_of_bounds" and "context_before" not in invalid
    claim = record["claims"][0]
    assert record["answer"][claim["start"] : claim["end"]] == claim["text"]


def test_context_is_cut_at_a_word_and_bounded() -> None:
    rec = audit_record(event_dict(), AuditText(context_chars=10))
    valid = rec["citations"][0]
    # DOC[2:12] = "e report: " → from the first space on, marked as cut
    assert valid["context_before"] == "…report: "
    # DOC[35:45] = "3 while co" → up to its last space
    assert valid["context_after"] == "3 while…"


def test_long_answer_keeps_claims_only() -> None:
    raw = event_dict()
    rec = audit_record(raw, AuditText(answer_chars=20))
    assert "answer" not in rec and rec["answer_chars"] == len(raw["answer"])
    assert rec["claims"][0]["text"].startswith("Revenue grew")


def test_claims_level_drops_question_answer_and_passages() -> None:
    rec = audit_record(event_dict(), AuditText(level="claims"))
    assert not {"question", "answer"} & rec.keys()
    assert all("cited_text" not in c and "context_before" not in c for c in rec["citations"])
    assert rec["claims"][0]["text"].startswith("Revenue grew")


def test_none_level_keeps_no_free_text() -> None:
    rec = audit_record(event_dict(), AuditText(level="none"))
    texts = []

    def walk(value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str):
            texts.append((key, value))

    walk(rec)
    # Only ids, codes and the model/tenant names the event gave are left.
    assert {k for k, _ in texts} <= {
        "event_id", "app", "format", "doc_id", "status", "error", "kind", "verdict",
        "confidence", "tier", "reasons", "overall_parts", "model", "tenant", "text_level",
        "raw", "text",
    }  # fmt: skip
    assert not any("revenue" in v.lower() or "script" in v for _, v in texts)
    assert {c["text"] for c in rec["claims"]} == {""}


def test_bare_marker() -> None:
    assert bare_marker('[a.pdf:1:0-9 | excerpt: "secret"]') == "[a.pdf:1:0-9]"
    assert bare_marker("[3]") == "[3]"


def test_judge_reasoning_is_dropped_only_at_level_none() -> None:
    judge = {
        "reason": "judge",
        "claims": [{"index": 0, "verdict": "not_supported", "reasons": ["the doc says 2024"]}],
        "answer": {"reasoning": "free text", "overall": 0.2},
    }
    assert strip_judge_text(judge, "all") is judge
    stripped = strip_judge_text(judge, "none")
    assert stripped["claims"] == [{"index": 0, "verdict": "not_supported"}]
    assert stripped["answer"] == {"overall": 0.2}


def test_clip() -> None:
    assert clip("abcdef", 4) == "abc…"
    assert clip("abc", 4) == "abc"
    assert clip(None, 4) is None


def test_none_level_keeps_reason_codes_not_their_values() -> None:
    full = audit_record(event_dict(), AuditText())
    bare = audit_record(event_dict(), AuditText(level="none"))
    assert "number_missing:2023" in full["claims"][0]["reasons"]
    assert "number_missing" in bare["claims"][0]["reasons"]
    assert not any("2023" in r for r in bare["claims"][0]["reasons"])


@pytest.mark.parametrize("level", ["all", "claims", "none"])
def test_explain_own_is_explain_in_place(level: str) -> None:
    """The audit builder's in-place explain gives the same record, keys in the same order (the
    record's bytes), as the copying one, and leaves no other holder to be surprised."""
    for raw in (event_dict(), event_dict(answer="Costs fell [r.pdf:1:0-4]. Uncited words here.")):
        event, verdict = checked(raw)
        policy = AuditText(level=level)  # type: ignore[arg-type]
        copied = explain(verdict_to_dict(verdict, 1000), event, verdict, policy)
        own = verdict_to_dict(verdict, 1000)
        in_place = explain_own(own, event, verdict, policy)
        assert in_place is own
        assert json.dumps(in_place) == json.dumps(copied)
