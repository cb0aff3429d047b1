"""Plain data passed between the checking stages. Standard library only.

Offsets are 0-based code-point offsets into Python `str`, end exclusive; lines and pages are
1-based (answer-event.schema.json).
"""

from __future__ import annotations

from dataclasses import field
from typing import Any, Literal

from monitor.records.record import record

CitationFormat = Literal["span", "line", "numeric", "json_path", "segment"]
CitationStatus = Literal["valid", "invalid"]
# abstain: the claim declines to answer ("the passages do not say"): neither support nor
# hallucination (monitor/text/abstention.py)
ClaimVerdict = Literal[
    "supported", "partially_supported", "not_supported", "unverifiable", "abstain"
]
ClaimKind = Literal["extractive", "abstractive", "unknown"]
Confidence = Literal["high", "medium", "low"]
Tier = Literal["rules", "lexical", "judge"]
GoldLabel = Literal["supported", "partially_supported", "not_supported"]

# Structural error codes of verdict.schema.json, in one place so tests can enumerate them.
CITATION_ERRORS: tuple[str, ...] = (
    "document_not_found",
    "page_out_of_range",
    "span_out_of_bounds",
    "empty_span",
    "span_too_long",
    "end_before_start",
    "line_out_of_range",
    "index_out_of_range",
    "path_not_found",
    "excerpt_mismatch",
    "value_mismatch",
    "malformed",
    "too_many_citations",
)

# Why an event was rejected before any check ran (the verdict's `error`, the DLQ reason).
REJECTION_REASONS: tuple[str, ...] = (
    "empty",
    "too_large",
    "invalid_utf8",
    "invalid_json",
    "not_an_object",
    "schema_violation",
    # envelopes (answer-envelope.schema.json, monitor/inputs/envelope.py)
    "unknown_format",  # a `format` that is not one of the envelope's names
    "invalid_response",  # `response` missing, not an object, or not shaped as its format says
    "offset_splits_character",  # a UTF-8 byte offset (Gemini) inside a character
)


@record
class Document:
    id: str
    text: str | None = None
    pages: tuple[str, ...] | None = None
    title: str | None = None
    url: str | None = None

    @property
    def full_text(self) -> str:
        """The whole document: `text`, else the pages joined by blank lines."""
        if self.text is not None:
            return self.text
        if self.pages is not None:
            return "\n\n".join(self.pages)
        return ""


@record
class Segment:
    text: str
    citations: tuple[str | int, ...] = ()


@record
class GoldSpan:
    doc_id: str
    start: int
    end: int
    page: int | None = None


@record
class GoldClaim:
    """A per-claim gold label of a canary (`gold.claims`): by index in the checked answer or by
    text; `abstain` is "can't tell"."""

    label: str
    index: int | None = None
    text: str | None = None


@record
class AnswerEvent:
    event_id: str
    answer: str
    app: str | None = None
    timestamp: str | None = None
    tenant: str | None = None
    model: str | None = None
    question: str | None = None
    segments: tuple[Segment, ...] | None = None
    documents: tuple[Document, ...] = ()
    data: dict[str, Any] | None = None
    gold_answer: str | None = None
    gold_spans: tuple[GoldSpan, ...] | None = None
    gold_label: GoldLabel | None = None
    gold_claims: tuple[GoldClaim, ...] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    adapted: Adapted | None = None  # read from a vendor API's response (monitor/inputs)

    def document(self, doc_id: str) -> Document | None:
        for doc in self.documents:
            if doc.id == doc_id:
                return doc
        return None


@record
class Rejection:
    """An event that could not be decoded or validated. `reason` is one of REJECTION_REASONS."""

    reason: str
    detail: str
    event_id: str | None = None
    app: str | None = None


@record
class Citation:
    """One citation as written. A multi-span or `[1, 2]` bracket yields several Citations
    sharing `raw`, `start` and `end`; `group` ties adjacent brackets (cross-references) together.
    """

    index: int
    raw: str
    format: CitationFormat
    # position of `raw` in the answer (segment citations: of their segment text; a vendor's
    # citation: monitor/inputs/located.py says where each kind sits)
    start: int
    end: int
    group: int = 0
    doc_ref: str | None = None  # span/line: file as written; segment: id as given
    page: int | None = None  # span
    range_start: int | None = None  # span: char offset; line: first line
    range_end: int | None = None  # span: exclusive end; line: last line (inclusive)
    number: int | None = None  # numeric and integer segment citations
    path: str | None = None  # json_path
    excerpt: str | None = None  # extended span format
    segment: int | None = None  # index of the segment that carries a segment citation
    malformed: str | None = None  # why it is malformed, when it is


@record
class CitationResult:
    citation: Citation
    status: CitationStatus
    error: str | None = None
    doc_id: str | None = None
    cited_text: str | None = None
    value: Any = None  # the resolved JSON value of a json_path citation

    @property
    def valid(self) -> bool:
        return self.status == "valid"


@record
class Claim:
    index: int
    text: str  # as written, citations included
    start: int
    end: int
    citation_indexes: tuple[int, ...] = ()
    kind: ClaimKind = "unknown"

    @property
    def cited(self) -> bool:
        return bool(self.citation_indexes)


@record
class Adapted:
    """What an input adapter read from a vendor API's response (answer-envelope.schema.json):
    the citations as the API located them, already resolved (the vendor's offsets converted to
    code points), and the claims they attach to, so extraction and resolution are skipped.
    `claims` holds the API's cited ranges (always claims) and the uncited sentences of the rest
    of the answer (candidates: monitor/checks/given.py drops those v1 would not call a claim)."""

    format: str  # the envelope's `format`
    citations: tuple[CitationResult, ...] = ()
    claims: tuple[Claim, ...] = ()
    notes: tuple[str, ...] = ()


@record
class Support:
    """What a tier concluded about one claim against its evidence."""

    verdict: ClaimVerdict
    score: float
    confidence: Confidence
    tier: Tier
    reasons: tuple[str, ...] = ()


@record
class ClaimResult:
    claim: Claim
    support: Support


@record
class Scores:
    validity_rate: float | None
    support_rate: float | None
    coverage: float | None
    hallucination_rate: float | None
    citation_density: float | None = None
    overall: float | None = None
    overall_parts: tuple[str, ...] = ()
    span_accuracy: dict[str, float] | None = None


@record
class Verdict:
    event_id: str
    app: str | None
    citations: tuple[CitationResult, ...]
    claims: tuple[ClaimResult, ...]
    scores: Scores
    error: str | None = None
    error_detail: str | None = None
    sampled_for_judge: bool = False
    judge: dict[str, Any] | None = None
    notes: tuple[str, ...] = ()
