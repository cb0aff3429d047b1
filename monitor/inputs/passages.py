"""A vendor citation resolved against a document or the answer: the vendor's offsets (characters,
pages, content blocks, UTF-8 bytes) become code points and v1's structural error codes.
"""

from __future__ import annotations

from monitor.config.options import CheckOptions
from monitor.inputs.jsonread import Unreadable
from monitor.records.models import Document
from monitor.records.record import record
from monitor.text.excerpt import excerpt_matches


@record
class Resolved:
    """A vendor citation resolved to a document (or not): the fields of its CitationResult."""

    doc: Document | None
    error: str | None = None
    cited_text: str | None = None
    range_start: int | None = None
    range_end: int | None = None
    page: int | None = None


def span_error(start: int, end: int, length: int) -> str | None:
    """v1's checks of a character span, in v1's order (resolve.py)."""
    if end < start:
        return "end_before_start"
    if end == start:
        return "empty_span"
    if start < 0 or end > length:
        return "span_out_of_bounds"
    return None


def whole(doc: Document | None, missing: str, quote: str | None, options: CheckOptions) -> Resolved:
    """A citation of a document as a whole; `quote` (the API's cited text) must occur in it."""
    if doc is None:
        return Resolved(None, missing)
    text = doc.full_text
    if quote is not None and not excerpt_matches(quote, text, options.excerpt_min_similarity):
        return Resolved(doc, "excerpt_mismatch", text)
    return Resolved(doc, None, text)


def chars(
    doc: Document, start: int, end: int, quote: str | None, options: CheckOptions
) -> Resolved:
    """Characters [start, end) of the document's text (Anthropic char_location)."""
    text = doc.full_text
    error = span_error(start, end, len(text))
    if error is None and end - start > options.max_span_chars:
        error = "span_too_long"
    if error is not None:
        return Resolved(doc, error, None, start, end)
    cited = text[start:end]
    if quote is not None and not excerpt_matches(quote, cited, options.excerpt_min_similarity):
        return Resolved(doc, "excerpt_mismatch", cited, start, end)
    return Resolved(doc, None, cited, start, end)


def units(
    doc: Document,
    first: int,
    stop: int,
    base: int,
    quote: str | None,
    options: CheckOptions,
) -> Resolved:
    """Pages (base 1) or content blocks (base 0) [first, stop) of a document: its `pages`, else
    its text as the only one."""
    pages = doc.pages if doc.pages is not None else (doc.full_text,)
    out_of_range = "page_out_of_range" if base == 1 else "span_out_of_bounds"
    page = first if base == 1 else None
    if stop < first:
        return Resolved(doc, "end_before_start", page=page)
    if stop == first:
        return Resolved(doc, "empty_span", page=page)
    if first < base or stop - base > len(pages):
        return Resolved(doc, out_of_range, page=page)
    cited = "\n\n".join(pages[first - base : stop - base])
    if quote is not None and not excerpt_matches(quote, cited, options.excerpt_min_similarity):
        return Resolved(doc, "excerpt_mismatch", cited, page=page)
    return Resolved(doc, None, cited, page=page)


def utf8_to_chars(text: str, offsets: list[int], where: str) -> list[int]:
    """UTF-8 byte offsets into `text` → code-point offsets. An offset inside a character is
    unreadable (the answer cannot be cut there); offsets past the end map past it (the citation
    is then span_out_of_bounds, as a character offset past the end would be)."""
    if text.isascii():
        return list(offsets)  # one byte per character
    data = text.encode("utf-8", "surrogatepass")
    out = []
    for offset in offsets:
        if offset < 0 or offset >= len(data):
            out.append(len(text) + (offset - len(data)) if offset >= len(data) else offset)
            continue
        if (data[offset] & 0xC0) == 0x80:
            raise Unreadable(
                "offset_splits_character",
                f"{where}: byte offset {offset} falls inside a UTF-8 character",
            )
        out.append(len(data[:offset].decode("utf-8", "surrogatepass")))
    return out
