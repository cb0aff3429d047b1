"""What every vendor reader shares: an answer assembled from the response's text parts, vendor
citations resolved to the envelope's documents, and claims located in the answer.

A vendor citation is anchored in the answer in one of three ways:
- `range`: the API names the answer text it supports (an Anthropic text block, an OpenAI or
  Cohere start/end, a Gemini grounding segment): that text is a claim.
- `marker`: the range holds a rendered reference (OpenAI's `([site](url))` links), as `[n]`
  does in a v1 answer: the claim is the sentence around it, the marker is cut from it by the
  support tier.
- `point`: one position (OpenAI `file_citation.index`): the sentence that ends there.
The rest of the answer (its sentences that overlap no cited range) becomes uncited claim
candidates, checked against all documents as v1's uncited sentences are.

Citations become v1 citation records: `span` when they locate a passage inside one document
(Anthropic char, page and block locations; zero-width at the end of their claim, since nothing
is written in the answer), `segment` when they cite a document as a whole for an answer range
(`start`/`end` are the claim's, as for v1 segments), `numeric` for a marker. `raw` is the
API's citation object as compact JSON without its long texts (a marker: the marker as written),
`excerpt` the API's own cited text.
"""

from __future__ import annotations

import bisect
from typing import Literal

from monitor.config.options import CheckOptions
from monitor.inputs.passages import Resolved, span_error
from monitor.records.models import (
    Adapted,
    AnswerEvent,
    Citation,
    CitationFormat,
    CitationResult,
    Claim,
    Document,
)
from monitor.records.record import record
from monitor.text.excerpt import excerpt_matches
from monitor.text.sentences import split_sentences

AnchorKind = Literal["range", "marker", "point"]


@record
class _Pending:
    kind: AnchorKind
    start: int  # in the answer; invalid ranges are not attached to a claim
    end: int
    raw: str
    fmt: CitationFormat
    resolved: Resolved
    excerpt: str | None
    attached: bool


class Builder:
    """Collects an answer's text parts, its documents and its citations; `finish` makes the
    event. The readers add documents from the response after the envelope's (ids kept unique).
    A plain class (no dataclass machinery): the compiled core builds one per envelope."""

    def __init__(self, fmt: str, documents: list[Document], options: CheckOptions) -> None:
        self.fmt = fmt
        self.documents = documents
        self.options = options
        self.parts: list[str] = []
        self.length = 0
        self.pending: list[_Pending] = []
        self.notes: list[str] = []
        self.model: str | None = None
        self.question: str | None = None
        self.inline = False  # the answer's own `[n]` markers are its citations (a v1 event)
        self.capped = False
        self._joined: str | None = None
        self._ids: dict[str, Document] = {}
        self._urls: dict[str, Document] = {}
        for doc in documents:
            self._register(doc)

    # --- the answer --------------------------------------------------------------------------
    def add_text(self, text: str) -> int:
        """Append a text part; returns its offset in the answer."""
        at = self.length
        self.parts.append(text)
        self.length += len(text)
        self._joined = None
        return at

    def answer(self) -> str:
        if self._joined is None:
            self._joined = "".join(self.parts)
        return self._joined

    # --- documents -----------------------------------------------------------------------------
    def _register(self, doc: Document) -> None:
        self._ids.setdefault(doc.id, doc)
        if doc.url:
            self._urls.setdefault(doc.url, doc)

    def take_documents(self) -> list[Document]:
        """The documents so far, removed (a reader that puts the response's own first)."""
        taken = list(self.documents)
        self.documents.clear()
        self._ids.clear()
        self._urls.clear()
        return taken

    def knows(self, doc_id: str) -> bool:
        return doc_id in self._ids

    def add_document(self, doc: Document) -> Document:
        """Add a document the response carries; a taken id gets `#n` appended."""
        if doc.id in self._ids:
            n = 2
            while f"{doc.id}#{n}" in self._ids:
                n += 1
            doc = Document(f"{doc.id}#{n}", doc.text, doc.pages, doc.title, doc.url)
        self.documents.append(doc)
        self._register(doc)
        return doc

    def by_id(self, *names: str | None) -> Document | None:
        """The first document whose id equals one of `names` (then whose url does)."""
        for name in names:
            if name and name in self._ids:
                return self._ids[name]
        for name in names:
            if name and name in self._urls:
                return self._urls[name]
        return None

    # --- citations -----------------------------------------------------------------------------
    def cite(
        self,
        kind: AnchorKind,
        start: int,
        end: int,
        raw: str,
        fmt: CitationFormat,
        resolved: Resolved,
        *,
        excerpt: str | None = None,
        answer_quote: str | None = None,
        within: tuple[int, int] | None = None,
    ) -> None:
        """One vendor citation anchored at [start, end) of the answer (a point: start == end).
        `excerpt` is the API's cited text of the document (checked at resolution); an
        `answer_quote` is the API's copy of the answer range (Cohere `text`, Gemini
        `segment.text`), checked against that range here. `within`: the text part the API's
        offsets index (default: the whole answer). Past RAGMON_MAX_CITATIONS citations the
        rest are dropped with v1's note (the claims after the last one kept are undecided)."""
        if len(self.pending) >= self.options.max_citations:
            if not self.capped:
                self.capped = True
                self.notes.append(f"too_many_citations: capped at {self.options.max_citations}")
            return
        error = resolved.error
        attached = True
        lo, hi = within if within is not None else (0, self.length)
        if kind != "point":
            range_error = span_error(start - lo, end - lo, hi - lo)
            if range_error is not None:
                attached = False
                error = error or range_error
        elif not lo <= start <= hi:
            attached = False
            error = error or "span_out_of_bounds"
        if (
            error is None
            and answer_quote is not None
            and not excerpt_matches(
                answer_quote, self.answer()[start:end], self.options.excerpt_min_similarity
            )
        ):
            error = "excerpt_mismatch"
        if error != resolved.error:
            resolved = Resolved(
                resolved.doc,
                error,
                resolved.cited_text,
                resolved.range_start,
                resolved.range_end,
                resolved.page,
            )
        self.pending.append(
            _Pending(kind, start, end, raw, fmt, resolved, excerpt or answer_quote, attached)
        )

    # --- the event -----------------------------------------------------------------------------
    def finish(self, base: AnswerEvent) -> AnswerEvent:
        answer = self.answer()
        claims, slot_of = (
            _locate(answer, self.pending) if self.pending or not self.inline else ([], {})
        )
        results = [_result(i, p, slot_of.get(i), claims) for i, p in enumerate(self.pending)]
        by_slot: dict[int, list[int]] = {}
        for i, slot in slot_of.items():
            by_slot.setdefault(slot, []).append(i)
        out_claims = tuple(
            Claim(n, answer[s:e], s, e, tuple(sorted(by_slot.get(n, ()))))
            for n, (s, e) in enumerate(claims)
        )
        adapted: Adapted | None = Adapted(self.fmt, tuple(results), out_claims, tuple(self.notes))
        if self.inline and not self.pending:
            adapted = None  # extraction, resolution and claims as for any v1 answer
        return AnswerEvent(
            event_id=base.event_id,
            answer=answer,
            app=base.app,
            timestamp=base.timestamp,
            tenant=base.tenant,
            model=base.model or self.model,
            question=base.question if base.question is not None else self.question,
            documents=tuple(self.documents),
            data=base.data,
            metadata=base.metadata,
            adapted=adapted,
        )


def _locate(answer: str, pending: list[_Pending]) -> tuple[list[tuple[int, int]], dict[int, int]]:
    """Claim ranges in answer order, and the claim each attached citation belongs to."""
    ranges = sorted(
        {_trim(answer, p.start, p.end) for p in pending if p.attached and p.kind == "range"}
    )
    markers = [(p.start, p.end) for p in pending if p.attached and p.kind == "marker"]
    sentences = [(s.start, s.end) for s in split_sentences(answer, markers) if s.kind == "text"]
    starts = [s for s, _ in sentences]
    range_starts = [r[0] for r in ranges]
    home: dict[int, tuple[int, int]] = {}
    found: set[tuple[int, int]] = set()
    for i, p in enumerate(pending):
        if not p.attached:
            continue
        if p.kind == "range":
            home[i] = _trim(answer, p.start, p.end)
            continue
        pos = p.start if p.kind == "marker" else max(0, p.start - 1)  # a point follows its text
        inside = _innermost(ranges, range_starts, pos)
        if inside is not None:
            home[i] = inside
            continue
        k = bisect.bisect_right(starts, pos) - 1  # the sentence holding pos, else the one before
        if k >= 0:
            home[i] = sentences[k]
            found.add(sentences[k])
    taken = _union(sorted(set(ranges) | found))
    taken_starts = [a for a, _ in taken]
    rest = [s for s in sentences if not _overlaps(taken, taken_starts, s)]
    claims = sorted(set(ranges) | found | set(rest))
    number = {r: n for n, r in enumerate(claims)}
    return claims, {i: number[r] for i, r in home.items()}


def _trim(answer: str, start: int, end: int) -> tuple[int, int]:
    """A cited range without the white space at its ends (Anthropic blocks keep the spaces
    between them), as v1's sentences are; a range of white space only stays as it is."""
    s, e = start, end
    while s < e and answer[s].isspace():
        s += 1
    while e > s and answer[e - 1].isspace():
        e -= 1
    return (s, e) if s < e else (start, end)


def _innermost(
    ranges: list[tuple[int, int]], starts: list[int], pos: int
) -> tuple[int, int] | None:
    """The shortest cited range holding `pos`."""
    best = None
    for r in ranges[: bisect.bisect_right(starts, pos)]:
        if r[0] <= pos < r[1] and (best is None or r[1] - r[0] < best[1] - best[0]):
            best = r
    return best


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in spans:
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _overlaps(union: list[tuple[int, int]], starts: list[int], span: tuple[int, int]) -> bool:
    """`span` overlaps one of the disjoint sorted `union` spans."""
    k = bisect.bisect_left(starts, span[1]) - 1  # the last span starting before span's end
    return k >= 0 and union[k][1] > span[0]


def _result(
    index: int, p: _Pending, slot: int | None, claims: list[tuple[int, int]]
) -> CitationResult:
    r = p.resolved
    if slot is None:  # not attached: where the API put it, clamped to the answer
        start = end = max(0, p.start)
    elif p.fmt == "segment":
        start, end = claims[slot]
    elif p.fmt == "numeric":
        start, end = p.start, p.end
    else:  # a span: zero-width after its claim, so no claim text is read as a marker
        start = end = claims[slot][1]
    group = -1 if slot is None else slot
    doc_id = None if r.doc is None else r.doc.id
    segment = slot if p.fmt == "segment" else None
    # positional (index, raw, format, start, end, group, doc_ref, page, range_start, range_end,
    # number, path, excerpt, segment): keyword arguments cost the generated __init__ more
    citation = Citation(
        index,
        p.raw,
        p.fmt,
        start,
        end,
        group,
        doc_id,
        r.page,
        r.range_start,
        r.range_end,
        None,
        None,
        p.excerpt,
        segment,
    )
    if r.error is None:
        return CitationResult(citation, "valid", None, doc_id, r.cited_text)
    return CitationResult(citation, "invalid", r.error, doc_id, r.cited_text)
