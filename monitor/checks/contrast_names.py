"""Names for monitor/checks/contrast.py's entity check: a name of the claim swapped for another
("Paris is the capital of Germany"), or two names in the other order ("YouTube acquired Google").

This module owns the name patterns (`initial_name` for a sentence's first word), the look-up of
a missing first name in the evidence, and the two swap checks `_entity_swap` and `_role_swap`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from monitor.checks.contrast_sentences import _Sentence
from monitor.checks.evidence import index_evidence
from monitor.text.words import STEMS, STOPWORDS, wordset

# a capitalised word after the first (the first may just open the sentence)
_NAME_RE = re.compile(r"(?<=[\s(\"“'])([A-Z][a-z]+(?:[-'][A-Za-z]+)*)")


_CALENDAR = wordset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday"
)


def _names(text: str) -> set[str]:
    """Capitalised words after the first; month and day names are dates, not entities."""
    return {m.group(1).lower() for m in _NAME_RE.finditer(text)} - _CALENDAR


def initial_name(text: str) -> str | None:
    """The first word, lower-cased, when it may be a name: capitalised letters, not a function
    word ("Paris is ...", not "The ..."); the other names are the capitalised words after it."""
    head = text.lstrip(" \t\"“'(*_").split(None, 1)
    if not head:
        return None
    word = head[0].rstrip(".,;:!?\"”')*_")
    if len(word) < 2 or not word.isalpha() or not word[0].isupper():
        return None
    low = word.lower()
    return None if low in STOPWORDS or low in _CALENDAR else low


def _all_names(text: str) -> set[str]:
    names = _names(text)
    first = initial_name(text)
    if first is not None:
        names.add(first)
    return names


def _initial_missing(claim: str, texts: Sequence[str]) -> bool:
    """The claim's first word may be a name and no evidence text has its stem."""
    first = initial_name(claim)
    if first is None:
        return False
    key = frozenset((STEMS[first],))
    return not any(index_evidence(t).stems_found(key) for t in texts)


def _entity_swap(
    claim: str, claim_tokens: list[str], sentence: _Sentence, lowered: str
) -> str | None:
    text = claim.strip()
    inner = [n for n in _names(text) if n not in lowered]
    first = initial_name(text)
    initial = first if first is not None and first not in lowered else None
    if not inner and initial is None:
        return None
    missing = set(inner) | ({initial} if initial else set())
    others = {STEMS[t] for t in claim_tokens if t not in missing} - {""}
    if others - set(sentence.stems):
        return None  # the sentence does not state the rest of the claim: not a swap, a gap
    mine = set(claim_tokens)
    rival_first = initial_name(sentence.text)
    if inner and any(n not in mine for n in _all_names(sentence.text)):
        return inner[0]
    # a sentence-initial word is often no name ("Additionally", "Key"): it is a swapped entity
    # only against the aligned sentence's own first word ("Berlin is ..." / "Paris is ...")
    if initial is not None and rival_first is not None and rival_first not in mine:
        return initial
    return None


def _role_swap(claim: str, claim_tokens: list[str], sentence: _Sentence) -> str | None:
    """Two names of the claim that the aligned sentence holds in the other order around the same
    words ("YouTube acquired Google" / "Google acquired YouTube"): the same relation with its
    roles swapped. The words between must be the same and hold a content word, so a passive
    ("was acquired by") or a list ("Smith and Jones") is no swap; a symmetric relation
    ("France borders Spain") is read as one (docs/contrast.md)."""
    names = [m.group(1).lower() for m in _NAME_RE.finditer(claim)]
    first = initial_name(claim.strip())
    if first is not None:
        names.insert(0, first)
    if len(names) < 2:
        return None
    theirs = sentence.tokens
    places = []
    for name in dict.fromkeys(names):
        if claim_tokens.count(name) == 1 and theirs.count(name) == 1:
            places.append((claim_tokens.index(name), theirs.index(name), name))
    places.sort()
    for i, (mine_a, theirs_a, a) in enumerate(places):
        for mine_b, theirs_b, b in places[i + 1 :]:
            if theirs_b > theirs_a:
                continue
            between = claim_tokens[mine_a + 1 : mine_b]
            if between == theirs[theirs_b + 1 : theirs_a] and any(
                t not in STOPWORDS for t in between
            ):
                return f"{a}/{b}"
    return None
