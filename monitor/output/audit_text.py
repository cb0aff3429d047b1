"""What an audit record says in words, so it explains itself without the answers topic: the
question, the answer (or, past a bound, each claim's sentence), the model and tenant, and per
citation the cited passage with a little of the text around it.

Pure: standard library only. How much text is kept is a policy (`AuditText`) read from the
settings; `level` removes text for those who must not keep it:

- ``all``: question, answer, claim sentences, cited passages with their context;
- ``claims``: claim sentences only (no question, answer or passages);
- ``none``: no free text at all, only ids, codes, offsets, verdicts and scores.

RAGMON_REDACT patterns (monitor.output.audit.Redactor) apply on top of any level.

At ``all`` a passage is copied (``passages="copy"``) or referenced (``"reference"``): the record
keeps where the passage is, a character ``span`` (and ``span_page``) in its document, and the
evidence page cuts it out of the answer again (monitor.oncall.passages). A passage that cannot
be found again that way (a json path's rendering, a vendor's quote not in the document) is
copied either way.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, Literal

from monitor.output.citation_why import why_invalid
from monitor.records.models import AnswerEvent, CitationResult, Verdict

TextLevel = Literal["all", "claims", "none"]
TEXT_LEVELS: tuple[str, ...] = ("all", "claims", "none")
PassageMode = Literal["copy", "reference"]


@dataclass(frozen=True, slots=True)
class AuditText:
    level: TextLevel = "all"
    passage_chars: int = 1_000  # cited passage kept per citation
    context_chars: int = 160  # document text kept on either side of a span
    answer_chars: int = 4_000  # the answer kept whole up to this; longer: claims only
    question_chars: int = 1_000
    #: the full copy here; the settings' default (RAGMON_AUDIT_PASSAGES) is "reference"
    passages: PassageMode = "copy"

    def __reduce__(self) -> tuple[Any, ...]:
        # The compiled core's frozen dataclass cannot be unpickled field by field (its
        # __setattr__ refuses) and a check process gets a copy: it travels as its
        # constructor's arguments.
        return (
            AuditText,
            (
                self.level,
                self.passage_chars,
                self.context_chars,
                self.answer_chars,
                self.question_chars,
                self.passages,
            ),
        )


def clip(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[: max(0, limit - 1)] + "…"


def bare_marker(raw: str) -> str:
    """A citation marker without the quote an extended citation carries:
    `[a.pdf:1:0-9 | excerpt: "…"]` → `[a.pdf:1:0-9]`."""
    if "|" not in raw:
        return raw
    return raw.split("|", 1)[0].rstrip() + ("]" if raw.startswith("[") else "")


def around(text: str, start: int, end: int, chars: int) -> tuple[str, str]:
    """Up to `chars` of `text` on either side of [start, end), cut at a word."""
    before = text[max(0, start - chars) : start]
    after = text[end : end + chars]
    # Cut at a whitespace so the context does not start or end mid-word.
    if start - chars > 0 and " " in before:
        before = "…" + before[before.index(" ") + 1 :]
    if end + chars < len(text) and " " in after:
        after = after[: after.rindex(" ")] + "…"
    return before, after


def text_crc32(text: str) -> int:
    """A referenced passage's fingerprint: the page cuts the passage out of the answer decoded
    again with the page's code and settings, and a document built differently since (another
    input format, an upgrade) could put other text under the same span. CRC-32 of the UTF-8
    (lone surrogates escaped) is enough to notice that; it is not a security check."""
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def passage_span(event: AnswerEvent, result: CitationResult) -> tuple[int, int, int | None] | None:
    """Where the citation's passage (`cited_text`) is in its document: (start, end, page) such
    that the document's text (its `page`'s, 1-based, when not None) [start:end] is the passage;
    None when it is not there to cut out again (no document: a json path's rendering)."""
    cited = result.cited_text
    if cited is None or result.doc_id is None:
        return None
    doc = event.document(result.doc_id)
    if doc is None:
        return None
    c = result.citation
    if c.format == "span":
        # as resolution cut it (and span_context reads around it): the page's text or the whole
        page: int | None = None
        text = doc.full_text
        if doc.pages is not None:
            page = c.page
            if page is None or not 1 <= page <= len(doc.pages):
                return None
            text = doc.pages[page - 1]
        start, end = c.range_start, c.range_end
        if start is None or end is None or end - start != len(cited):
            return None
        return (start, end, page) if text.startswith(cited, start) else None
    text = doc.full_text
    if cited is text:  # numbered and segment citations cite the whole document
        return 0, len(text), None
    # a line range (or a vendor's located passage): the same text, wherever it first occurs
    found = text.find(cited)
    return None if found < 0 else (found, found + len(cited), None)


def span_context(event: AnswerEvent, result: CitationResult, chars: int) -> tuple[str, str] | None:
    """The document text just before and after a valid span citation, or None when the
    citation is not a character span (lines, numbers, paths and segments cite whole units)."""
    c = result.citation
    if (
        chars <= 0
        or not result.valid
        or c.format != "span"
        or result.doc_id is None
        or c.range_start is None
        or c.range_end is None
    ):
        return None
    doc = event.document(result.doc_id)
    if doc is None:
        return None
    if doc.pages is not None and c.page is not None and 1 <= c.page <= len(doc.pages):
        text = doc.pages[c.page - 1]
    else:
        text = doc.full_text
    start, end = c.range_start, c.range_end
    if not 0 <= start <= end <= len(text):
        return None
    return around(text, start, end, chars)


def explain(
    record: dict[str, Any], event: AnswerEvent | None, verdict: Verdict, policy: AuditText
) -> dict[str, Any]:
    """`record` (a verdict record, verdict_io.verdict_to_dict with `cited_text`) with the texts
    the policy keeps added and the ones it forbids removed. Returns a new dict."""
    claims = [dict(c) for c in record.get("claims", [])]
    citations = [dict(c) for c in record.get("citations", [])]
    return _explained(dict(record), claims, citations, event, verdict, policy)


def explain_own(
    record: dict[str, Any], event: AnswerEvent | None, verdict: Verdict, policy: AuditText
) -> dict[str, Any]:
    """`explain` for a record nobody else holds (a fresh verdict_to_dict): changed in place
    and returned, without copying the record and each of its claims and citations."""
    claims: list[dict[str, Any]] = record.get("claims", [])
    citations: list[dict[str, Any]] = record.get("citations", [])
    return _explained(record, claims, citations, event, verdict, policy)


def _explained(
    out: dict[str, Any],
    claims: list[dict[str, Any]],
    citations: list[dict[str, Any]],
    event: AnswerEvent | None,
    verdict: Verdict,
    policy: AuditText,
) -> dict[str, Any]:
    # Offsets of each claim in the answer text, so a reader can mark them.
    for entry, claim in zip(claims, verdict.claims, strict=False):
        entry["start"], entry["end"] = claim.claim.start, claim.claim.end
    if event is not None:
        for key in ("model", "tenant", "timestamp"):
            value = getattr(event, key)
            if value is not None:
                out[key] = value
    if policy.level == "all":
        if event is not None:
            if event.question is not None:
                out["question"] = clip(event.question, policy.question_chars)
            if len(event.answer) <= policy.answer_chars:
                out["answer"] = event.answer
            else:
                out["answer_chars"] = len(event.answer)  # claims carry their sentences
        for entry, result in zip(citations, verdict.citations, strict=False):  # same order
            if policy.passages == "reference" and event is not None:
                excerpt = result.citation.excerpt
                if excerpt is not None:  # the citation's own quote: not in the document
                    entry["excerpt"] = clip(excerpt, policy.passage_chars)
                where = passage_span(event, result)
                if where is not None and result.cited_text is not None:
                    entry["span"] = [where[0], where[1]]
                    if where[2] is not None:
                        entry["span_page"] = where[2]
                    entry["span_crc32"] = text_crc32(result.cited_text)
                    continue
            entry["cited_text"] = clip(result.cited_text, policy.passage_chars)
            context = span_context(event, result, policy.context_chars) if event else None
            if context is not None:
                entry["context_before"], entry["context_after"] = context
    else:
        for entry in citations:
            entry.pop("cited_text", None)
            entry.pop("excerpt", None)  # a quote is free text too
        if policy.level == "none":
            # `text` and `raw` are required by verdict.schema.json: emptied, not removed
            for entry in claims:
                entry["text"] = ""
                # a reason may quote the claim ("number_missing:2023"): its code only
                entry["reasons"] = [str(r).split(":", 1)[0] for r in entry.get("reasons", [])]
            for entry in citations:
                entry["raw"] = bare_marker(str(entry.get("raw", "")))
    # numbers and document references as the answer wrote them: not at level none, which
    # keeps the markers themselves bare
    for entry, result in zip(citations, verdict.citations, strict=False):
        why = why_invalid(result, event) if policy.level != "none" else None
        if why is not None:
            entry["why"] = why
    out["claims"], out["citations"] = claims, citations
    out["text_level"] = policy.level
    return out


def strip_judge_text(record: dict[str, Any], level: TextLevel) -> dict[str, Any]:
    """A judge audit record under the policy: its reasoning is free text about the claim."""
    if level != "none":
        return record
    out = dict(record)
    out["claims"] = [
        {k: v for k, v in c.items() if k != "reasons"} for c in record.get("claims", [])
    ]
    if isinstance(out.get("answer"), dict):  # the judge's answer-level part
        out["answer"] = {k: v for k, v in out["answer"].items() if k != "reasoning"}
    return out
