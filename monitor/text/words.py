"""Lexical primitives for the cheap support tier: words, a light stemmer, stopwords, names.

Deterministic and standard library only. Tokenising is str.translate + str.split (several
times faster than a regex in CPython): punctuation, symbols and underscores separate words, so
identifiers split into their words for term matching (they are matched whole separately, see
IDENTIFIER_RE). Stems are memoised because the same words recur across claims and documents.
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable

WORD_RE = re.compile(r"[^\W_]+")

# snake_case, camelCase, dotted.names and letter-digit mixes: names that prose never contains.
IDENTIFIER_RE = re.compile(
    r"\b(?:[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]*"  # snake_case / _private
    r"|[a-z]+[A-Z][A-Za-z0-9]*"  # camelCase
    r"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"  # PascalCase with two humps
    r")\b"
)
CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")
_SPAN_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")  # a name inside a code span


def wordset(spaced: str) -> frozenset[str]:
    """A frozenset from a whitespace-separated word list (long lists read better as text)."""
    return frozenset(spaced.split())


STOPWORDS: frozenset[str] = wordset(
    """a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn doing
    don down during each either else etc even ever every few for from further had hadn has hasn
    have haven having he her here hers herself him himself his how however i if in into is isn it
    its itself just let ll many may me might more most much must mustn my myself neither no nor
    not now of off on once one only or other ought our ours ourselves out over own per rather re
    same shall shan she should shouldn since so some such than that the their theirs them
    themselves then there these they this those though through thus to too under until up upon us
    ve very via was wasn we were weren what when where whether which while who whom whose why will
    with within without won would wouldn yet you your yours yourself yourselves s t d m"""
)

NUMBER_WORDS: dict[str, int] = {
    word: value
    for value, word in enumerate(
        str.split(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
        )
    )
}
NUMBER_WORDS.update(
    {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
)
_SUFFIXES: tuple[str, ...] = (
    "izations",
    "ization",
    "ational",
    "fulness",
    "iveness",
    "ations",
    "ation",
    "ments",
    "ment",
    "ness",
    "ings",
    "ing",
    "ities",
    "ity",
    "ies",
    "ied",
    "ers",
    "er",
    "ed",
    "es",
    "ly",
    "s",
)

# the suffixes ending in each letter, in _SUFFIXES' order: a word is tried against those that
# end in its last letter only (2-3 instead of 22 endswith calls), the first that fits wins
_SUFFIXES_BY_LAST: dict[str, tuple[str, ...]] = {
    last: tuple(s for s in _SUFFIXES if s[-1] == last) for last in {s[-1] for s in _SUFFIXES}
}


def _stem(word: str) -> str:
    """A light suffix stemmer: validates/validated/validation/validating → validat.

    Conflates inflections and common derivations; it never needs to produce real words, only
    the same key for forms of one word. Short words are left alone (stems under 3 letters
    would conflate unrelated words).
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix in _SUFFIXES_BY_LAST.get(word[-1], ()):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied", "ities"):
                base += "i"
            elif suffix in ("ations", "ation", "ational"):
                base += "at"  # validation meets validate/validated
            elif suffix in ("izations", "ization"):
                base += "iz"
            elif suffix == "s" and base.endswith(("s", "u", "i")):
                # glass, status, analysis: a final s that is not a plural
                return word
            word = base
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]  # running → runn → run
    if word.endswith("y") and len(word) > 3:
        word = word[:-1] + "i"  # study/studies/studied agree
    return word


_STEMS_MAX = 200_000


class _StemMemo(dict[str, str]):
    """word → stem, stopword → "": `STEMS[word]` stems a word it has not seen (and remembers it
    while there is room), so `map(STEMS.__getitem__, tokens)` stems a whole text in C except for
    new words. `STEMS.get` still answers None for a word not seen yet."""

    def __missing__(self, word: str) -> str:
        key = _stem(word)
        if len(self) < _STEMS_MAX:
            self[word] = key
        return key


# word → stem, and stopword → "" so a single look-up both filters and stems (hot loops)
STEMS: dict[str, str] = _StemMemo.fromkeys(STOPWORDS, "")
stem_or_stop = STEMS.__getitem__
"""The stem of a word, or "" for a stopword; memoised."""


def stem(word: str) -> str:
    return stem_or_stop(word) if word not in STOPWORDS else _stem(word)


def _separator_table() -> dict[int, str]:
    table = {ord(c): " " for c in string.punctuation}
    for cp in (*range(0x80, 0x3040), *range(0xFE30, 0xFE70), *range(0xFF00, 0xFF66)):
        if unicodedata.category(chr(cp))[0] in "PSZC":
            table[cp] = " "
    return table


SEPARATORS = _separator_table()
NUMBER_STRINGS = {word: str(value) for word, value in NUMBER_WORDS.items()}


def translator(table: dict[int, str], *, lower: bool = False) -> Callable[[str], str]:
    """`text.translate(table)` (after `.lower()` when `lower`), with a byte table for ASCII text.

    str.translate with a dict builds a fresh per-call cache of the characters it meets, a
    microsecond for a sentence; bytes.translate with a 256-byte table is a plain copy loop.
    For ASCII text lower() only maps A-Z, so folding it into the byte table is the same thing.
    """
    ascii_table = bytearray(range(256))
    for cp in range(128):
        ch = chr(cp).lower() if lower else chr(cp)
        mapped = table.get(ord(ch), ch)
        if len(mapped) != 1 or not mapped.isascii():
            raise ValueError("the ASCII part of a translation table must map to one ASCII char")
        ascii_table[cp] = ord(mapped)
    fast = bytes(ascii_table)

    def translate(text: str) -> str:
        if text.isascii():
            return text.encode("ascii").translate(fast).decode("ascii")
        return (text.lower() if lower else text).translate(table)

    return translate


separate = translator(SEPARATORS)
fold = translator(SEPARATORS, lower=True)


def split_words(text: str) -> list[str]:
    """Word tokens with their case: runs of letters and digits."""
    return separate(text).split()


def words(text: str) -> list[str]:
    """Lower-cased word tokens; number words become digit strings so "five" meets "5"."""
    get = NUMBER_STRINGS.get
    return [get(t, t) for t in fold(text).split()]


def content_stems(tokens: list[str]) -> list[str]:
    """Stems of the tokens that carry content (stopwords dropped), in order."""
    get = STEMS.get
    return [get(t) or stem_or_stop(t) for t in tokens if t not in STOPWORDS]


def identifiers(text: str) -> list[str]:
    """Code-like names: contents of `code spans` and snake/camel/Pascal-case words."""
    found: list[str] = []
    for span in CODE_SPAN_RE.findall(text):
        found.extend(_SPAN_NAME_RE.findall(span))
    found.extend(IDENTIFIER_RE.findall(text))
    seen: dict[str, None] = {}
    for name in found:
        name = name.strip("._")
        if len(name) >= 2:
            seen.setdefault(name, None)
    return list(seen)


QUOTATION_RE = re.compile(r"\"([^\"\n]{2,2000})\"|“([^”\n]{2,2000})”")


def quotations(text: str, min_words: int = 3) -> list[str]:
    """Direct quotations ("..." or “...”) of at least `min_words` words."""
    out = []
    for match in QUOTATION_RE.finditer(text):
        quoted = match.group(1) or match.group(2) or ""
        if len(split_words(quoted)) >= min_words:
            out.append(quoted)
    return out


def remove_spans(text: str, offset: int, spans: list[tuple[int, int]]) -> str:
    """`text` (which starts at `offset` of a larger string) without the given absolute spans."""
    if not spans:
        return text
    if len(spans) == 1:  # the usual claim: one marker, the loop below without sort or list
        start, end = spans[0]
        start, end = max(start - offset, 0), min(end - offset, len(text))
        if start >= end:
            return text.strip()
        head, tail = text[:start].strip(), text[end:].strip()
        return f"{head} {tail}" if head and tail else head or tail
    parts = []
    pos = 0
    for start, end in sorted(spans):
        start, end = max(start - offset, pos), min(end - offset, len(text))
        if start >= end:
            continue
        parts.append(text[pos:start])
        pos = end
    parts.append(text[pos:])
    return " ".join(filter(None, map(str.strip, parts)))


def word_alternation(words: list[str]) -> str:
    """Literal words as one regex alternation, longest first (so "mg" is not read as "m"),
    grouped by first letter: the engine tries a group only when its letter is there instead of
    every word at every place (2-3x faster on the unit and month patterns). Groups are keyed by
    the case-folded first letter (µ and μ, K and the Kelvin sign share one), so words of
    different groups never match at the same place under re.I, and the match, and any
    backtracking into the alternation when what follows it fails, is the flat longest-first
    alternation's (tests/unit/monitor/text/test_word_alternation.py compares
    the two on random text)."""
    groups: dict[str, list[str]] = {}
    for word in sorted(words, key=len, reverse=True):
        groups.setdefault(word[0].casefold(), []).append(re.escape(word))
    return "|".join(f"(?:{'|'.join(g)})" if len(g) > 1 else g[0] for g in groups.values())
