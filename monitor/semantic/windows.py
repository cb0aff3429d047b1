"""The arithmetic of the semantic signal: evidence windows, cosine, and how claims aggregate.

A claim is compared with every window of its cited text (a few consecutive sentences, capped
in words, so a long page is not averaged into one vague vector) and keeps its best cosine; an
answer keeps its weakest claim, as `ragmon eval` does with the cheap score.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from monitor.text.sentences import split_sentences

WINDOW_SENTENCES = 3
WINDOW_WORDS = 90


def _units(text: str, max_words: int) -> list[list[str]]:
    """Sentences as word lists; a sentence longer than `max_words` cut into pieces of it."""
    units: list[list[str]] = []
    for s in split_sentences(text):
        words = text[s.start : s.end].split()
        for i in range(0, len(words), max_words):
            units.append(words[i : i + max_words])
    return units


def windows(
    text: str, sentences: int = WINDOW_SENTENCES, max_words: int = WINDOW_WORDS
) -> list[str]:
    """One window per starting sentence: it and up to `sentences - 1` more while the window
    stays within `max_words` words. Identical windows are kept once, in document order."""
    if sentences < 1 or max_words < 1:
        raise ValueError("sentences and max_words must be positive")
    units = _units(text, max_words)
    out: list[str] = []
    seen: set[str] = set()
    for i, first in enumerate(units):
        words = list(first)
        for nxt in units[i + 1 : i + sentences]:
            if len(words) + len(nxt) > max_words:
                break
            words.extend(nxt)
        window = " ".join(words)
        if window not in seen:
            seen.add(window)
            out.append(window)
    return out


def cosine(u: Sequence[float], v: Sequence[float]) -> float:
    """u·v / (|u| |v|); 0.0 when either vector is zero (no direction to compare)."""
    if len(u) != len(v):
        raise ValueError(f"length mismatch: {len(u)} != {len(v)}")
    # hypot scales before squaring: a sum of squares of tiny components underflows to a
    # subnormal whose square root has lost its precision (2.7e-162 against 1.0 gave 1.2)
    nu = math.hypot(*u)
    nv = math.hypot(*v)
    if nu == 0.0 or nv == 0.0:
        return 0.0
    # each vector scaled to unit length first, so the products cannot underflow either; the
    # last rounding can still step past ±1
    dot = math.fsum((a / nu) * (b / nv) for a, b in zip(u, v, strict=True))
    return max(-1.0, min(1.0, dot))


def best_window(similarities: Sequence[float]) -> tuple[int, float] | None:
    """(index, cosine) of the most similar window, the first on a tie; None without windows."""
    if not similarities:
        return None
    best = max(range(len(similarities)), key=lambda i: (similarities[i], -i))
    return best, similarities[best]


def answer_score(claim_scores: Sequence[float | None]) -> float | None:
    """The weakest claim's best cosine; a claim without evidence (None) scores 0.0 because
    nothing supports it; None when the answer has no claim at all."""
    if not claim_scores:
        return None
    return min(0.0 if s is None else s for s in claim_scores)
