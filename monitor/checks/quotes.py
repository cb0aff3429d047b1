"""Fabricated quotations: a quoted passage must be found in the evidence it is attributed to.

A claim that quotes ("..." or “...”, at least 3 words) and cites documents asserts that those
documents contain the quoted words. When no valid cited evidence of the claim contains the quote
(rapidfuzz partial_ratio below `quote_min_similarity`), the claim's valid citations become
invalid with `excerpt_mismatch`: the attribution is false, whatever else the claim says.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from rapidfuzz import fuzz

from monitor.config.options import CheckOptions
from monitor.records.models import AnswerEvent, CitationResult, Claim
from monitor.text.words import quotations, remove_spans

_NON_WORD_RE = re.compile(r"[^\w]+")
_ELLIPSIS_RE = re.compile(r"\[\s*(?:\.\s*){2,}\]|\.{3,}|…|\[\s*…\s*\]")


def normalise(text: str) -> str:
    """Case, punctuation and spacing do not make a quotation wrong; only the words count."""
    return _NON_WORD_RE.sub(" ", text.lower()).strip()


def quote_found(quote: str, evidence: str, min_similarity: float) -> bool:
    """Every part of the quote (split at elisions: "[...]", "...", "…") is in the evidence."""
    haystack = normalise(evidence)
    parts = [normalise(p) for p in _ELLIPSIS_RE.split(quote)]
    parts = [p for p in parts if p]
    if not parts or not haystack:
        return False
    return all(_part_found(p, haystack, min_similarity) for p in parts)


def _part_found(needle: str, haystack: str, min_similarity: float) -> bool:
    if needle in haystack:
        return True
    if len(haystack) < len(needle) * min_similarity:
        return False  # evidence too short to contain the quote, however similar
    return fuzz.partial_ratio(needle, haystack, score_cutoff=min_similarity * 100) > 0


def _evidence_text(result: CitationResult) -> str | None:
    if result.cited_text is not None:
        return result.cited_text
    if isinstance(result.value, str):
        return result.value
    return None


def check_quotes(
    event: AnswerEvent,
    claims: Sequence[Claim],
    results: Sequence[CitationResult],
    options: CheckOptions,
) -> list[CitationResult]:
    """`results` in the same order, with citations of fabricated quotations made invalid."""
    failed: set[int] = set()
    by_index: dict[int, CitationResult] = {}
    for claim in claims:
        if '"' not in claim.text and "“" not in claim.text:
            continue  # no quotation: the common case, decided before any look-up
        if not by_index:
            by_index = {r.citation.index: r for r in results}
        cited = [by_index[i] for i in claim.citation_indexes if i in by_index]
        if not cited:
            continue
        # the extended format carries its own quoted excerpt, checked at resolution
        markers = [(r.citation.start, r.citation.end) for r in cited if r.citation.segment is None]
        quotes = quotations(remove_spans(claim.text, claim.start, markers))
        valid = [r for r in cited if r.valid]
        if not quotes or not valid:
            continue  # nothing quoted, or nothing valid left to falsify
        texts = [t for t in map(_evidence_text, valid) if t]
        for quote in quotes:
            if not any(quote_found(quote, t, options.quote_min_similarity) for t in texts):
                failed.update(r.citation.index for r in valid)
                break
    if not failed:
        return list(results)
    return [
        replace(r, status="invalid", error="excerpt_mismatch") if r.citation.index in failed else r
        for r in results
    ]
