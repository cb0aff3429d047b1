"""The refusal pattern's look-ahead (`_ABSTAIN_START`) holds wherever one of its patterns can
match, so it changes no match: by the patterns' structure, and on text. Where
`may_be_other_language` is false, no other language's pattern matches, so the English ones alone
find the same."""

from __future__ import annotations

import re
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.text.refusal_patterns import (
    _ABSTAIN,
    _ABSTAIN_EN_LOWER_RE,
    _ABSTAIN_LOWER_RE,
    _ABSTAIN_RE,
    _ABSTAIN_START,
    _CJK,
    _CJK_RE,
    _DE_NL,
    _EN,
    _ES_PT,
    _FR,
    _IT,
    _LATIN,
    may_be_other_language,
)
from tests.conftest import dev_sentences

PLAIN = re.compile("|".join(f"(?:{p})" for p in _LATIN), re.I)  # without the look-ahead
ALLOWED = {"BEGIN", "BOUNDARY_WORD", ".", ":", ";", "d"}  # what _ABSTAIN_START lets through


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _starts(items: list[Any]) -> tuple[set[str] | None, bool]:
    """How a match of the sequence `items` can start (first characters, "BEGIN" for `^`,
    "BOUNDARY_WORD" for `\\b` then a word character) and whether it can be empty; None when
    this walker cannot tell."""
    kinds: set[str] = set()
    for i, (op, av) in enumerate(items):
        if op is C.AT and av is C.AT_BEGINNING:
            kinds.add("BEGIN")
            return kinds, False
        if op is C.AT and av is C.AT_BOUNDARY:
            rest, empty = _starts(items[i + 1 :])
            if rest is None or empty or not all(len(k) == 1 and _is_word(k) for k in rest):
                return None, False
            kinds.add("BOUNDARY_WORD")
            return kinds, False
        if op is C.LITERAL:
            kinds.add(chr(av))
            return kinds, False
        if op is C.IN:
            for o, a in av:
                if o is not C.LITERAL:
                    return None, False
                kinds.add(chr(a))
            return kinds, False
        if op is C.SUBPATTERN:
            sub, empty = _starts(list(av[3]))
        elif op is C.BRANCH:
            sub, empty = set(), False
            for alt in av[1]:
                s, e = _starts(list(alt))
                if s is None:
                    return None, False
                sub |= s
                empty = empty or e
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
            sub, empty = _starts(list(av[2]))
            empty = empty or av[0] == 0
        else:
            return None, False
        if sub is None:
            return None, False
        kinds |= sub
        if not empty:
            return kinds, False
    return kinds, True


def test_every_pattern_starts_where_the_look_ahead_lets_it() -> None:
    assert _ABSTAIN_START == r"(?=\b\w|^|[.:;d])"  # ALLOWED above names these cases
    for pattern in _LATIN:
        kinds, empty = _starts(list(P.parse(pattern, re.I).data))
        assert kinds is not None and not empty, pattern
        assert kinds <= ALLOWED, (pattern, kinds - ALLOWED)


def test_the_walker_can_fail() -> None:
    for pattern, ok in ((r"\bno\s+data", True), (r"\s+not", False), (r"x?", False)):
        kinds, empty = _starts(list(P.parse(pattern, re.I).data))
        assert (kinds is not None and not empty and kinds <= ALLOWED) is ok, pattern


def _spans(rx: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in rx.finditer(text)]


def test_same_matches_on_the_dev_sets_sentences() -> None:
    found = 0
    for text in dev_sentences():
        spans = _spans(PLAIN, text)
        assert _spans(_ABSTAIN_RE, text) == spans, text
        if text.isascii():
            assert _spans(_ABSTAIN_LOWER_RE, text.lower()) == spans, text
            assert not _spans(_CJK_RE, text)
        found += bool(spans)
    assert found > 50  # the comparison saw refusals, not only misses


_FRAGMENTS = st.sampled_from(
    [
        "the passages",
        "do not",
        "does not",
        "Did not",
        "don't",
        "didn’t",
        "provide",
        "mention",
        "information",
        "no information",
        "cannot",
        "answer",
        "context",
        "there is",
        "not",
        "enough",
        "ne",
        "pas",
        "nicht",
        "keine",
        "Informationen",
        "no",
        "hay",
        "información",
        "unfortunately,",
        "However",
        "redo",
        "undone",
        "ſ",
        "K",
        "İ",
        "é",
        "_",
        "1",
    ]
)
_SEPARATORS = st.sampled_from([" ", "  ", ". ", ": ", ";", ",", "", "\n", "’", "-"])


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(_FRAGMENTS, _SEPARATORS), max_size=14))
def test_same_matches_on_random_text(parts: list[tuple[str, str]]) -> None:
    text = "".join(a + b for a, b in parts)
    spans = _spans(PLAIN, text)
    assert _spans(_ABSTAIN_RE, text) == spans
    if text.isascii():
        assert _spans(_ABSTAIN_LOWER_RE, text.lower()) == spans


def test_the_lower_case_pattern_is_the_case_insensitive_one() -> None:
    # its letters are all lower case (escapes such as \S aside): re.I then changes nothing but
    # the case of the text, and an ASCII text lowered keeps its offsets and word boundaries
    letters = re.sub(r"\\.", "", _ABSTAIN)
    assert letters == letters.lower()
    assert _ABSTAIN_LOWER_RE.pattern == _ABSTAIN_RE.pattern
    assert not _ABSTAIN_LOWER_RE.flags & re.I


def test_no_chinese_or_japanese_pattern_matches_ascii() -> None:
    # literals and groups only, every literal non-ASCII: a match holds no ASCII character
    for pattern in _CJK:
        literals = re.sub(r"\(\?:|[()|?]", "", pattern)
        assert literals and not any(c.isascii() for c in literals), pattern


# every other language's pattern but the one that opens with "não", which no ASCII text holds
_OTHER_LANGUAGES = [p for p in (*_FR, *_ES_PT, *_IT, *_DE_NL) if not p.startswith(r"\bnão")]
_LOWER_ASCII = st.characters(codec="ascii", categories=["Ll", "Zs", "Cc", "Po", "Nd"])


def test_the_english_patterns_are_the_first_ones() -> None:
    assert _LATIN[: len(_EN)] == tuple(_EN)
    assert len(_OTHER_LANGUAGES) == len(_LATIN) - len(_EN) - 1


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_text_another_language_matches_holds_one_of_its_words(data: st.DataObject) -> None:
    # a text of lower-case ASCII generated to match each pattern (a pattern with an accented
    # word no ASCII text holds aside: none matches ASCII)
    for pattern in _OTHER_LANGUAGES:
        rx = re.compile(pattern)
        text = data.draw(st.from_regex(rx, alphabet=_LOWER_ASCII))
        assert rx.search(text) is not None
        assert may_be_other_language(text), (pattern, text)


def test_english_alone_on_the_dev_sets_sentences() -> None:
    others = [re.compile(p) for p in _OTHER_LANGUAGES]
    english_only = 0
    for sentence in dev_sentences():
        if not sentence.isascii():
            continue
        low = sentence.lower()
        if not may_be_other_language(low):
            english_only += 1
            assert not any(rx.search(low) for rx in others), low
            assert _spans(_ABSTAIN_EN_LOWER_RE, low) == _spans(_ABSTAIN_LOWER_RE, low), low
    assert english_only > 1000


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(_FRAGMENTS, _SEPARATORS), max_size=14))
def test_english_alone_on_random_text(parts: list[tuple[str, str]]) -> None:
    low = "".join(a + b for a, b in parts).lower()
    if low.isascii() and not may_be_other_language(low):
        assert _spans(_ABSTAIN_EN_LOWER_RE, low) == _spans(_ABSTAIN_LOWER_RE, low), low
