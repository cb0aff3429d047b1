"""A referenced passage cut out of its answer again: an audit record written with
RAGMON_AUDIT_PASSAGES=reference keeps each cited passage's place (`span`, `span_page`, `doc_id`)
instead of its text; the evidence page reads the answer the record's `source` points to and
cuts the passage and its context out here, exactly as a copying record would have held them
(the same clip and the same word-cut context: monitor.output.audit_text).

Pure: standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from monitor.output.audit_text import around, clip, text_crc32
from monitor.records.models import AnswerEvent


def gone(topic: object) -> str:
    """What the page says when the answer is past its topic's retention."""
    return f"the answer's record is no longer on {topic}: passage not shown"


def elsewhere(topic: object, read: object) -> str:
    """The record's answer is on a topic the page does not read (renamed since)."""
    return f"the record's answer is on {topic}, the page reads {read}: passage not shown"


NO_SOURCE = "the record names no answer (no source): passage not shown"
UNDECODABLE = "the answer no longer decodes with the page's settings: passage not shown"
NOT_THERE = (
    "the answer no longer holds this passage (its document reads differently now): not shown"
)


def referenced(citation: Mapping[str, Any]) -> bool:
    """A citation whose passage the record references instead of holding."""
    span = citation.get("span")
    return "cited_text" not in citation and isinstance(span, list) and len(span) == 2


def cut(
    citation: Mapping[str, Any], event: AnswerEvent, passage_chars: int, context_chars: int
) -> dict[str, str] | None:
    """`cited_text` (and, for a valid character-span citation, `context_before` and
    `context_after`) cut from `event` by the citation's stored span; None when the span does
    not fit the event's document or the text under it is not the passage the record saw
    (`span_crc32`)."""
    span = citation.get("span")
    doc_id = citation.get("doc_id")
    if not isinstance(span, list) or len(span) != 2 or not isinstance(doc_id, str):
        return None
    start, end = span
    page = citation.get("span_page")
    doc = event.document(doc_id)
    if doc is None or not isinstance(start, int) or not isinstance(end, int):
        return None
    if page is None:
        text = doc.full_text
    elif isinstance(page, int) and doc.pages is not None and 1 <= page <= len(doc.pages):
        text = doc.pages[page - 1]
    else:
        return None
    if not 0 <= start <= end <= len(text):
        return None
    if citation.get("span_crc32") != text_crc32(text[start:end]):
        return None
    out = {"cited_text": clip(text[start:end], passage_chars) or ""}
    # the copying record's context: valid character-span citations only (span_context)
    if context_chars > 0 and citation.get("status") == "valid" and citation.get("format") == "span":
        out["context_before"], out["context_after"] = around(text, start, end, context_chars)
    return out


def fill(
    citations: list[dict[str, Any]],
    event: AnswerEvent | str,
    passage_chars: int,
    context_chars: int,
) -> None:
    """Each referenced citation given its passage cut from `event` (in place), or
    `passage_missing` saying why not (`event` a string: why there is no answer to cut from)."""
    for entry in citations:
        if not referenced(entry):
            continue
        got = None if isinstance(event, str) else cut(entry, event, passage_chars, context_chars)
        if got is None:
            entry["passage_missing"] = event if isinstance(event, str) else NOT_THERE
        else:
            entry.update(got)
