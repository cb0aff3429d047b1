"""Referenced passages (RAGMON_AUDIT_PASSAGES=reference): the record keeps each passage's span in
its document, and cutting the document by that span gives back exactly what a copying record
holds (`cited_text` within RAGMON_AUDIT_CITED_TEXT_CHARS, the context within
RAGMON_AUDIT_CONTEXT_CHARS), for any document and any span, line range or whole document."""

from __future__ import annotations

import json
import zlib
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.oncall.passages import NOT_THERE, cut, fill, gone, referenced
from monitor.output.audit_text import AuditText, explain_own, passage_span
from monitor.output.verdict_io import verdict_to_dict
from tests.unit.monitor.conftest import DOC, checked, event_dict

PASSAGE_KEYS = ("cited_text", "context_before", "context_after")


def records(
    raw: dict[str, Any], chars: int, context: int
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """(event, the copying record, the referencing record), both through JSON as published."""
    event, verdict = checked(raw)
    copy = AuditText(passage_chars=chars, context_chars=context, passages="copy")
    ref = AuditText(passage_chars=chars, context_chars=context, passages="reference")
    old = explain_own(verdict_to_dict(verdict, chars), event, verdict, copy)
    new = explain_own(verdict_to_dict(verdict, None), event, verdict, ref)
    return event, json.loads(json.dumps(old)), json.loads(json.dumps(new))


def test_a_span_citation_is_referenced_by_its_page_and_offsets() -> None:
    event, old, new = records(event_dict(), 1_000, 160)  # "[r.pdf:1:12-35]" on a paged document
    valid, invalid = new["citations"][0], new["citations"][1]
    assert valid["span"] == [12, 35] and valid["span_page"] == 1
    assert not any(k in valid for k in PASSAGE_KEYS)
    # an out-of-bounds span resolved no passage: nothing to reference, null as before
    assert invalid["error"] == "span_out_of_bounds" and "span" not in invalid
    assert invalid["cited_text"] is None is old["citations"][1]["cited_text"]
    got = cut(valid, event, 1_000, 160)
    assert got == {"cited_text": DOC[12:35], "context_before": DOC[:12], "context_after": DOC[35:]}
    # the rest of the record is the copying one's
    for c_old, c_new in zip(old["citations"], new["citations"], strict=True):
        gone_keys = PASSAGE_KEYS if "span" in c_new else ()
        assert {k: v for k, v in c_new.items() if k not in ("span", "span_page", "span_crc32")} == {
            k: v for k, v in c_old.items() if k not in gone_keys
        }
    assert {k: v for k, v in new.items() if k != "citations"} == {
        k: v for k, v in old.items() if k != "citations"
    }


def test_a_passage_without_a_document_is_still_copied() -> None:
    raw = event_dict(answer="The premium is 12 [quote.premium].", data={"quote": {"premium": 12}})
    _, old, new = records(raw, 1_000, 160)
    [c_old], [c_new] = old["citations"], new["citations"]
    assert c_new["format"] == "json_path" and "span" not in c_new
    assert c_new["cited_text"] == c_old["cited_text"] == "quote.premium = 12"


def test_fill_cuts_or_says_why_not() -> None:
    event, _, new = records(event_dict(), 1_000, 160)
    here = [dict(c) for c in new["citations"]]
    fill(here, event, 1_000, 160)
    assert here[0]["cited_text"] == DOC[12:35] and "passage_missing" not in here[0]
    assert here[1] == new["citations"][1]  # not referenced: left as it is
    away = [dict(c) for c in new["citations"]]
    fill(away, gone("ragmon.answers"), 1_000, 160)
    assert away[0]["passage_missing"] == gone("ragmon.answers")
    assert gone("ragmon.answers") == (
        "the answer's record is no longer on ragmon.answers: passage not shown"
    )
    other, _ = checked(event_dict(documents=[{"id": "other.pdf", "text": DOC}]))
    moved = [dict(c) for c in new["citations"]]
    fill(moved, other, 1_000, 160)
    assert moved[0]["passage_missing"] == NOT_THERE
    # the same document read differently now (another input format, an upgrade): the span
    # still fits, but the text under it is not the passage the record saw
    reworded = DOC[:12] + DOC[12:35].upper() + DOC[35:]
    assert reworded != DOC and len(reworded) == len(DOC)
    changed, _ = checked(event_dict(documents=[{"id": "r.pdf", "pages": [reworded]}]))
    assert changed.document("r.pdf") is not None
    again = [dict(c) for c in new["citations"]]
    fill(again, changed, 1_000, 160)
    assert again[0]["passage_missing"] == NOT_THERE
    assert cut(new["citations"][0], changed, 1_000, 160) is None
    assert new["citations"][0]["span_crc32"] == zlib.crc32(DOC[12:35].encode())
    assert referenced(new["citations"][0]) and not referenced(here[0])


WORD = st.text(alphabet="abcxyz. \n\u00e9\u4e2d", min_size=0, max_size=12)
TEXT = st.lists(WORD, min_size=1, max_size=30).map(" ".join).filter(lambda t: len(t) >= 1)


@st.composite
def span_case(draw: st.DrawFn) -> tuple[dict[str, Any], int, int]:
    text = draw(TEXT)
    start = draw(st.integers(0, len(text) - 1))
    end = draw(st.integers(start + 1, len(text)))
    paged = draw(st.booleans())
    if paged:
        doc = {"id": "d.pdf", "pages": [draw(TEXT), text]}
        marker = f"[d.pdf:2:{start}-{end}]"
    else:
        doc = {"id": "d.pdf", "text": text}
        marker = f"[d.pdf:1:{start}-{end}]"
    kind = draw(st.sampled_from(["span", "lines", "numbered"]))
    if kind == "lines":
        n = len(text.split("\n"))
        first = draw(st.integers(1, n))
        last = draw(st.integers(first, n))
        doc = {"id": "d.txt", "text": text}
        marker = f"[d.txt:{first}-{last}]"
    elif kind == "numbered":
        doc = {"id": "d.pdf", "text": text}
        marker = "[1]"
    raw = event_dict(answer=f"The figures rose sharply {marker}.", documents=[doc])
    return raw, draw(st.integers(0, 1_200)), draw(st.integers(0, 200))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(span_case())
def test_cutting_by_the_stored_span_gives_the_copied_passage(case: Any) -> None:
    raw, chars, context = case
    event, old, new = records(raw, chars, context)
    assert len(old["citations"]) == len(new["citations"])
    for c_old, c_new in zip(old["citations"], new["citations"], strict=True):
        # a citation that resolved is always referenced (its passage is in the document)
        assert ("span" in c_new) == (c_old.get("cited_text") is not None)
        if "span" not in c_new:  # nothing resolved (a line past the end): neither holds text
            assert c_old.get("cited_text") == c_new.get("cited_text")
            continue
        got = cut(c_new, event, chars, context)
        assert got == {k: c_old[k] for k in PASSAGE_KEYS if k in c_old}


def test_passage_span_of_a_line_range_is_where_the_lines_are() -> None:
    text = "alpha\nbeta gamma\ndelta\n"
    event, verdict = checked(
        event_dict(answer="Beta and delta [n.txt:2-3].", documents=[{"id": "n.txt", "text": text}])
    )
    [result] = verdict.citations
    assert result.cited_text == "beta gamma\ndelta"
    assert passage_span(event, result) == (6, 22, None)
    assert text[6:22] == result.cited_text


def test_policy_travels_with_its_passage_mode() -> None:
    import pickle

    policy = AuditText(passages="reference")
    assert pickle.loads(pickle.dumps(policy)) == policy


def test_a_referencing_record_is_a_valid_verdict_record() -> None:
    """verdict.schema.json (../shared, read-only) makes `cited_text` optional: a record without
    it, with `span` and `span_page` added, still validates."""
    import jsonschema

    from tests.conftest import shared_path

    schema = json.loads(shared_path("schema", "verdict.schema.json").read_text())
    _, _, new = records(event_dict(), 1_000, 160)
    assert "span" in new["citations"][0] and "cited_text" not in new["citations"][0]
    jsonschema.Draft202012Validator(schema).validate(new)
    broken = dict(new, citations=[dict(new["citations"][0], status="maybe")])
    assert not jsonschema.Draft202012Validator(schema).is_valid(broken)
