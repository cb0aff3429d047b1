"""The refusal gate's one-scan look for negation parts (monitor/text/refusal_gate.py): true
exactly when one of the parts `_negation_part` searches for is in the text; its literal-first
negation-word scan: the same first word as the `\\b`-first scan it replaced, the same decisions."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.text.refusal_gate import (
    _ASCII_WORD_RE,
    _GATE_RE,
    _NEGATION_PART_RE,
    _NEGATION_PARTS,
    _OTHER_NEGATIONS,
    _OTHER_NEGATIONS_RE,
    _TOPIC_WORDS,
    _negation_part,
    _worth_a_look,
)
from tests.conftest import dev_sentences

# the parts, pieces of them (a look-behind that reads one letter too few or too many shows) and
# the anchor letters alone
PIECES = [
    *_NEGATION_PARTS,
    *(p[1:] for p in _NEGATION_PARTS),
    *(p[:-1] for p in _NEGATION_PARTS),
    *("n", "k", "m", "b", "u", "y", "f", "h", "p", "g", "o", "e", " ", "’", "'", "é", "N"),
]
texts = st.one_of(
    st.text(),
    st.text(alphabet="nokmbuyfhpgeatcdilsrv '’é"),
    st.lists(st.sampled_from(PIECES), max_size=10).map("".join),
)


def _regex_look(text: str) -> bool:
    return _NEGATION_PART_RE.search(text) is not None


@settings(max_examples=1500)
@given(texts)
def test_the_one_scan_look_is_the_substring_look(text: str) -> None:
    for t in (text, " " + text.lower()):
        assert _regex_look(t) == _negation_part(t), t


def test_every_part_alone_and_in_a_word() -> None:
    for part in _NEGATION_PARTS:
        for text in (part, "x" + part + "x", part[1:], part[:-1], part[:-1] + "x" + part[-1]):
            assert _regex_look(text) == _negation_part(text), text


def test_the_dev_sets_sentences() -> None:
    seen = 0
    for sentence in dev_sentences():
        low = " " + sentence.lower()
        expected = _negation_part(low)
        assert _regex_look(low) == expected, low
        seen += expected
    assert seen > 500


# the gate's negation-word scan as it was written before its alternatives opened with a literal
# letter: `\b` first, an English word in group 1 or 2, another language's in no group
_OLD_GATE_RE = re.compile(
    r"\b(no|not|cannot|unable|lacks?|insufficient|limited|none|beyond|outside|sorry|difficult"
    r"|hard|impossible)\b|(n['’]t)\b|\b(?:" + "|".join(sorted(_OTHER_NEGATIONS)) + r")\b"
)


def _old_worth_a_look(text: str) -> bool:
    if not text.isascii():
        return True
    low = " " + text.lower()
    if _NEGATION_PART_RE.search(low) is None:
        return False
    for m in _OLD_GATE_RE.finditer(low):
        if m.lastindex is None:
            return True
        if not _TOPIC_WORDS.isdisjoint(_ASCII_WORD_RE.findall(low)):
            return True
        return _OTHER_NEGATIONS_RE.search(low, m.end()) is not None
    return False


def _first(rx: re.Pattern[str], low: str) -> tuple[bool, int] | None:
    m = rx.search(low)
    return None if m is None else (m.lastindex is not None, m.end())


WORDS = [
    *_OTHER_NEGATIONS,
    *[
        "no",
        "not",
        "none",
        "cannot",
        "unable",
        "lack",
        "lacks",
        "insufficient",
        "limited",
        "impossible",
        "beyond",
        "outside",
    ],
    *["sorry", "difficult", "hard", "n't", "n’t", "data", "passage", "text", "i"],
]
gate_texts = st.one_of(
    st.text(),
    st.text(alphabet="nokmbuyfhpgeatcdilsrv '’(.é"),
    st.lists(
        st.one_of(st.sampled_from(WORDS), st.sampled_from(PIECES), st.sampled_from(" (.'x9_")),
        max_size=12,
    ).map("".join),
)


@settings(max_examples=2000)
@given(gate_texts)
def test_the_literal_first_gate_finds_the_old_first_negation(text: str) -> None:
    low = " " + text.lower()
    assert _first(_GATE_RE, low) == _first(_OLD_GATE_RE, low), low
    assert _worth_a_look(text) == _old_worth_a_look(text), text


def test_the_gate_keeps_its_decisions_on_the_dev_sets_sentences() -> None:
    seen = 0
    for sentence in dev_sentences():
        low = " " + sentence.lower()
        assert _first(_GATE_RE, low) == _first(_OLD_GATE_RE, low), low
        assert _worth_a_look(sentence) == _old_worth_a_look(sentence), sentence
        seen += _worth_a_look(sentence)
    assert seen > 100


def test_the_gate_keeps_its_known_misses() -> None:
    # the patterns match both, the gate lets neither through; kept as they were
    for text in (
        "This is beyond the scope of the study.",
        "Sadly (no information is provided) here.",
    ):
        assert _worth_a_look(text) is False
