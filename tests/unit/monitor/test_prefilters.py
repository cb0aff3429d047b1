"""Cheap tests that decide when a regex or a second look-up can be skipped agree with the
plain definitions they stand in for: the digit test of `numbers`, the marker test of sentence
splitting, the one word-list look-up of `classify_claim`, the meta-phrase test and word count
of `is_claim` and the last-window memo of `value_stated`. Checked on generated text and on the
dev sets' answers and sentences."""

from __future__ import annotations

import json
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from monitor.checks.claims import (
    _ABSTRACTIVE_WORDS,
    _EXTRACTIVE_RE,
    _EXTRACTIVE_TRIGGERS,
    _META_RE,
    _PUNCTUATION,
    _may_be_meta,
    classify_claim,
    has_words,
)
from monitor.citations import values
from monitor.citations.values import parse_numbers, value_stated
from monitor.records.models import ClaimKind
from monitor.text.numbers import has_digit
from monitor.text.sentences import (
    _EMPTY_ITEM_RE,
    _HEADER_RE,
    _ITEM_RE,
    _SETEXT_RE,
    _TABLE_RE,
    _may_be_marked,
    split_sentences,
)
from monitor.text.words import fold, quotations
from tests.conftest import SHARED

_DEV = ("ragtruth", "expertqa", "wice")


def _dev_answers() -> list[str]:
    answers = []
    for name in _DEV:
        with open(SHARED / "eval" / "dev" / f"{name}-dev.events.jsonl", encoding="utf-8") as fh:
            answers.extend(json.loads(line)["answer"] for line in fh)
    return answers


# ASCII and Unicode digits (Arabic-Indic, full-width), a superscript (isdigit, not \d), letters
_DIGITISH = "ab Z.,0159\n\t٣５²éİ"


@given(st.text(alphabet=_DIGITISH, max_size=40))
def test_has_digit_is_the_digit_search(text: str) -> None:
    assert has_digit(text) == (re.search(r"\d", text) is not None)


# every marker of the five line patterns, digits of two scripts, letters, spaces and the marks
# an "a)" item uses
_LINE = " \t#=-*_+•‣◦|0٣²aZé.)[x]\u00a0"


def _marked(line: str, after_text: bool) -> bool:
    return bool(
        _HEADER_RE.match(line)
        or (after_text and _SETEXT_RE.match(line))
        or _EMPTY_ITEM_RE.match(line)
        or _TABLE_RE.match(line)
        or _ITEM_RE.match(line)
    )


@settings(max_examples=2000)
@given(st.text(alphabet=_LINE, min_size=1, max_size=12))
def test_unmarked_lines_match_no_line_pattern(line: str) -> None:
    if line.strip() and not _may_be_marked(line):
        assert not _marked(line, True), line


def test_unmarked_dev_lines_match_no_line_pattern() -> None:
    marked = 0
    for answer in _dev_answers():
        for line in answer.split("\n"):
            if line.strip():
                if _may_be_marked(line):
                    marked += _marked(line, True)
                else:
                    assert not _marked(line, True), line
    assert marked > 100


def _reference_kind(text: str) -> ClaimKind:
    """classify_claim as first written: each word list asked on its own."""
    lowered = fold(text).split()
    if ("`" in text or not _EXTRACTIVE_TRIGGERS.isdisjoint(lowered)) and _EXTRACTIVE_RE.search(
        text
    ):
        return "extractive"
    if ('"' in text or "“" in text) and quotations(text):
        return "extractive"
    if not _ABSTRACTIVE_WORDS.isdisjoint(lowered):
        return "abstractive"
    return "unknown"


_KIND_PIECES = [
    *("The", "function", "Function", "`parse`", "parse_args", "handles", "provides", "class"),
    *("named", "Foo", "called", "located in", '"a b c"', "“x y z”", "ensures", "design"),
    *("module", "data.", ",", "Stored", "at", "it"),
]


@given(st.lists(st.sampled_from(_KIND_PIECES), max_size=10).map(" ".join))
def test_claim_kind_with_one_word_list_look_up(text: str) -> None:
    assert classify_claim(text) == _reference_kind(text)


def test_claim_kinds_of_the_dev_sentences() -> None:
    kinds: set[str] = set()
    for answer in _dev_answers():
        for s in split_sentences(answer):
            text = answer[s.start : s.end]
            kind = classify_claim(text)
            assert kind == _reference_kind(text), text
            kinds.add(kind)
    assert kinds == {"extractive", "abstractive", "unknown"}


@given(
    st.lists(
        st.sampled_from(["1,200", "3.5k", "12%", "about", "-4", "x", " ", "2.50M"]), max_size=6
    ),
    st.lists(st.sampled_from([1200.0, 3500.0, 0.12, 12.0, -4.0, 2.5e6, 7.0]), max_size=4),
)
def test_value_stated_with_the_parse_memo(pieces: list[str], wanted: list[float]) -> None:
    window = " ".join(pieces)
    other = "it was 7 then"
    for value in wanted:
        for text in (window, other, window):  # the memo switches windows and back
            shown = parse_numbers(text)
            expected = any(values.number_matches(value, s, 0.01) for s in shown) if shown else False
            assert value_stated(value, [text], rel_tol=0.01, min_similarity=0.9) == expected


_META_PIECES = [
    *("this", "This", "THIS", "in", "In", "i", "I", "İ", "ı", "ſee", "see", "note", "Note", ":"),
    *(" ", "\t", "\x1c", "\u00a0", "hope", "Hope", "helps", "let", "me", "know", "feel", "free"),
    *("to", "Sources", "citation", "References", "please", "section", "answer", "The", "It", "x"),
]


@settings(max_examples=2000)
@given(st.lists(st.sampled_from(_META_PIECES), min_size=1, max_size=8).map("".join))
@example("Hope this helps!")
@example("I\x1chope this helps")  # Unicode \s holds \x1c-\x1f
@example("İn this section")  # re.I pairs İ with i
def test_meta_pattern_skipped_only_where_it_cannot_match(body: str) -> None:
    if not _may_be_meta(body):
        assert not _META_RE.match(body), body


@given(st.text(alphabet="ab1 \t\n\x1c\u00a0—-.,!", max_size=24), st.integers(-1, 5))
@example("— —\ta\tb\nc d", 4)
def test_word_count_on_all_white_space(text: str, minimum: int) -> None:
    tokens = text.split()
    count = sum(1 for t in tokens if t.isalnum() or t.strip(_PUNCTUATION))
    assert has_words(text, minimum) == (count >= max(minimum, 1))


def test_meta_and_word_checks_on_the_dev_sentences() -> None:
    skipped = 0
    for answer in _dev_answers():
        for s in split_sentences(answer):
            text = answer[s.start : s.end]
            if not _may_be_meta(text):
                assert not _META_RE.match(text), text
                skipped += 1
            for minimum in (1, 4):
                tokens = text.split()
                count = sum(1 for t in tokens if t.isalnum() or t.strip(_PUNCTUATION))
                assert has_words(text, minimum) == (count >= minimum), text
    assert skipped > 1000
