"""The cheap tier end to end: bytes or an event in, a Verdict out. Never raises on input."""

from __future__ import annotations

from monitor.checks.claims import split_claims
from monitor.checks.contrast_sentences import clear_sentence_cache
from monitor.checks.data_context import clear_data_cache
from monitor.checks.evidence import clear_index_cache
from monitor.checks.given import given_claims
from monitor.checks.grounding import UNDECIDED, Context, context_of, ground_uncited
from monitor.checks.quotes import check_quotes
from monitor.checks.scoring import answer_scores
from monitor.checks.support import assess_claim
from monitor.citations.extract import extract_citations
from monitor.citations.resolve import resolve_citations
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.records.models import AnswerEvent, Citation, ClaimResult, Rejection, Scores, Verdict
from monitor.text.units import clear_quantity_cache

_EMPTY_SCORES = Scores(
    validity_rate=None, support_rate=None, coverage=None, hallucination_rate=None
)


def clear_caches() -> None:
    """Forget what the checks memoise per evidence text or data value (indexes, sentences, data
    contexts, figures): a benchmark's round then starts cold, as answers over new documents do.
    The word -> stem memo stays: a stream's vocabulary is warm after its first answers."""
    clear_index_cache()
    clear_data_cache()
    clear_sentence_cache()
    clear_quantity_cache()


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


def _cap_position(citations: list[Citation], notes: list[str]) -> int | None:
    """Where the answer's citations stopped being read (None: every one was read)."""
    if not any(n.startswith("too_many_citations") for n in notes):
        return None
    return max((c.end for c in citations), default=0)


def check_event(event: AnswerEvent, options: CheckOptions) -> Verdict:
    if event.adapted is not None:  # a vendor response: its citations came resolved
        results = list(event.adapted.citations)
        citations = [r.citation for r in results]
        notes = list(event.adapted.notes)
        claims = given_claims(event, options)
    else:
        citations, notes = extract_citations(event, options)
        results = resolve_citations(event, citations, options)
        claims = split_claims(event, citations, options)
    results = check_quotes(event, claims, results, options)
    by_index = {r.citation.index: r for r in results}
    cap_at = _cap_position(citations, notes)
    context: Context | None = None  # built for the first uncited claim
    grounded = 0
    claim_results = []
    for claim in claims:
        if claim.citation_indexes:
            support = assess_claim(
                claim, [by_index[i] for i in claim.citation_indexes], event, options
            )
        elif (cap_at is not None and claim.start >= cap_at) or (
            grounded >= options.max_grounded_claims
        ):
            support = UNDECIDED  # its citations were never read, or too many to ground
        else:
            if context is None:
                context = context_of(event)
            grounded += 1
            support = ground_uncited(claim, context, options)
        claim_results.append(ClaimResult(claim, support))
    scores = answer_scores(event, tuple(results), claim_results, options)
    return Verdict(
        event_id=event.event_id,
        app=event.app,
        citations=tuple(results),
        claims=tuple(claim_results),
        scores=scores,
        notes=tuple(notes),
    )


def check_bytes(raw: bytes | str, options: CheckOptions) -> Verdict | Rejection:
    """Decode and check one record value; a Rejection when the event itself is unusable."""
    decoded = decode_event(raw, options)
    if isinstance(decoded, Rejection):
        return decoded
    return check_event(decoded, options)
