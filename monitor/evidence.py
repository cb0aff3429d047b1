"""Lexical indexes of evidence texts and claims, built once and memoised.

An evidence text (a span, a line range, a whole document) is indexed once however many claims
cite it: content stems, stem bigrams, whole code tokens, numbers, and per-passage stem sets for
the best-window search. Passages are sentences (or lines of code); a window is up to
a few consecutive passages, so the search is linear in the document length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from monitor.text import (
    NumberMention,
    NumberSet,
    content_stems,
    identifiers,
    numbers,
    words,
    wordset,
)

_PASSAGE_RE = re.compile(r"[^\n.!?]*(?:[.!?]+(?=\s|$)|\n|$)")
_CODE_TOKEN_RE = re.compile(r"[A-Za-z0-9_]+")
_CAPITALISED_RE = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+[A-Za-z]*\b")


@dataclass(frozen=True, slots=True)
class EvidenceIndex:
    text: str
    lowered: str
    stems: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    code_tokens: frozenset[str]
    numbers: NumberSet
    passages: tuple[tuple[int, int], ...]
    passage_stems: tuple[frozenset[str], ...]


def _passages(text: str) -> list[tuple[int, int]]:
    out = []
    pos, n = 0, len(text)
    while pos < n:
        m = _PASSAGE_RE.match(text, pos)
        end = m.end() if m and m.end() > pos else n
        if text[pos:end].strip():
            out.append((pos, end))
        pos = end
    return out


@lru_cache(maxsize=1024)
def index_evidence(text: str) -> EvidenceIndex:
    tokens = words(text)
    stems = content_stems(tokens)
    passages = _passages(text)
    return EvidenceIndex(
        text=text,
        lowered=text.lower(),
        stems=frozenset(stems),
        bigrams=frozenset(pairwise(stems)),
        code_tokens=frozenset(t.lower() for t in _CODE_TOKEN_RE.findall(text)),
        numbers=NumberSet.of_text(text),
        passages=tuple(passages),
        passage_stems=tuple(frozenset(content_stems(words(text[s:e]))) for s, e in passages),
    )


@dataclass(frozen=True, slots=True)
class ClaimTerms:
    text: str  # citation markers removed
    terms: dict[str, float]  # content stem → weight
    bigrams: frozenset[tuple[str, str]]
    identifiers: tuple[str, ...]
    numbers: tuple[NumberMention, ...]


# Words that name code constructs rather than assert anything about them (seed 001 §4.1).
GENERIC_CODE_WORDS = wordset(
    "function method class variable module file code line lines value input output "
    "parameter argument return returns"
)


def claim_terms(text: str) -> ClaimTerms:
    """Weighted content terms of a claim: names the reader could check count double."""
    tokens = words(text)
    stems = content_stems(tokens)
    proper = {t.lower() for t in _CAPITALISED_RE.findall(text.strip())}
    names = identifiers(text)
    name_parts = {w for name in names for w in words(name)}
    terms: dict[str, float] = {}
    for token in tokens:
        if token in proper or token in name_parts:
            weight = 2.0
        elif token.isdecimal():
            continue  # numbers are checked exactly, not as terms
        else:
            weight = 1.0
        key = _stem_of(token)
        if key is None or token in GENERIC_CODE_WORDS:
            continue
        terms[key] = max(terms.get(key, 0.0), weight)
    return ClaimTerms(
        text=text,
        terms=terms,
        bigrams=frozenset(pairwise(stems)),
        identifiers=tuple(names),
        numbers=tuple(numbers(text)),
    )


def _stem_of(token: str) -> str | None:
    stems = content_stems([token])
    return stems[0] if stems else None
