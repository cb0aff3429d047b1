"""Hand-built events for the citation tests."""

from __future__ import annotations

from typing import Any

from monitor.citations import extract_citations, resolve_citations
from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, Citation, CitationResult, Document, Segment

PAGES = ("0123456789abcdef", "The company achieved $10M in total revenue for Q1.")
CODE = "def login(user):\n    check(user)\n    return token\n"
DOCS = (
    Document(id="r.pdf", pages=PAGES),
    Document(id="src/auth.py", text=CODE),
    Document(id="notes.txt", text="plain text without pages"),
)


def event(
    answer: str,
    *,
    documents: tuple[Document, ...] = DOCS,
    data: dict[str, Any] | None = None,
    segments: tuple[Segment, ...] | None = None,
) -> AnswerEvent:
    return AnswerEvent(
        event_id="t", answer=answer, documents=documents, data=data, segments=segments
    )


def cites(answer: str, options: CheckOptions | None = None, **kw: Any) -> list[Citation]:
    return extract_citations(event(answer, **kw), options or CheckOptions())[0]


def raws(answer: str, **kw: Any) -> list[str]:
    return [c.raw for c in cites(answer, **kw)]


def check(answer: str, options: CheckOptions | None = None, **kw: Any) -> list[CitationResult]:
    opts = options or CheckOptions()
    ev = event(answer, **kw)
    found, _ = extract_citations(ev, opts)
    return resolve_citations(ev, found, opts)


def errors(answer: str, options: CheckOptions | None = None, **kw: Any) -> list[str | None]:
    return [r.error for r in check(answer, options, **kw)]
