"""Answer-level scores (verdict.schema.json `scores`) from citation and claim results.

- validity_rate = valid citations / citations
- support_rate = supported / decided claims (decided: not `unverifiable`): a cited claim by its
  citations, an uncited one by the event's context (grounding.py), as the judge sees them;
  without this an answer that never cites read no support at all (docs/uncited.md)
- coverage = cited claims / claims (the citation figure)
- hallucination_rate = claims not supported by the retrieved context / claims: cited claims whose
  valid citations do not support them, claims whose citations are all invalid, and uncited
  claims that no document of the event supports (grounding.py); partially supported and
  unverifiable claims are not counted. An uncited claim that the documents support lowers
  coverage only.
- a claim that abstains ("the passages do not say", grounding.ABSTAINED) is none of these: it
  counts in `abstained` only; an answer whose every claim abstains is an abstaining answer
- claims past a cap (citations never read, or too many uncited claims to ground: reason
  `over_cap`) are undecided and left out of coverage and hallucination alike
- citation_density = characters of citation markers / answer characters (seed 000 §3.3)
- overall = seed 000 weights — span accuracy (tolerance Jaccard) 0.3, citation validity 0.3,
  answer consistency (mean support score of cited claims) 0.25, 1 − hallucination rate 0.15 —
  over the parts that exist for this answer, renormalised; `overall_parts` names them.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from monitor.config.options import CheckOptions
from monitor.output.spans import Interval, Key, KeyedSpan, span_accuracy, token_intervals
from monitor.records.models import AnswerEvent, CitationResult, ClaimResult, Scores
from monitor.records.record import record

OVER_CAP = "over_cap"  # grounding.OVER_CAP (grounding imports the support tier; this may not)

OVERALL_WEIGHTS: dict[str, float] = {
    "span_accuracy": 0.30,
    "citation_validity": 0.30,
    "answer_consistency": 0.25,
    "hallucination": 0.15,
}


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


@record
class ClaimTally:
    """An answer's claim counts, as the rates and the windowed gauges use them."""

    claims: int  # decidable claims (over_cap and abstaining ones left out)
    cited: int
    decided: int  # not unverifiable: cited ones by their citations, uncited by the context
    supported: int  # supported (cited or grounded in the context)
    hallucinated: int  # not_supported, cited or not
    uncited_grounded: int  # uncited, and the documents support them (not hallucinated)
    abstained: int = 0  # uncited claims that decline to answer

    @property
    def abstaining(self) -> bool:
        """Every claim of the answer abstains (a refusal of the whole question)."""
        return self.abstained > 0 and self.claims == 0


def is_over_cap(result: ClaimResult) -> bool:
    reasons = result.support.reasons
    return len(reasons) > 1 and reasons[1] == OVER_CAP and not result.claim.citation_indexes


def claim_tally(claims: Sequence[ClaimResult], valid_ids: AbstractSet[int]) -> ClaimTally:
    """`valid_ids`: indexes of the answer's valid citations (an invalid one never supports)."""
    n = cited = decided = supported = hallucinated = grounded = abstained = 0
    for c in claims:
        verdict = c.support.verdict
        indexes = c.claim.citation_indexes
        if indexes:
            cited += 1
            hallucinated += verdict == "not_supported" or valid_ids.isdisjoint(indexes)
        elif is_over_cap(c):
            continue
        elif verdict == "abstain":
            abstained += 1
            continue
        else:
            grounded += verdict != "not_supported"
            hallucinated += verdict == "not_supported"
        if verdict != "unverifiable":
            decided += 1
            supported += verdict == "supported"
        n += 1
    return ClaimTally(n, cited, decided, supported, hallucinated, grounded, abstained)


def _span_key(event: AnswerEvent, doc_id: str, page: int | None) -> Key:
    doc = event.document(doc_id)
    # A document without pages is indexed by its text whatever page a span names.
    return (doc_id, page if doc is not None and doc.pages is not None else None)


def _span_text(event: AnswerEvent, key: Key) -> str:
    doc = event.document(key[0])
    if doc is None:
        return ""
    if key[1] is not None and doc.pages is not None and 1 <= key[1] <= len(doc.pages):
        return doc.pages[key[1] - 1]
    return doc.full_text


def gold_span_accuracy(
    event: AnswerEvent, results: Sequence[CitationResult], tolerance: int
) -> dict[str, float] | None:
    if not event.gold_spans:
        return None
    gold: list[KeyedSpan] = [
        (_span_key(event, g.doc_id, g.page), g.start, g.end) for g in event.gold_spans
    ]
    predicted: list[KeyedSpan] = []
    for r in results:
        c = r.citation
        if (
            r.valid
            and c.format == "span"
            and r.doc_id is not None
            and c.range_start is not None
            and c.range_end is not None
        ):
            predicted.append((_span_key(event, r.doc_id, c.page), c.range_start, c.range_end))
    keys = {k for k, _, _ in gold} | {k for k, _, _ in predicted}
    tokens: dict[Key, list[Interval]] = {k: token_intervals(_span_text(event, k)) for k in keys}
    return span_accuracy(gold, predicted, tokens, tolerance)


def answer_scores(
    event: AnswerEvent,
    results: Sequence[CitationResult],
    claims: Sequence[ClaimResult],
    options: CheckOptions,
) -> Scores:
    n_cit = len(results)
    valid_ids = {r.citation.index for r in results if r.status == "valid"}
    n_valid = len(valid_ids)
    cited = [c for c in claims if c.claim.citation_indexes]
    tally = claim_tally(claims, valid_ids)
    # A multi-span bracket yields several citations sharing one marker; count its chars once.
    markers = {
        (r.citation.start, r.citation.end) for r in results if r.citation.format != "segment"
    }
    marker_chars = sum(end - start for start, end in markers)
    density = marker_chars / len(event.answer) if event.answer else None

    validity = _rate(n_valid, n_cit)
    hallucination = _rate(tally.hallucinated, tally.claims)
    span_acc = gold_span_accuracy(event, results, options.span_tolerance_chars)
    parts: dict[str, float] = {}
    if span_acc is not None:
        parts["span_accuracy"] = span_acc["tolerance_jaccard"]
    if validity is not None:
        parts["citation_validity"] = validity
    if cited:
        parts["answer_consistency"] = sum(c.support.score for c in cited) / len(cited)
    if hallucination is not None:
        parts["hallucination"] = 1.0 - hallucination
    weight = sum(OVERALL_WEIGHTS[p] for p in parts)
    overall = sum(OVERALL_WEIGHTS[p] * v for p, v in parts.items()) / weight if weight > 0 else None
    return Scores(
        validity_rate=validity,
        support_rate=_rate(tally.supported, tally.decided),
        coverage=_rate(tally.cited, tally.claims),
        hallucination_rate=hallucination,
        citation_density=density,
        overall=overall,
        overall_parts=tuple(parts),
        span_accuracy=span_acc,
    )
