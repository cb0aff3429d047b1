"""Lexical primitives for the cheap support tier: tokens, a light stemmer, stopwords, numbers.

Everything here is deterministic and standard library only; the hot functions are memoised
because the same words and documents recur across claims.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache

# Letters and digits only: underscores split identifiers into their words for term matching
# (identifiers are matched whole separately, see IDENTIFIER_RE).
WORD_RE = re.compile(r"[^\W_]+")

# snake_case, camelCase, dotted.names and letter-digit mixes: names that prose never contains.
IDENTIFIER_RE = re.compile(
    r"\b(?:[A-Za-z_][A-Za-z0-9]*_[A-Za-z0-9_]*"  # snake_case / _private
    r"|[a-z]+[A-Z][A-Za-z0-9]*"  # camelCase
    r"|[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*"  # PascalCase with two humps
    r")\b"
)
CODE_SPAN_RE = re.compile(r"`([^`\n]+)`")


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

_NUMBER_WORDS: dict[str, int] = {
    word: value
    for value, word in enumerate(
        str.split(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
        )
    )
}
_NUMBER_WORDS.update(
    {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
)
_SCALES = {
    "hundred": 1e2,
    "thousand": 1e3,
    "million": 1e6,
    "millions": 1e6,
    "billion": 1e9,
    "billions": 1e9,
    "trillion": 1e12,
    "k": 1e3,
    "m": 1e6,
    "mn": 1e6,
    "bn": 1e9,
}

_SCALE_TAIL = r"(?:\s?(hundred|thousand|millions?|billions?|trillion)\b|(bn|mn|[kKmMbB])\b)?"
# A number standing alone: not part of a word (mp3, 3D, 1st, COVID-19, MS-06, H2O), optionally
# scaled by a unit word ("5.6 million") or a glued letter ("$5M", "20k", "3bn").
NUMBER_RE = re.compile(
    r"(?<![\w.])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?" + _SCALE_TAIL + r"(?![\w])(?!\.\d)"
)
# Evidence side: any digit run counts ("9th", "45°C", "COVID-19"), so a claim's figure is only
# called missing when the evidence has no such figure anywhere.
# Digits inside identifiers ("policy_9", "mp3", "H2O") are names, not figures.
LENIENT_NUMBER_RE = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?" + _SCALE_TAIL)
_NUMBER_WORD_RE = re.compile(
    r"\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety)\b",
    re.I,
)
_YEAR_RANGE_RE = re.compile(r"\b(1[0-9]|20)(\d{2})\s?[-–/]\s?$")
_NAME_BEFORE_RE = re.compile(r"\b([A-Z][A-Za-z]*)\s$")
_MONTHS = wordset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
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


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stemmer: validates/validated/validation/validating → validat.

    Conflates inflections and common derivations; it never needs to produce real words, only
    the same key for forms of one word. Short words are left alone (stems under 3 letters
    would conflate unrelated words).
    """
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
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


def words(text: str) -> list[str]:
    """Lower-cased word tokens; number words become digit strings so "five" meets "5"."""
    out = []
    for token in WORD_RE.findall(text.lower()):
        value = _NUMBER_WORDS.get(token)
        out.append(str(value) if value is not None else token)
    return out


def content_stems(tokens: list[str]) -> list[str]:
    """Stems of the tokens that carry content (stopwords dropped), in order."""
    return [stem(t) for t in tokens if t not in STOPWORDS]


@dataclass(frozen=True, slots=True)
class NumberMention:
    raw: str
    value: float
    unit: float  # the last written digit's place value, scale included: "41" → 1, "3.5k" → 100
    is_year: bool
    bare: float | None = None  # "100m": also 100 (metres?) when the scale is a glued letter

    @property
    def tolerance(self) -> float:
        """A figure stands for anything that rounds to it: "41" covers 40.5 ≤ x ≤ 41.5."""
        return self.unit / 2


def _mention(match: re.Match[str], text: str) -> NumberMention:
    integer, fraction = match.group(1), match.group(2)
    scale_word = match.group(3) or match.group(4)
    bare = float(integer.replace(",", "") + (fraction or ""))
    unit = 10.0 ** -(len(fraction) - 1) if fraction else 1.0
    scale = _SCALES.get(scale_word.lower(), 1.0) if scale_word else 1.0
    if fraction is None and scale == 1.0 and len(integer) == 2:
        year_range = _YEAR_RANGE_RE.search(text, max(0, match.start() - 8), match.start())
        if year_range:  # "2018–19" means 2019
            bare = float(year_range.group(1) + integer)
    is_year = fraction is None and scale == 1.0 and 1000 <= bare <= 2100 and "," not in integer
    return NumberMention(
        raw=match.group(0),
        value=bare * scale,
        unit=unit * scale,
        is_year=is_year,
        bare=bare if match.group(4) else None,
    )


def numbers(text: str) -> list[NumberMention]:
    """Figures a claim states with digits ("1,200", "3.14", "5.6 million", "2018–19").

    Numbers that are part of a name ("Windows 10", "Stage 3", "Series 4") are not figures;
    day numbers after a month are ("April 9").
    """
    out = []
    for match in NUMBER_RE.finditer(text):
        if len(match.group(1)) <= 3 and match.group(2) is None:
            name = _NAME_BEFORE_RE.search(text, max(0, match.start() - 40), match.start())
            if name and name.group(1).lower() not in _MONTHS and _mid_sentence(text, name.start()):
                continue
        out.append(_mention(match, text))
    return out


def _mid_sentence(text: str, pos: int) -> bool:
    """A capital at `pos` marks a name only when it does not open the sentence."""
    before = text[:pos].rstrip(" \t\"'“(*_")
    return bool(before) and before[-1] not in ".!?:;\n"


class NumberSet:
    """The figures of an evidence text, sorted, for look-ups at a claim's precision."""

    __slots__ = ("_values",)

    def __init__(self, values: list[float]) -> None:
        self._values = sorted(values)

    @classmethod
    def of_text(cls, text: str) -> NumberSet:
        values: list[float] = []
        for match in LENIENT_NUMBER_RE.finditer(text):
            mention = _mention(match, text)
            values.append(mention.value)
            bare = float(match.group(1).replace(",", "") + (match.group(2) or ""))
            if bare != mention.value:
                values.append(bare)  # "5 million" also offers 5; "2018–19" also offers 19
        values.extend(float(_NUMBER_WORDS[w.lower()]) for w in _NUMBER_WORD_RE.findall(text))
        return cls(values)

    def _has(self, value: float, tolerance: float) -> bool:
        slack = tolerance + 1e-9 * abs(value)
        i = bisect.bisect_left(self._values, value - slack)
        return i < len(self._values) and self._values[i] <= value + slack

    def contains(self, mention: NumberMention) -> bool:
        """True when some figure of the evidence rounds to the mention's written precision."""
        if self._has(mention.value, mention.tolerance):
            return True
        if mention.bare is None:
            return False
        scale = mention.value / mention.bare if mention.bare else 1.0
        return self._has(mention.bare, mention.tolerance / scale)

    def __len__(self) -> int:
        return len(self._values)


def identifiers(text: str) -> list[str]:
    """Code-like names: contents of `code spans` and snake/camel/Pascal-case words."""
    found: list[str] = []
    for span in CODE_SPAN_RE.findall(text):
        found.extend(m.group(0) for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_.]*", span))
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
        if len(WORD_RE.findall(quoted)) >= min_words:
            out.append(quoted)
    return out


def remove_spans(text: str, offset: int, spans: list[tuple[int, int]]) -> str:
    """`text` (which starts at `offset` of a larger string) without the given absolute spans."""
    if not spans:
        return text
    parts = []
    pos = 0
    for start, end in sorted(spans):
        start, end = max(start - offset, pos), min(end - offset, len(text))
        if start >= end:
            continue
        parts.append(text[pos:start])
        pos = end
    parts.append(text[pos:])
    return " ".join(p.strip() for p in parts if p.strip())
