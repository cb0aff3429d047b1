"""The cheap tier end to end: bytes or an event in, a Verdict out. Never raises on input."""

from __future__ import annotations

from monitor.citations.extract import extract_citations
from monitor.citations.resolve import resolve_citations
from monitor.claims import split_claims
from monitor.decode import decode_event
from monitor.models import AnswerEvent, ClaimResult, Rejection, Scores, Verdict
from monitor.options import CheckOptions
from monitor.quotes import check_quotes
from monitor.scoring import answer_scores
from monitor.support import assess_claim

_EMPTY_SCORES = Scores(
    validity_rate=None, support_rate=None, coverage=None, hallucination_rate=None
)


def rejected_verdict(rejection: Rejection) -> Verdict:
    return Verdict(
        event_id=rejection.event_id or "",
        app=rejection.app,
        citations=(),
        claims=(),
        scores=_EMPTY_SCORES,
        error=rejection.reason,
        error_detail=rejection.detail,
    )


def check_event(event: AnswerEvent, options: CheckOptions) -> Verdict:
    citations, notes = extract_citations(event, options)
    results = resolve_citations(event, citations, options)
    claims = split_claims(event, citations, options)
    results = check_quotes(event, claims, results, options)
    by_index = {r.citation.index: r for r in results}
    claim_results = tuple(
        ClaimResult(
            claim=claim,
            support=assess_claim(
                claim, [by_index[i] for i in claim.citation_indexes], event, options
            ),
        )
        for claim in claims
    )
    scores = answer_scores(event, tuple(results), claim_results, options)
    return Verdict(
        event_id=event.event_id,
        app=event.app,
        citations=tuple(results),
        claims=claim_results,
        scores=scores,
        notes=tuple(notes),
    )


def check_bytes(raw: bytes | str, options: CheckOptions) -> Verdict | Rejection:
    """Decode and check one record value; a Rejection when the event itself is unusable."""
    decoded = decode_event(raw, options)
    if isinstance(decoded, Rejection):
        return decoded
    return check_event(decoded, options)
