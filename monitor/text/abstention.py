"""Refusals and abstentions: a sentence that says the answerer or its sources lack the information.

"Unable to answer based on the given passages", "the article does not mention the price",
"je ne peux pas répondre", "没有提供相关信息" assert nothing about the world: they are not supported
and not hallucinated either, but their own outcome (`abstain`). They are found by structure,
not by a list of whole phrases: a clause whose subject is the answerer (I / we / an impersonal
"it", or no subject: "Unable to ...") with a predicate of inability about answering or finding
("cannot answer", "am unable to determine", "don't have information"), or whose subject is the
sources (passage, context, document, article, text, data, information provided, ...) with a
negated predicate of telling ("does not mention / provide / specify / say"), or a statement that
information is absent ("there is no information on", "is not mentioned in the passages", "not
enough information"). Each language gets the same three roles in its own words (English,
French, Spanish, Portuguese, Italian, German, Dutch, Chinese, Japanese).

A sentence can hold a content claim beside its refusal ("Passage 2 gives a map of flood
warnings, but it does not provide the temperature in Bucharest"): `abstention_spans` returns
the refusal clauses, `residue` the content left once they are cut; the caller checks that
residue and calls the sentence an abstention only when nothing checkable is left.

This module owns the clause cutting and the residue; the patterns per language are
monitor/text/refusal_patterns.py's, the cheap negation gate (and `may_refuse`)
monitor/text/refusal_gate.py's.
"""

from __future__ import annotations

import re

from monitor.text.refusal_gate import _worth_a_look
from monitor.text.refusal_patterns import (
    _ABSTAIN_EN_LOWER_RE,
    _ABSTAIN_LOWER_RE,
    _ABSTAIN_RE,
    _CJK_RE,
    may_be_other_language,
)

# A refusal's clause is cut out whole, not just the matched words. It ends at a sentence mark
# or a contrast ("but", "while", ...), not at a comma: what follows a comma is most often the
# list of what is missing ("does not include reservations, takeout, or WiFi"), and what
# precedes it the list's head ("The ambience, music and parking are not specified"). A clause
# that opens with a subordinator ("While the data does not mention X, it offers Y") ends at its
# first comma.
_CLAUSE_END = re.compile(
    r"[;:.!?；。：！？]|,?\s(?:but|while|whereas|although|though|so|because|however|yet)\s"
)
_CLAUSE_START = re.compile(
    r".*(?:[;:.!?；。：！？]|\s(?:but|while|whereas|although|though|so|because|however|yet)\s"
    r"|,\s(?:which|who)\s)",  # "They have a patio, which is not specified": the patio is a claim
    re.S,
)
_SUBORDINATE_RE = re.compile(
    r"\s*(?:while|whereas|although|though|since|as|because|if|when|even\s+though)\b", re.I
)
_COMMA_RE = re.compile(r"[,，、]")
# words that say nothing checkable about the world once the refusal is cut (what is left of
# "However, based on the given passages, ..." or "The passages mention X but not Y")
_META = frozenset(
    [
        "however",
        "therefore",
        "thus",
        "so",
        "hence",
        "unfortunately",
        "additionally",
        "also",
        "moreover",
        "furthermore",
        "answer",
        "question",
        "based",
        "given",
        "provided",
        "passage",
        "passages",
        "context",
        "document",
        "documents",
        "text",
        "article",
        "articles",
        "source",
        "sources",
        "information",
        "info",
        "specific",
        "specifically",
        "details",
        "detail",
        "data",
        "mention",
        "mentions",
        "mentioned",
        "provide",
        "provides",
        "note",
        "noted",
        "please",
        "sorry",
        "accurate",
        "precise",
        "exact",
        "definitive",
        "clear",
        "clearly",
        "further",
        "additional",
        "more",
        "enough",
        "sufficient",
        "only",
        "above",
        "below",
        "following",
        "other",
        "any",
        "some",
        "certain",
        "particular",
        "regarding",
        "about",
        "on",
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "for",
        "with",
        "from",
        "by",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "which",
        "what",
        "who",
        "how",
        "when",
        "where",
        "why",
        "there",
        "here",
        "i",
        "we",
        "you",
        "they",
        "he",
        "she",
        "can",
        "could",
        "may",
        "might",
        "will",
        "would",
        "should",
        "must",
        "not",
        "no",
        "but",
        "and",
        "or",
        "nor",
        "while",
        "although",
        "though",
        "because",
        "if",
        "then",
        "than",
        "also",
        "just",
        "even",
        "still",
        "yet",
        "without",
        "within",
        "into",
        "onto",
        "upon",
        "all",
        "each",
        "both",
        "either",
        "neither",
        "respect",
        "terms",
    ]
)
MIN_RESIDUE_WORDS = 3  # content words left beside a refusal that make the sentence a claim


def abstention_spans(text: str) -> list[tuple[int, int]]:
    """The refusal clauses of `text` as (start, end) offsets, each widened to its clause; empty
    when the sentence refuses nothing."""
    if not _worth_a_look(text):
        return []
    if text.isascii():
        # the case-sensitive patterns on the lowered text (refusal_patterns._ABSTAIN_LOWER_RE);
        # no Chinese or Japanese pattern matches ASCII, and most refusal candidates hold no word
        # the other languages' patterns need: then the English ones alone find the same
        low = text.lower()
        rx = _ABSTAIN_LOWER_RE if may_be_other_language(low) else _ABSTAIN_EN_LOWER_RE
        found = [(m.start(), m.end()) for m in rx.finditer(low)]
    else:
        found = [(m.start(), m.end()) for m in _ABSTAIN_RE.finditer(text)]
        found += [(m.start(), m.end()) for m in _CJK_RE.finditer(text)]
    if not found:
        return []
    spans: list[tuple[int, int]] = []
    for start, end in sorted(found):
        head = _CLAUSE_START.match(text, 0, start)
        left = head.end() if head is not None else 0
        tail = _CLAUSE_END.search(text, end)
        right = tail.start() if tail is not None else len(text)
        if _SUBORDINATE_RE.match(text, left) or _SUBORDINATE_RE.match(text, 0):
            comma = _COMMA_RE.search(text, end, right)
            if comma is not None:
                right = comma.start()
        if spans and left <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(right, spans[-1][1]))
        else:
            spans.append((left, right))
    return spans


_CONNECTORS = frozenset(
    [
        "but",
        "and",
        "while",
        "whereas",
        "although",
        "though",
        "so",
        "because",
        "however",
        "yet",
        "or",
        "which",
        "who",
    ]
)


def _trim(part: str) -> str:
    """A part left between refusal clauses, without the connectors that joined them."""
    words = part.split()
    while words and words[-1].strip(",;:").lower() in _CONNECTORS:
        words.pop()
    while words and words[0].strip(",;:").lower() in _CONNECTORS:
        words.pop(0)
    return " ".join(words).strip(" ,;:")


def residue(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with the refusal clauses (and the connectors that joined them) cut out."""
    parts, at = [], 0
    for start, end in spans:
        parts.append(text[at:start])
        at = end
    parts.append(text[at:])
    kept = (_trim(p) for p in parts)
    return " ".join(p for p in kept if p.strip(" .")).strip()


_WORD_RE = re.compile(r"[^\W\d_]{2,}")


def content_words(text: str) -> int:
    """Words of `text` that could carry a checkable statement (meta and function words aside;
    each CJK character counts a half word)."""
    n = sum(1 for w in _WORD_RE.findall(text.lower()) if w not in _META and w.isascii())
    n += sum(1 for w in _WORD_RE.findall(text) if not w.isascii()) if not text.isascii() else 0
    return n


def abstains(text: str) -> bool:
    """The whole sentence is a refusal: a refusal clause and nothing checkable beside it."""
    spans = abstention_spans(text)
    return bool(spans) and content_words(residue(text, spans)) < MIN_RESIDUE_WORDS
