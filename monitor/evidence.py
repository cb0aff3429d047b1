"""Lexical indexes of evidence texts and claims, built once and memoised.

An evidence text (a span, a line range, a whole document) is indexed once however many claims
cite it: content stems, stem bigrams and per-passage stem sets for the best-window search;
its figures are parsed only when a claim's figure is not found as written. Passages are
sentences (or lines of code); a window is a few consecutive passages, so the search is linear
in the document length.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass
from itertools import pairwise

from monitor.numbers import NumberMention, NumberSet, numbers, written_in
from monitor.text import (
    NUMBER_WORDS,
    SEPARATORS,
    STEMS,
    STOPWORDS,
    identifiers,
    split_words,
    stem,
    stem_or_stop,
    words,
    wordset,
)

# Sentence ends (and line breaks) become a passage mark, every other separator a space, so one
# translate + split cuts a document into passages of words. A period inside "3.14" or "U.S." cuts
# too: harmless, a window spans several passages.
_MARK = "\x00"
_NUMBER_STEMS = {stem(w): v for w, v in NUMBER_WORDS.items() if w not in STOPWORDS}
_PASSAGE_TABLE = {**SEPARATORS, **{ord(c): _MARK for c in ".!?;\n"}}


class EvidenceIndex:
    """Stems (per passage, overall, bigrams) of one evidence text; figures on first need."""

    __slots__ = (
        "_numbers",
        "bigrams",
        "passage_sizes",
        "passage_stems",
        "stems",
        "text",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        lowered = text.lower()
        get = STEMS.get
        passage_stems: list[frozenset[str]] = []
        passage_sizes: list[int] = []  # content words, repeats included
        bigrams: set[str] = set()
        for chunk in lowered.translate(_PASSAGE_TABLE).split(_MARK):
            tokens = chunk.split()
            if not tokens:
                continue
            found = list(map(get, tokens))
            if None in found:
                found = [
                    stem_or_stop(t) if s is None else s for s, t in zip(found, tokens, strict=True)
                ]
            stems: list[str] = [s for s in found if s]  # stopwords stem to ""
            if stems:
                passage_stems.append(frozenset(stems))
                passage_sizes.append(len(stems))
                # "a b" strings, not tuples: thousands of retained tuples make every cyclic
                # GC pass of a long-running worker slower
                bigrams.update(map(" ".join, pairwise(stems)))
        self.passage_stems = tuple(passage_stems)
        self.passage_sizes = tuple(passage_sizes)
        self.stems: frozenset[str] = frozenset().union(*passage_stems)
        self.bigrams = frozenset(bigrams)
        self._numbers: NumberSet | None = None

    def has_number(self, mention: NumberMention) -> bool:
        if written_in(mention, self.text):
            return True
        if self._numbers is None:
            # spelled-out numbers through the stems already at hand ("one" is a stopword: lost)
            spelled = [_NUMBER_STEMS[k] for k in _NUMBER_STEMS.keys() & self.stems]
            self._numbers = NumberSet.of_text(self.text, spelled)
        return self._numbers.contains(mention)

    def mentions(self, name: str) -> bool:
        """`name` occurs anywhere in the text, case-insensitively (code symbols, rare)."""
        return name.lower() in self.text.lower()


# Indexes of recently cited texts: claims of one answer, and answers over one corpus, cite the
# same documents. Bounded by entries and by characters held, so long documents cannot pile up.
CACHE_MAX_ENTRIES = 1024
CACHE_MAX_CHARS = 8_000_000
_cache: OrderedDict[str, EvidenceIndex] = OrderedDict()
_cache_chars = 0


def index_evidence(text: str) -> EvidenceIndex:
    global _cache_chars
    found = _cache.get(text)
    if found is not None:
        _cache.move_to_end(text)
        return found
    index = EvidenceIndex(text)
    if len(text) <= CACHE_MAX_CHARS // 4:
        _cache[text] = index
        _cache_chars += len(text)
        while len(_cache) > CACHE_MAX_ENTRIES or _cache_chars > CACHE_MAX_CHARS:
            old, _ = _cache.popitem(last=False)
            _cache_chars -= len(old)
    return index


@dataclass(frozen=True, slots=True)
class ClaimTerms:
    text: str  # citation markers removed
    terms: frozenset[str]  # content stems, each weighing 1 ...
    heavy: frozenset[str]  # ... plus 1 more for names and identifier parts (a subset of terms)
    names: frozenset[str]  # stems of capitalised words inside the sentence (people, places, titles)
    bigrams: frozenset[str]  # "stem1 stem2"
    identifiers: tuple[str, ...]
    numbers: tuple[NumberMention, ...]


# Words that name code constructs rather than assert anything about them (seed 001 §4.1).
GENERIC_CODE_WORDS = wordset(
    "function method class variable module file code line lines value input output "
    "parameter argument return returns"
)


_CODE_HINT_RE = re.compile(r"[_`]|[a-z][A-Z]")


def claim_terms(text: str) -> ClaimTerms:
    """Content terms of a claim; names the reader could check weigh double."""
    cased = split_words(text)
    tokens = words(text)
    # a capitalised word after the first is a name (the first may just open the sentence)
    capitalised = {
        low
        for t, low in zip(cased[1:], tokens[1:], strict=False)
        if t[0].isupper() and not t.isupper()
    }
    ids = identifiers(text) if _CODE_HINT_RE.search(text) else []
    id_parts = {w for name in ids for w in words(name)}
    get = STEMS.get
    stems = [stem_or_stop(t) if (s := get(t)) is None else s for t in tokens]  # "" = stopword
    terms: set[str] = set()
    heavy: set[str] = set()
    names: set[str] = set()
    for token, key in zip(tokens, stems, strict=True):
        if not key or token.isdecimal() or token in GENERIC_CODE_WORDS:
            continue  # numbers are checked exactly, not as terms
        terms.add(key)
        if token in capitalised:
            heavy.add(key)
            names.add(key)
        elif token in id_parts:
            heavy.add(key)
    content = [s for s in stems if s]
    return ClaimTerms(
        text=text,
        terms=frozenset(terms),
        heavy=frozenset(heavy),
        names=frozenset(names),
        bigrams=frozenset(map(" ".join, pairwise(content))),
        identifiers=tuple(ids),
        numbers=tuple(numbers(text)),
    )
