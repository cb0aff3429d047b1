"""Why a citation is invalid, in numbers from the answer's own documents, for the audit record.

The error code says what kind of failure (`span_out_of_bounds`); the reader of a page needs the
particulars, which only the event holds: "span 372-453 past the end of page 1 of report.pdf
(327 characters)". Written into the audit record when the answer is checked, since the page
later only has the record. Numbers and document ids only: no document text.

Pure: standard library only.
"""

from __future__ import annotations

from monitor.records.models import AnswerEvent, CitationResult, Document


def _pages(doc: Document) -> str:
    return f"{len(doc.pages)} pages" if doc.pages is not None else "no pages"


def _span_text(doc: Document, page: int | None) -> tuple[str, str]:
    """The text a span's offsets index, and how to name it."""
    if doc.pages is not None and page is not None and 1 <= page <= len(doc.pages):
        return doc.pages[page - 1], f"page {page} of {doc.id}"
    return doc.full_text, doc.id


def why_invalid(result: CitationResult, event: AnswerEvent | None) -> str | None:
    """One line on why `result` is invalid, or None when valid or nothing more is known."""
    if result.status != "invalid" or result.error is None:
        return None
    c, error = result.citation, result.error
    if error == "malformed":
        return f"malformed: {c.malformed}" if c.malformed else None
    ids = [d.id for d in event.documents] if event is not None else []
    listed = ", ".join(ids[:10]) + (" …" if len(ids) > 10 else "")
    if error == "document_not_found":
        ref = c.doc_ref if c.doc_ref is not None else c.raw
        return f"no document {ref!r} among the answer's {len(ids)} ({listed or 'none'})"
    if error == "index_out_of_range":
        return f"document number {c.number} of {len(ids)} documents"
    if event is None:
        return None
    doc = event.document(c.doc_ref or "")
    if doc is None:
        return None
    start, end = c.range_start, c.range_end
    if error == "page_out_of_range":
        return f"page {c.page} of {doc.id}, which has {_pages(doc)}"
    if error in ("span_out_of_bounds", "empty_span", "span_too_long") or (
        error == "end_before_start" and c.format == "span"
    ):
        text, where = _span_text(doc, c.page)
        if error == "span_out_of_bounds":
            return f"span {start}-{end} past the end of {where} ({len(text)} characters)"
        if error == "span_too_long":
            return f"span {start}-{end} is {(end or 0) - (start or 0)} characters long"
        return f"span {start}-{end} of {where} is empty or reversed"
    if error in ("line_out_of_range", "end_before_start"):
        lines = doc.full_text.split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()
        return f"lines {start}-{end} of {doc.id}, which has {len(lines)} lines"
    return None
