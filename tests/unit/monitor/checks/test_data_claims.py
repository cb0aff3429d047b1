"""data_claims.py's fast paths against the patterns they replace: the clause cuts of an ASCII
claim read case-sensitively in its lower-cased text, the literal-first clock pattern, the digit
test before it."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks.data_claims import (
    _ASCII_CLAUSE_RE,
    _CLAUSE_RE,
    _CLOCK_RE,
    _clauses,
    attribute_conflicts,
    attributes,
    time_conflicts,
)
from monitor.checks.data_text import data_lines
from tests.conftest import dev_sentences

# the patterns as they were written before their fast forms
PLAIN_CLAUSE_RE = re.compile(
    r"[;.!?]|\b(?:but|while|whereas|although|though|however|yet|despite|except)\b"
    r"|,\s*(?:and\s+)?(?:it|they|he|she|we|you|the|this|there|a|an|its|their)\b"
    r"|\band\s+(?:it|they|is|are|has|have|had|offers?|provides?|accepts?|serves?|takes?|"
    r"features?|includes?|allows?|does|do)\b",
    re.I,
)
PLAIN_CLOCK_RE = re.compile(
    r"\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?|\b([01]?\d|2[0-3]):([0-5]\d)\b", re.I
)

CLAUSE_PIECES = [
    *("but", "But", "BUT", "while", "whereas", "although", "Though", "however", "yet", "despite"),
    *("except", "and", "AND", "it", "they", "offers", "offer", "has", "do", "does", "the", "an"),
    *("a", "its", "their", "there", "this", "we", "you", "he", "she", "is", "are", "takes"),
    *("xbut", "butx", "handle", "athough", "_and", "and_", "wifi", "é", "ſ", "K", "2"),
]
SEPARATORS = [" ", "  ", ", ", ",", ". ", ";", "!", "?", "\t", "\n", "-", ""]
texts = st.lists(
    st.one_of(st.sampled_from(CLAUSE_PIECES), st.sampled_from(SEPARATORS)), max_size=14
).map("".join)


def _plain_clauses(text: str) -> list[str]:
    out, at = [], 0
    for m in PLAIN_CLAUSE_RE.finditer(text):
        out.append(text[at : m.start()])
        at = m.end()
    out.append(text[at:])
    return [c for c in out if c.strip()]


def _spans(pattern: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in pattern.finditer(text)]


def test_the_case_insensitive_clause_pattern_is_the_plain_one() -> None:
    assert _CLAUSE_RE.pattern == PLAIN_CLAUSE_RE.pattern
    assert _CLAUSE_RE.flags == PLAIN_CLAUSE_RE.flags


@settings(max_examples=1500)
@given(texts)
def test_ascii_clause_cuts_are_the_plain_pattern_s(text: str) -> None:
    expected = _spans(PLAIN_CLAUSE_RE, text)
    if text.isascii():
        assert _spans(_ASCII_CLAUSE_RE, text.lower()) == expected, text
        assert _clauses(text, text.lower()) == _plain_clauses(text)
    assert _clauses(text) == _plain_clauses(text)


def test_ascii_clause_cuts_on_hand_picked_text() -> None:
    for text in (
        "It has WiFi, but no parking.",
        "Although busy,it offers seating; however, AND they serve beer!",
        "a handful of breads and it is butter-free yet tasty, the end",
        "Except here, and does so? whereas though",
    ):
        assert _spans(_ASCII_CLAUSE_RE, text.lower()) == _spans(PLAIN_CLAUSE_RE, text), text


def test_ascii_clause_cuts_on_the_dev_sets_sentences() -> None:
    cut = 0
    for sentence in dev_sentences():
        if sentence.isascii():
            expected = _spans(PLAIN_CLAUSE_RE, sentence)
            assert _spans(_ASCII_CLAUSE_RE, sentence.lower()) == expected, sentence
            cut += len(expected) > 1
    assert cut > 1000


def _plain_times(text: str) -> list[tuple[tuple[int, int], int, int, str | None]]:
    out = []
    for m in PLAIN_CLOCK_RE.finditer(text):
        if m.group(3) is not None:
            out.append((m.span(), int(m.group(1)), int(m.group(2) or 0), m.group(3)))
        else:
            out.append((m.span(), int(m.group(4)), int(m.group(5)), None))
    return out


def _times(text: str) -> list[tuple[tuple[int, int], int, int, str | None]]:
    out = []
    for m in _CLOCK_RE.finditer(text):
        if m.group(4) is not None:
            out.append((m.span(), int(m.group(1) + m.group(2)), int(m.group(3) or 0), m.group(4)))
        else:
            out.append((m.span(), int(m.group(1) + m.group(5)), int(m.group(6)), None))
    return out


CLOCK_PIECES = [
    *("0", "1", "2", "3", "5", "9", "10", "12", "19", "23", "24", "29", "123", ":", ":0", ":30"),
    *(":5", ":60", "a", "p", "m", "A", "P", "M", ".", " ", "  ", "\t", "am", "PM", "a.m."),
    *("p.m", "x", "_", "٣", "é", "-", "K", "ı"),
]
clock_texts = st.lists(st.sampled_from(CLOCK_PIECES), max_size=12).map("".join)


@settings(max_examples=2000)
@given(clock_texts)
def test_the_literal_first_clock_pattern_is_the_plain_one(text: str) -> None:
    assert _times(text) == _plain_times(text), text


def test_the_clock_pattern_on_hand_picked_times() -> None:
    for text in ("11am", "10:30 p.m.", "17:00", "9:30", "23:45", "1:30", "24:00", "x10am", "7 PM"):
        assert _times(text) == _plain_times(text), text
        assert _times(f"open {text}, till 9pm") == _plain_times(f"open {text}, till 9pm")


def test_no_other_character_folds_to_the_clock_letters() -> None:
    # re.I let "a", "p" and "m" match whatever folds to them; the fast pattern names the cases
    for cp in range(0x110000):
        ch = chr(cp)
        for letter in "apm":
            if re.fullmatch(letter, ch, re.I):
                assert ch in (letter, letter.upper()), hex(cp)


def test_the_clock_pattern_on_the_dev_sets_sentences() -> None:
    timed = 0
    for sentence in dev_sentences():
        expected = _plain_times(sentence)
        assert _times(sentence) == expected, sentence
        timed += bool(expected)
    assert timed > 20


RECORD = {
    "attributes": {
        "OutdoorSeating": True,
        "RestaurantsReservations": False,
        "WiFi": "no",
        "Music": None,
    },
    "hours": {"Monday": "17:30-23:0"},
}


def test_conflicts_read_the_same_in_any_case() -> None:
    attrs = attributes(data_lines(RECORD))
    for claim in (
        "It does not offer outdoor seating, but it takes reservations.",
        "IT DOES NOT OFFER OUTDOOR SEATING, BUT IT TAKES RESERVATIONS.",
        "It offers WiFi and live music; there is no outdoor seating.",
        "Café: no outdoor seating, but it takes reservations.",  # not ASCII: the re.I patterns
    ):
        found = attribute_conflicts(claim, attrs)
        assert found, claim
        assert found == attribute_conflicts(claim.lower(), attrs)


def test_times_without_digits_are_not_read() -> None:
    times = frozenset({17 * 60 + 30})
    assert time_conflicts("Open from five thirty pm", times) == []
    assert time_conflicts("Open from 5:30 PM", times) == []
    assert time_conflicts("Open from 6 P.M.", times) == ["time_missing:6 P.M"]
    assert time_conflicts("Opens at ٥:30 pm", times) == []  # an Arabic-Indic digit is \d too
