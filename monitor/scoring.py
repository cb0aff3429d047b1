"""Answer-level scores (verdict.schema.json `scores`) from citation and claim results.

- validity_rate = valid citations / citations
- support_rate = supported / decided cited claims (decided: not `unverifiable`)
- coverage = cited claims / claims
- hallucination_rate = claims without support from a valid citation (uncited, invalid-only or
  not_supported) / claims; partially supported and unverifiable claims are not counted
- citation_density = characters of citation markers / answer characters (seed 000 §3.3)
- overall = seed 000 weights — span accuracy (tolerance Jaccard) 0.3, citation validity 0.3,
  answer consistency (mean support score of cited claims) 0.25, 1 − hallucination rate 0.15 —
  over the parts that exist for this answer, renormalised; `overall_parts` names them.
"""

from __future__ import annotations

from collections.abc import Sequence

from monitor.models import AnswerEvent, CitationResult, ClaimResult, Scores
from monitor.options import CheckOptions
from monitor.spans import Interval, Key, KeyedSpan, span_accuracy, token_intervals

OVERALL_WEIGHTS: dict[str, float] = {
    "span_accuracy": 0.30,
    "citation_validity": 0.30,
    "answer_consistency": 0.25,
    "hallucination": 0.15,
}


def _rate(num: int, den: int) -> float | None:
    return num / den if den else None


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
    valid = [r for r in results if r.status == "valid"]
    n_valid = len(valid)
    valid_ids = {r.citation.index for r in valid}
    cited = [c for c in claims if c.claim.citation_indexes]
    decided = [c for c in cited if c.support.verdict != "unverifiable"]
    supported = sum(1 for c in decided if c.support.verdict == "supported")
    hallucinated = sum(
        1
        for c in claims
        if valid_ids.isdisjoint(c.claim.citation_indexes) or c.support.verdict == "not_supported"
    )
    # A multi-span bracket yields several citations sharing one marker; count its chars once.
    markers = {
        (r.citation.start, r.citation.end) for r in results if r.citation.format != "segment"
    }
    marker_chars = sum(end - start for start, end in markers)
    density = marker_chars / len(event.answer) if event.answer else None

    validity = _rate(n_valid, n_cit)
    hallucination = _rate(hallucinated, len(claims))
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
        support_rate=_rate(supported, len(decided)),
        coverage=_rate(len(cited), len(claims)),
        hallucination_rate=hallucination,
        citation_density=density,
        overall=overall,
        overall_parts=tuple(parts),
        span_accuracy=span_acc,
    )
