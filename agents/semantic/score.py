"""Claims of a checked answer scored by the embedding model against windows of their evidence.

A cited claim is compared with the text its valid citations resolve to (content-mismatch
citations too, as the judge sees them); an uncited claim with every document of the event, as
the cheap tier's grounding does. Its score is its best window's cosine; a claim with no
evidence scores None (monitor.semantic.windows.answer_score counts it as 0).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from agents.semantic.model import Embedder
from monitor.checks.grounding import context_texts
from monitor.judge.request import claim_text, is_evidence
from monitor.records.models import AnswerEvent, ClaimResult, Verdict
from monitor.semantic.windows import answer_score, best_window, windows

#: windows compared per claim at most (the first ones in document order); docs/semantic.md
#: gives how often the dev sets reach it
MAX_WINDOWS = 128


@dataclass
class ClaimScore:
    claim_index: int
    cosine: float | None  # None: no evidence to compare with
    window: str | None
    windows: int
    capped: bool
    seconds: float


def evidence_texts(result: ClaimResult, verdict: Verdict, event: AnswerEvent) -> list[str]:
    if not result.claim.citation_indexes:
        return list(context_texts(event))
    by_index = {c.citation.index: c for c in verdict.citations}
    texts: list[str] = []
    for i in result.claim.citation_indexes:
        cited = by_index.get(i)
        if cited is not None and is_evidence(cited) and cited.cited_text not in texts:
            texts.append(cited.cited_text or "")
    return texts


def window_pool(texts: Iterable[str], max_windows: int = MAX_WINDOWS) -> tuple[list[str], bool]:
    """The windows a claim is compared with, the one definition for `ragmon eval`
    (score_claim) and the live opinion (agents.semantic.opinion): each evidence text's
    windows, a window two texts share kept once, in order, at most `max_windows` of them;
    and whether more were left out."""
    pool: list[str] = []
    seen: set[str] = set()
    for text in texts:
        for window in windows(text):
            if window not in seen:
                seen.add(window)
                pool.append(window)
    return pool[:max_windows], len(pool) > max_windows


def best_match(embedder: Embedder, claim: str, pool: Sequence[str]) -> tuple[int, float]:
    """(index, cosine) of the window of `pool` (not empty) most like `claim`: one batch through
    the model, the claim first."""
    vectors = embedder.embed([claim, *pool])
    found = best_window([float(s) for s in vectors[1:] @ vectors[0]])
    assert found is not None  # pool is not empty
    return found


def score_claim(
    embedder: Embedder,
    result: ClaimResult,
    verdict: Verdict,
    event: AnswerEvent,
    max_windows: int = MAX_WINDOWS,
) -> ClaimScore:
    start = time.perf_counter()
    pool, capped = window_pool(evidence_texts(result, verdict, event), max_windows)
    if not pool:
        return ClaimScore(result.claim.index, None, None, 0, False, time.perf_counter() - start)
    found = best_match(embedder, claim_text(result, verdict), pool)
    return ClaimScore(
        result.claim.index,
        found[1],
        pool[found[0]],
        len(pool),
        capped,
        time.perf_counter() - start,
    )


def scored_claims(verdict: Verdict) -> Sequence[ClaimResult]:
    """The claims an answer is judged on, as `ragmon eval` picks them: cited ones, else all."""
    return [c for c in verdict.claims if c.claim.cited] or list(verdict.claims)


def cheap_support(verdict: Verdict) -> tuple[str, float] | None:
    """The weakest scored claim's cheap (verdict, score), as `ragmon eval` reports it."""
    claims = scored_claims(verdict)
    if not claims:
        return None
    weakest = min(claims, key=lambda c: c.support.score)
    return weakest.support.verdict, weakest.support.score


def score_answer(
    embedder: Embedder, event: AnswerEvent, verdict: Verdict, max_windows: int = MAX_WINDOWS
) -> tuple[float | None, list[ClaimScore]]:
    claims = [score_claim(embedder, c, verdict, event, max_windows) for c in scored_claims(verdict)]
    return answer_score([c.cosine for c in claims]), claims
