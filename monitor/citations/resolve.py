"""Resolve citations against the event's documents and data; validate them structurally.

One CitationResult per Citation, same order; never raises. Check order, first failure wins:
- span:    malformed → document_not_found → page_out_of_range (only when the document has
           pages; otherwise offsets index its text and the page is ignored) → end_before_start →
           empty_span → span_out_of_bounds → span_too_long (> max_span_chars) → excerpt_mismatch
- line:    malformed → document_not_found → line_out_of_range (first line < 1) →
           end_before_start → line_out_of_range (last line past the end) → excerpt_mismatch.
           Lines are full_text.split("\\n"), 1-based inclusive; the empty string after a final
           newline is not a line.
- numeric: the document whose id is "n", else the n-th document (1-based), else
           index_out_of_range. Segment ids: a string must be a document id (document_not_found),
           an integer resolves like a numeric citation.
- json path: dict keys / list indexes into `data` (path_not_found), then, with check_values,
           value_mismatch when the value is not stated near the citation (windows.py, values.py).
`cited_text` is the full evidence (the support tier reads it; serialisation truncates); for a json
path it is a short "path = value" rendering and `value` holds the value.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from monitor.citations.values import value_stated
from monitor.citations.windows import Bounds, group_bounds, value_windows
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Citation, CitationResult, Document
from monitor.text.excerpt import excerpt_matches

_MISSING = object()


def resolve_citations(
    event: AnswerEvent, citations: Sequence[Citation], options: CheckOptions
) -> list[CitationResult]:
    bounds: dict[int, Bounds] | None = None
    # a document's lines, split once per answer: line citations often cite one file repeatedly
    lines_of: dict[str, list[str]] | None = None
    out: list[CitationResult] = []
    for c in citations:
        if c.malformed is not None:
            out.append(_bad(c, "malformed", doc_id=None))
        elif c.format == "span":
            out.append(_span(event, c, options))
        elif c.format == "line":
            if lines_of is None:
                lines_of = {}
            out.append(_line(event, c, options, lines_of))
        elif c.format == "numeric" or (c.format == "segment" and c.number is not None):
            out.append(_numbered(event, c))
        elif c.format == "segment":
            doc = event.document(c.doc_ref or "")
            out.append(_doc_result(c, doc, "document_not_found"))
        elif c.format == "json_path":
            if bounds is None:
                bounds = group_bounds(citations, len(event.answer))
            out.append(_json_path(event, c, bounds.get(c.group), options))
        else:  # pragma: no cover - every format is handled above
            out.append(_bad(c, "malformed", doc_id=None))
    return out


def _bad(c: Citation, error: str, *, doc_id: str | None, value: Any = None) -> CitationResult:
    return CitationResult(c, "invalid", error=error, doc_id=doc_id, value=value)


def _doc_result(c: Citation, doc: Document | None, error: str) -> CitationResult:
    if doc is None:
        return _bad(c, error, doc_id=None)
    return CitationResult(c, "valid", None, doc.id, doc.full_text)  # positional: cheaper


def _numbered(event: AnswerEvent, c: Citation) -> CitationResult:
    n = c.number if c.number is not None else 0
    doc = event.document(str(n))
    if doc is None and 1 <= n <= len(event.documents):
        doc = event.documents[n - 1]
    return _doc_result(c, doc, "index_out_of_range")


def _span(event: AnswerEvent, c: Citation, options: CheckOptions) -> CitationResult:
    doc = event.document(c.doc_ref or "")
    if doc is None:
        return _bad(c, "document_not_found", doc_id=None)
    if doc.pages is not None:
        page = c.page or 0
        if not 1 <= page <= len(doc.pages):
            return _bad(c, "page_out_of_range", doc_id=doc.id)
        text = doc.pages[page - 1]
    else:
        text = doc.full_text
    start, end = c.range_start or 0, c.range_end or 0
    error = None
    if end < start:
        error = "end_before_start"
    elif end == start:
        error = "empty_span"
    elif end > len(text):
        error = "span_out_of_bounds"
    elif end - start > options.max_span_chars:
        error = "span_too_long"
    if error is not None:
        return _bad(c, error, doc_id=doc.id)
    cited = text[start:end]
    if c.excerpt is not None and not excerpt_matches(
        c.excerpt, cited, options.excerpt_min_similarity
    ):
        return CitationResult(
            c, "invalid", error="excerpt_mismatch", doc_id=doc.id, cited_text=cited
        )
    return CitationResult(c, "valid", None, doc.id, cited)


def _line(
    event: AnswerEvent, c: Citation, options: CheckOptions, lines_of: dict[str, list[str]]
) -> CitationResult:
    doc = event.document(c.doc_ref or "")
    if doc is None:
        return _bad(c, "document_not_found", doc_id=None)
    lines = lines_of.get(doc.id)
    if lines is None:
        lines = doc.full_text.split("\n")
        if len(lines) > 1 and lines[-1] == "":
            lines.pop()
        lines_of[doc.id] = lines
    first, last = c.range_start or 0, c.range_end or 0
    error = None
    if first < 1:
        error = "line_out_of_range"
    elif last < first:
        error = "end_before_start"
    elif last > len(lines):
        error = "line_out_of_range"
    if error is not None:
        return _bad(c, error, doc_id=doc.id)
    cited = "\n".join(lines[first - 1 : last])
    if c.excerpt is not None and not excerpt_matches(
        c.excerpt, cited, options.excerpt_min_similarity
    ):
        return CitationResult(
            c, "invalid", error="excerpt_mismatch", doc_id=doc.id, cited_text=cited
        )
    return CitationResult(c, "valid", None, doc.id, cited)


def _lookup(data: Any, path: str) -> Any:
    node = data
    for key in path.split("."):
        if isinstance(node, dict):
            node = node.get(key, _MISSING)
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return _MISSING
        if node is _MISSING:
            return _MISSING
    return node


def _render(path: str, value: Any, limit: int) -> str:
    if type(value) is int:
        shown = str(value)  # what json.dumps writes for an int, without its encoder set-up
    else:
        try:
            shown = json.dumps(value, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            shown = repr(value)
    text = f"{path} = {shown}"
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def _json_path(
    event: AnswerEvent, c: Citation, bounds: Bounds | None, options: CheckOptions
) -> CitationResult:
    path = c.path or ""
    value = _lookup(event.data, path) if event.data is not None else _MISSING
    if value is _MISSING:
        return _bad(c, "path_not_found", doc_id=None)
    cited = _render(path, value, options.cited_text_max_chars)
    if options.check_values:
        b = bounds if bounds is not None else (c.start, c.start, c.end, c.end)
        stated = value_stated(
            value,
            value_windows(event.answer, b, options.value_window_chars),
            rel_tol=options.numeric_rel_tolerance,
            min_similarity=options.string_min_similarity,
        )
        if stated is False:
            return CitationResult(
                c, "invalid", error="value_mismatch", cited_text=cited, value=value
            )
    return CitationResult(c, "valid", cited_text=cited, value=value)
