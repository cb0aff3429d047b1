"""A claim about a record against the record's attributes and times: flips word overlap misses.

"It offers outdoor seating" shares its words with the line "outdoor seating: no"; overlap calls
it supported. Here each boolean, null or yes/no leaf of the event's `data` is an attribute:

- the claim mentions it when the attribute's own words are in one clause of the claim ("outdoor
  seating", "take-out"/"takeout" for `RestaurantsTakeOut`; a one-word attribute of a group
  also needs its group's word: "street parking" for `BusinessParking.street`);
- the mention is negated when a negation cue stands before it in its clause ("does not offer
  WiFi or reservations", "no music"), and a new clause ("but", "while", ", and it has")
  ends the cue's reach;
- `attribute_mismatch:<words>`: the data affirms what the claim negates or negates what it
  affirms; `attribute_unknown:<words>`: the data says nothing (null) and the claim states it
  either way, a claim without a source.

Times of day: a claim's clock times ("11am", "10:30 pm", "17:00") must be among the data's
times ("hours": "11:0-21:0") when the data states any: `time_missing:<time>` otherwise.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from monitor.checks.data_text import Leaf
from monitor.text.negation import NEGATION_LOWER_RE, NEGATION_RE
from monitor.text.numbers import has_digit
from monitor.text.words import STEMS, STOPWORDS

# where a negation's reach ends: a contrast, a new clause with its own subject or verb
_CLAUSE_RE = re.compile(
    r"[;.!?]|\b(?:but|while|whereas|although|though|however|yet|despite|except)\b"
    r"|,\s*(?:and\s+)?(?:it|they|he|she|we|you|the|this|there|a|an|its|their)\b"
    r"|\band\s+(?:it|they|is|are|has|have|had|offers?|provides?|accepts?|serves?|takes?|"
    r"features?|includes?|allows?|does|do)\b",
    re.I,
)
# _CLAUSE_RE for `text.lower()` of an ASCII text, case-sensitive, every alternative opening with
# a literal character and its word boundary put in a look-behind after it: a pattern opening with
# \b gives the engine no first character to skip ahead to, so it ran every alternative, each
# letter lower-cased, at every position. At most one alternative can start at a position (their
# first characters differ; "although" and "and" part at their second), so the matches are those
# of _CLAUSE_RE (tests/unit/monitor/checks/test_data_claims.py)
_ASCII_CLAUSE_RE = re.compile(
    r";|\.|!|\?|,\s*(?:and\s+)?(?:it|they|he|she|we|you|the|this|there|a|an|its|their)\b"
    r"|b(?<!\wb)ut\b|w(?<!\ww)h(?:ile|ereas)\b|t(?<!\wt)hough\b|h(?<!\wh)owever\b"
    r"|y(?<!\wy)et\b|d(?<!\wd)espite\b|e(?<!\we)xcept\b"
    r"|a(?<!\wa)(?:lthough\b|nd\s+(?:it|they|is|are|has|have|had|offers?|provides?|accepts?|"
    r"serves?|takes?|features?|includes?|allows?|does|do)\b)"
)
_WORD_RE = re.compile(r"[^\W_]+")
_NO_VALUES = frozenset({"no", "none", "false", "n", "0", "not available", "unavailable"})
_YES_VALUES = frozenset({"yes", "true", "y", "1", "free", "paid", "available"})
# 12-hour "11am", "10:30 p.m." (hour: groups 1 and 2, minutes 3, half 4); 24-hour "17:00",
# "9:30" (hour: groups 1 and 5, minutes 6). Both open with the hour's first digit, matched once,
# its word boundary a look-behind after it: the engine then skips ahead to digits instead of
# trying both forms at every position (~4x faster). The same matches, in the same order of
# trial, as \b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?|\b([01]?\d|2[0-3]):([0-5]\d)\b with
# re.I: no other character folds to a, p or m (tests/unit/monitor/checks/test_data_claims.py)
_CLOCK_RE = re.compile(
    r"(\d)(?<!\w\d)(?:(\d?)(?::(\d\d))?\s*([aApP])\.?\s?[mM]\b\.?"
    r"|((?<=[01])\d||(?<=2)[0-3]):([0-5]\d)\b)"
)
_DATA_TIME_RE = re.compile(r"\b([01]?\d|2[0-4]):([0-5]?\d)\b")


# _WORD_RE's tokens of ASCII text, "-" removed, by one C byte translation: every character but
# a letter or digit becomes a space ([^\W_] is [A-Za-z0-9] in ASCII); the regex pass cost half of
# the quick look that every claim of an answer with data goes through
_ASCII_CASED = bytes(b if chr(b).isascii() and chr(b).isalnum() else 32 for b in range(256))
_ASCII_LOWER = _ASCII_CASED.lower()


def _words(text: str) -> list[str]:
    """_WORD_RE.findall(text.replace("-", "")): the words, with their case."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_CASED, b"-").decode("ascii").split()
    return _WORD_RE.findall(text.replace("-", ""))


def _lower_words(text: str) -> list[str]:
    """_WORD_RE.findall(text.replace("-", "").lower())."""
    if text.isascii():
        return text.encode("ascii").translate(_ASCII_LOWER, b"-").decode("ascii").split()
    return _WORD_RE.findall(text.replace("-", "").lower())


def _stems(words: list[str]) -> list[str]:
    return [s for s in (STEMS[w] for w in words if w not in STOPWORDS) if s]


_NOT_AN_ATTRIBUTE = object()


def _flag(value: Any) -> object:
    """True/False for an affirmed/negated attribute, None for unknown, _NOT_AN_ATTRIBUTE for a
    value that is no attribute (a name, a number, a long text)."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str) and len(value) <= 20:  # a yes/no word, not a review text
        low = value.strip().lower().strip("u'\"")
        if low in _NO_VALUES:
            return False
        if low in _YES_VALUES:
            return True
    return _NOT_AN_ATTRIBUTE


class Attribute:
    __slots__ = ("flag", "fused", "group", "name", "phrase", "stems")

    def __init__(
        self, name: str, stems: list[str], fused: str, group: str, flag: bool | None
    ) -> None:
        self.name = name
        self.stems = stems
        self.fused = fused
        self.group = group
        self.flag = flag
        self.phrase = " " in name  # several words: its fused form is a mention too ("takeout")


class Attributes:
    """A record's attributes, with what every claim's quick look asks of them built once per
    record instead of once per claim: the first stems and the fused names."""

    __slots__ = ("firsts", "fused", "items", "phrases")

    def __init__(self, items: list[Attribute]) -> None:
        self.items = items
        self.firsts = frozenset(a.stems[0] for a in items)
        self.fused = tuple(dict.fromkeys(a.fused for a in items))  # each once, in order
        # the fused names a clause can mention an attribute by (those of several words)
        self.phrases = tuple(dict.fromkeys(a.fused for a in items if a.phrase))

    def __len__(self) -> int:
        return len(self.items)


NO_ATTRIBUTES = Attributes([])  # (read only)


def attributes(leaves: list[Leaf]) -> Attributes:
    """The attribute leaves of a record, each with its own words: the words of its key that
    are not shared by the keys beside it ("restaurants" in RestaurantsReservations,
    RestaurantsTakeOut, ...), and its group's stem (the parent key's last word)."""
    by_parent: dict[int, list[tuple[list[str], list[str], Any]]] = {}  # parent → its leaves
    for words, value, _, parent in leaves:
        if _flag(value) is _NOT_AN_ATTRIBUTE:
            continue
        parts = words.split()
        by_parent.setdefault(parent, []).append((parts, [], value))
    out: list[Attribute] = []
    for items in by_parent.values():
        # the words after the shared path, minus the ones repeated across the group's keys
        common = _common_prefix([p for p, _, _ in items]) if len(items) > 1 else 0
        own_lists = [p[common:] or p[-1:] for p, _, _ in items]
        own_lists = [o[-1:] if len(o) > 1 and o[-1] == "".join(o[:-1]) else o for o in own_lists]
        repeated = Counter(w for own in own_lists for w in set(own))
        # a nested group ("attributes" → "business parking") names what its one-word members
        # are ("street" parking); its first letters, as spellings vary ("ambience"/"ambiance")
        group = items[0][0][common - 1][:4] if common >= 2 else ""
        for (_, _, value), own in zip(items, own_lists, strict=True):
            kept = [w for w in own if repeated[w] < 3 or len(own_lists) < 3] or own[-1:]
            stems = _stems(kept)
            if not stems:
                continue
            flag = _flag(value)
            known = flag if isinstance(flag, bool) else None
            out.append(Attribute(" ".join(kept), stems, "".join(kept), group, known))
    return Attributes(out)


def _common_prefix(paths: list[list[str]]) -> int:
    n = min(len(p) for p in paths)
    i = 0
    while i < n and all(p[i] == paths[0][i] for p in paths):
        i += 1
    return i


def _clauses(text: str, lowered: str | None = None) -> list[str]:
    """The clauses of `text` that are not blank; `lowered`: `text.lower()` when `text` is ASCII
    (the same offsets), read by the faster case-sensitive pattern."""
    out, at = [], 0
    found = _CLAUSE_RE.finditer(text) if lowered is None else _ASCII_CLAUSE_RE.finditer(lowered)
    for m in found:
        out.append(text[at : m.start()])
        at = m.end()
    out.append(text[at:])
    return [c for c in out if c.strip()]


def _mentioned(
    attr: Attribute,
    words: list[str],
    cased: list[str],
    stems: list[str],
    stem_set: set[str],
    fused: str,
) -> int:
    """Position (word index) of the attribute's mention in a clause, -1 when absent."""
    if attr.phrase and len(attr.fused) >= 5 and attr.fused in fused:  # "takeout"
        for i, w in enumerate(words):
            if w and (attr.fused.startswith(w) or w.startswith(attr.fused)):
                return i
    if len(attr.stems) < len(attr.name.split()):  # "take out", "good for groups": the phrase
        if attr.stems[0] not in stem_set:
            return -1
        phrase = f" {attr.name} "
        text = f" {' '.join(words)} "
        at = text.find(phrase)
        return -1 if at < 0 else text[:at].count(" ")
    if not stem_set.issuperset(attr.stems):
        return -1
    at = min(stems.index(s) for s in attr.stems)
    # a one-word member of a group without its group's word: an attribute only when it is not
    # part of a name ("State Street") nor the head of an "of" phrase ("a lot of")
    alone = len(attr.stems) == 1 and attr.group and not any(s.startswith(attr.group) for s in stems)
    if alone and ((cased[at][:1].isupper() and at > 0) or words[at + 1 : at + 2] == ["of"]):
        return -1
    return at


def attribute_conflicts(claim: str, attrs: Attributes) -> list[str]:
    """Reasons why the record contradicts (or does not state) attributes the claim states."""
    if not attrs.items:
        return []
    # the quick look first: a claim none of whose words starts an attribute has no mention
    # (C passes over what `attrs` holds: most claims mention no attribute, so every attribute
    # is looked at)
    flat = _lower_words(claim)
    if attrs.firsts.isdisjoint(map(STEMS.__getitem__, flat)) and not any(
        map("".join(flat).__contains__, attrs.fused)
    ):
        return []
    out: list[str] = []
    # ASCII: the clause cuts and the negation cue read in the lower-cased text, case-sensitive
    lowered = claim.lower() if claim.isascii() else None
    for clause in _clauses(claim, lowered):
        cased = _words(clause)
        words = [w.lower() for w in cased]
        if not words:
            continue
        stems = [STEMS[w] for w in words]
        stem_set = set(stems)
        fused = "".join(words)
        # the quick look per clause (the test of each attribute below, for all at once)
        if stem_set.isdisjoint(attrs.firsts) and not any(map(fused.__contains__, attrs.phrases)):
            continue
        cue_at = -2  # the word index of the clause's negation cue (-1: none), read on first need
        for attr in attrs.items:
            if attr.stems[0] not in stem_set and not (attr.phrase and attr.fused in fused):
                continue  # most attributes are not in most clauses
            at = _mentioned(attr, words, cased, stems, stem_set, fused)
            if at < 0:
                continue
            if cue_at == -2:
                if lowered is None:
                    cue = NEGATION_RE.search(clause)
                else:
                    cue = NEGATION_LOWER_RE.search(clause.lower())
                cue_at = len(_words(clause[: cue.start()])) if cue else -1
            negated = 0 <= cue_at <= at
            if attr.flag is None:
                out.append(f"attribute_unknown:{attr.name}")
            elif attr.flag == negated:
                out.append(f"attribute_mismatch:{attr.name}")
    return list(dict.fromkeys(out))


def _minutes(hour: int, minute: int, half: str | None) -> int:
    if half is not None:
        hour = hour % 12 + (12 if half.lower() == "p" else 0)
    return (hour % 24) * 60 + minute


def data_times(leaves: list[Leaf]) -> frozenset[int]:
    """Every clock time (minutes after midnight) written in the data's string values."""
    found: set[int] = set()
    for _, value, _, _ in leaves:
        if isinstance(value, str) and ":" in value and len(value) <= 64:
            for m in _DATA_TIME_RE.finditer(value):
                found.add(_minutes(int(m.group(1)), int(m.group(2)), None))
    return frozenset(found)


def time_conflicts(claim: str, times: frozenset[int]) -> list[str]:
    """Clock times of the claim that the data (which states times) does not hold."""
    if not times or not has_digit(claim):
        return []
    out = []
    for m in _CLOCK_RE.finditer(claim):
        half = m.group(4)
        if half is not None:
            t = _minutes(int(m.group(1) + m.group(2)), int(m.group(3) or 0), half)
        else:
            t = _minutes(int(m.group(1) + m.group(5)), int(m.group(6)), None)
        if t not in times and (t + 24 * 60) % (24 * 60) not in times:
            out.append(f"time_missing:{m.group(0).strip().rstrip('.')}")
    return out[:3]
