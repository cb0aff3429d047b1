"""Lexical indexes of evidence texts and claims, built once and memoised.

An evidence text (a span, a line range, a whole document) is indexed once however many claims
cite it. Its content stems are built up front; its stem bigrams (within a passage: a sentence or
a line of code), per-passage stem sets and figures only when asked for, and a claim's bigrams
are answered by substring look-ups without building the text's bigram set (`shared_bigrams`).
Tokenising and stemming run as C calls over the whole text (byte-table translation for ASCII,
memoised stems), never word by word in Python: an index costs ~11 µs per 640-character text.

Tried and not kept (compiled core, 3,000-event standard mix): answering a text cited once by
searching it for the claim's stems instead of stemming it whole (a stem minus its last letter
is a prefix of its word, so each token starting with that is stemmed and compared; verdicts
identical). Index, coverage and bigrams fell from 20 to 16 µs per claim in isolation, but the
support stage only ~2% and the whole check not measurably (8 interleaved runs, ±2% noise),
for ~90 more lines. Kept instead: the stem set is built only when asked for, and a text cited
once answers coverage from its flat stems (`stems_found`).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from itertools import pairwise

from monitor.records.record import record
from monitor.text.numbers import (
    NumberMention,
    NumberSet,
    cannot_hold,
    figure_digits,
    numbers,
    written_in,
)
from monitor.text.words import (
    NUMBER_STRINGS,
    NUMBER_WORDS,
    SEPARATORS,
    STEMS,
    STOPWORDS,
    identifiers,
    separate,
    stem,
    translator,
    words,
    wordset,
)

# Sentence ends, line breaks (and NUL) become a passage mark, every other separator a space, so
# one translate + split cuts a document into words and marks. A period inside "3.14" or "U.S."
# cuts too: harmless, a window spans several passages. The mark is "." because no word token
# holds one (periods separate words) and it stems to itself.
_MARK = "."
_NUMBER_STEMS = {stem(w): v for w, v in NUMBER_WORDS.items() if w not in STOPWORDS}
_PASSAGE_TABLE = {**SEPARATORS, **{ord(c): _MARK for c in ".!?;\n\x00"}}
_passages = translator(_PASSAGE_TABLE, lower=True)
_STEM = STEMS.__getitem__


# A text whose bigrams more claims than this ask for (a document the grounding of every uncited
# claim of an answer looks at, a span many claims cite) answers from its stem and bigram sets,
# built once; the answers are the same. The bigram set costs ~2.5 look-ups by substrings (~18
# µs for a 1,500-character document, ~7 µs a claim's look-up); built after 2 claims it slowed
# the standard mix by ~5% (its texts are mostly cited by a few claims), after 6 it did not,
# and RAGTruth's uncited answers kept most of the gain (pure core: -3.5% of the check).
SETS_AFTER = 6


class EvidenceIndex:
    """Stems of one evidence text, overall and per passage, and its stem bigrams.

    One pass stems the whole text into a flat list with passage marks; only the overall stem
    set is built from it up front (the one thing every claim needs); the per-passage sets, the
    bigram set or phrase string, the figures and the lower-cased text are built on first use,
    so a reader that does not ask for them does not pay for them.
    """

    __slots__ = (
        "_asked",
        "_bigrams",
        "_digits",
        "_flat",
        "_lowered",
        "_numbers",
        "_passage_stems",
        "_phrases",
        "_stem_lists",
        "_stems",
        "text",
    )

    def __init__(self, text: str) -> None:
        self.text = text
        # every step is a C call over the whole text: the document's words are never visited
        # one by one in Python (STEMS[word] stems a word not seen before, "" for a stopword)
        flat = list(filter(None, map(_STEM, _passages(text).replace(_MARK, " . ").split())))
        self._flat = flat  # content stems in order, _MARK between passages
        self._stems: frozenset[str] | None = None
        self._stem_lists: list[list[str]] | None = None
        self._passage_stems: tuple[frozenset[str], ...] | None = None
        self._bigrams: frozenset[str] | None = None
        self._phrases: str | None = None
        self._numbers: NumberSet | None = None
        self._digits: str | None = None  # figure_digits(text) when asked; "": no shortcut
        self._lowered: str | None = None
        self._asked = 0  # bigram look-ups answered without the sets (SETS_AFTER)

    @property
    def stems(self) -> frozenset[str]:
        """The text's content stems."""
        if self._stems is None:
            stems = set(self._flat)
            stems.discard(_MARK)
            self._stems = frozenset(stems)
        return self._stems

    def stems_found(self, terms: frozenset[str]) -> frozenset[str]:
        """`terms & self.stems`, from the flat stems while the set is not built: most texts are
        cited once, and a claim has far fewer terms than its evidence has stems. No term is a
        passage mark (periods separate words)."""
        if self._stems is not None:
            return terms & self._stems
        return terms.intersection(self._flat)

    @property
    def stem_lists(self) -> list[list[str]]:
        """The content stems of each non-empty passage, in order."""
        if self._stem_lists is None:
            self._stem_lists = [p.split() for p in " ".join(self._flat).split(_MARK) if p.strip()]
        return self._stem_lists

    @property
    def passage_stems(self) -> tuple[frozenset[str], ...]:
        """The content stems of each passage (sentence or line), in order."""
        if self._passage_stems is None:
            self._passage_stems = tuple(map(frozenset, self.stem_lists))
        return self._passage_stems

    @property
    def passage_sizes(self) -> tuple[int, ...]:
        """Content words of each passage, repeats included."""
        return tuple(map(len, self.stem_lists))

    @property
    def bigrams(self) -> frozenset[str]:
        """Pairs "stem1 stem2" of consecutive content stems of one passage."""
        if self._bigrams is None:
            # every consecutive pair of the flat stems, then those with a passage mark dropped
            # (stems hold no period): one join per pair, and no passage lists as the
            # per-passage pairing needs (twice as fast; tests/unit/monitor/test_fast_paths.py);
            # "a b" strings, not tuples: thousands of retained tuples make every cyclic GC pass
            # of a long-running worker slower
            pairs = map(" ".join, pairwise(self._flat))
            self._bigrams = frozenset([p for p in pairs if _MARK not in p])
        return self._bigrams

    def bigrams_found(self, terms: ClaimTerms) -> frozenset[str] | set[str]:
        """`terms.bigrams & self.bigrams`, by substring look-ups in the stems (cheaper than
        building the bigram set, measured even for a one-sentence span).

        A claim's bigram is two stems joined by one space, and stems hold neither spaces nor
        periods, so " a b " occurs in " s1 s2 . s3 s4 " (the flat stems, marks included)
        exactly when "a b" is a bigram of one passage.
        """
        if self._bigrams is not None:
            return terms.bigrams & self.bigrams
        self._asked += 1
        if self._asked > SETS_AFTER:
            _ = self.stems  # the claims that ask for bigrams ask for stems too
            return terms.bigrams & self.bigrams
        if self._phrases is None:
            self._phrases = " " + " ".join(self._flat) + " "
        phrases = self._phrases
        return {b for b in terms.bigrams if f" {b} " in phrases}

    def has_number(self, mention: NumberMention) -> bool:
        if written_in(mention, self.text):
            return True
        if self._numbers is None:
            # most figures a claim changed are in no form in the evidence: said without
            # reading every figure of the text when its digits show that (numbers.cannot_hold)
            if self._digits is None:
                self._digits = figure_digits(self.text) or ""
            if self._digits and cannot_hold(mention, self._digits):
                return False
            # spelled-out numbers through the stems already at hand ("one" is a stopword: lost)
            spelled = [_NUMBER_STEMS[k] for k in _NUMBER_STEMS.keys() & self.stems]
            self._numbers = NumberSet.of_text(self.text, spelled)
        return self._numbers.contains(mention)

    def mentions(self, name: str) -> bool:
        """`name` occurs anywhere in the text, case-insensitively (code symbols, rare)."""
        if self._lowered is None:
            self._lowered = self.text.lower()
        return name.lower() in self._lowered


def shared_bigrams(terms: ClaimTerms, indexes: Sequence[EvidenceIndex]) -> int:
    """How many of the claim's bigrams some evidence text has:
    `len(terms.bigrams & union of the indexes' bigrams)`, without building the texts' sets."""
    if not terms.bigrams:
        return 0
    if len(indexes) == 1:
        return len(indexes[0].bigrams_found(terms))
    found: set[str] = set()
    for index in indexes:
        found.update(index.bigrams_found(terms))
    return len(found)


# Indexes of recently cited texts: claims of one answer, and answers over one corpus, cite the
# same documents. Bounded by entries and by characters held, so long documents cannot pile up.
CACHE_MAX_ENTRIES = 1024
CACHE_MAX_CHARS = 8_000_000
_cache: OrderedDict[str, EvidenceIndex] = OrderedDict()
_cache_chars = 0


def clear_index_cache() -> None:
    """Forget every memoised index (benchmarks: each round starts cold, like new documents)."""
    global _cache_chars
    _cache.clear()
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


@record
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


_CAMEL_RE = re.compile(r"[a-z][A-Z]")  # with "_" and "`": a claim that may name code
_NONE: frozenset[str] = frozenset()
_NOT_TERMS = GENERIC_CODE_WORDS  # and digit strings: figures are checked exactly, not as terms


def _is_term(token: str) -> bool:
    """A token whose stem (when not "") is a term."""
    return not token.isdecimal() and token not in _NOT_TERMS


def _pairs(stems: list[str]) -> list[str]:
    """ "a b" for each two consecutive stems, stopwords ("") skipped: a loop of f-strings, no
    filter, pairwise, map or join calls per pair."""
    out: list[str] = []
    prev = ""
    for key in stems:
        if key:
            if prev:
                out.append(f"{prev} {key}")
            prev = key
    return out


_IS_DECIMAL: Callable[[str], bool] = str.isdecimal
# A word after the first that starts with an ASCII capital: one C scan of the cased text finds
# the few such words (1.7 a claim) instead of splitting it again and testing every word. `\s`
# is str.split's white space (both are str.isspace), so the words are split()'s tokens.
_CAPITAL_WORD_RE = re.compile(r"\s([A-Z]\S*)")
_NUMBER_STRING = NUMBER_STRINGS.get


def _capitalised_ascii(separated: str, first: int) -> set[str]:
    """The lower-cased tokens after the first (which ends at `first`) whose word starts with a
    capital and is not all capitals."""
    found: set[str] = set()
    for word in _CAPITAL_WORD_RE.findall(separated, first):
        if not word.isupper():
            low = word.lower()
            found.add(_NUMBER_STRING(low, low))  # as the tokens: number words become digits
    return found


def _capitalised(separated: str, tokens: list[str]) -> set[str]:
    """The lower-cased tokens after the first whose word starts with a capital and is not all
    capitals."""
    pairs = zip(separated.split()[1:], tokens[1:], strict=False)
    return {low for t, low in pairs if t[0].isupper() and not t.isupper()}


def claim_terms(text: str) -> ClaimTerms:
    """Content terms of a claim; names the reader could check weigh double."""
    separated = separate(text)
    ascii_text = text.isascii()
    if ascii_text:
        # lower() after separating is the same as before for ASCII, and it tells at once
        # whether the claim has any capital letter at all
        lowered = separated.lower()
        tokens = lowered.split()
        # the first word ends where it starts (after the white space split() skips) plus its
        # length, which lower() keeps: the cased words are split only when a capital follows
        first = len(separated) - len(separated.lstrip()) + len(tokens[0]) if tokens else 0
        if not NUMBER_STRINGS.keys().isdisjoint(tokens):
            tokens = [NUMBER_STRINGS.get(t, t) for t in tokens]
        upper_after_first = separated[first:] != lowered[first:]
        # camelCase needs a capital after some letter: never the text's first character
        upper = upper_after_first or separated[1:first] != lowered[1:first]
    else:
        tokens = words(text)
        upper = upper_after_first = True
        first = 0
    # a capitalised word after the first is a name (the first may just open the sentence)
    if not upper_after_first:
        capitalised: set[str] | frozenset[str] = _NONE
    elif ascii_text:
        capitalised = _capitalised_ascii(separated, first)
    else:
        capitalised = _capitalised(separated, tokens)
    code_hint = "_" in text or "`" in text or (upper and _CAMEL_RE.search(text) is not None)
    ids = identifiers(text) if code_hint else []
    stems = list(map(_STEM, tokens))  # "" = stopword
    if _NOT_TERMS.isdisjoint(tokens):
        # digit strings stem to themselves and no word stems to digits, so dropping digit
        # stems drops exactly the digit tokens, all at C speed
        terms = set(stems)
        terms.discard("")
        # (filter calls the method itself: the compiled core would look it up per term)
        digits: list[str] = list(filter(_IS_DECIMAL, terms))
        terms.difference_update(digits)
    else:  # a generic code word ("value") must not remove a real one ("valued") of one stem
        terms = {
            key
            for token, key in zip(tokens, stems, strict=True)
            if key and token not in _NOT_TERMS and not token.isdecimal()
        }
    heavy: frozenset[str] | set[str] = _NONE
    names: frozenset[str] | set[str] = _NONE
    if capitalised:
        # a token's stem depends on the token alone: the names are the stems of the claim's
        # capitalised words (all of them tokens) that are terms, with no pass over the tokens
        names = {key for t in capitalised if (key := _STEM(t)) and _is_term(t)}
        heavy = names
    if ids:
        parts = {w for name in ids for w in words(name)}.intersection(tokens)
        heavy = {key for t in parts if (key := _STEM(t)) and _is_term(t)}.union(names)
    return ClaimTerms(  # positional: keyword arguments cost a frozen dataclass a third more
        text,
        frozenset(terms),
        frozenset(heavy),
        frozenset(names),
        frozenset(_pairs(stems)),
        tuple(ids),
        tuple(numbers(text)),
    )
