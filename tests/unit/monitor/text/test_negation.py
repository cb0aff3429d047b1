"""The negation cue: what denies a predicate, and what only looks like it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks.contrast import contrasts
from monitor.checks.contrast_negation import negated
from monitor.text import negation
from monitor.text.negation import NEGATION_LOWER_RE, NEGATION_RE
from monitor.text.sentences import split_sentences
from tests.conftest import SHARED


@pytest.mark.parametrize(
    "text",
    [
        "The army had tried -- and failed -- to retake the city.",
        "It failed, to nobody's surprise, to win.",
        "He was convicted of failure to report abuse.",
        "The shop does not open on Sundays.",
        "They haven't paid.",
    ],
)
def test_negations(text: str) -> None:
    assert NEGATION_RE.search(text)


@pytest.mark.parametrize(
    "text",
    [
        "Pay depends on whether or not they are paid on commission.",
        "How they are paid (commission or not) matters.",
        "It is not clear if they plan to testify.",
        "It wasn't immediately clear how many people died.",
        "Not only the price but also the size changed.",
    ],
)
def test_alternatives_and_hedges_are_no_negation(text: str) -> None:
    assert NEGATION_RE.search(text) is None


def test_failed_between_dashes_is_the_same_failure() -> None:
    source = "The army, which had tried -- and failed -- to retake the city, regrouped in May."
    assert "negation_mismatch" not in contrasts(
        "The army, which had previously failed to retake the city, regrouped in May.",
        [source],
        False,
    )


def test_a_cue_in_another_clause_does_not_negate() -> None:
    source = "That part was never disputed: the university is under investigation for its handling."
    assert "negation_mismatch" not in contrasts(
        "The university is under investigation for its handling.", [source], False
    )
    flipped = "The university is not under investigation for its handling."
    assert "negation_mismatch" in contrasts(flipped, [source], False)


def test_a_missing_space_after_a_sentence_still_ends_it() -> None:
    from monitor.checks.contrast_sentences import sentences_of

    got = [
        s.text
        for s in sentences_of(
            "Not essential to obtain from your diet.These include X. The U.S.A grew 4.2 pct."
        )
    ]
    assert got == [
        "Not essential to obtain from your diet.",
        "These include X.",
        "The U.S.A grew 4.2 pct.",
    ]


# --- the lower-case pattern: the case-insensitive one on a lower-cased ASCII text ------------


def _spans(rx: re.Pattern[str], text: str, start: int = 0, end: int | None = None) -> list[Any]:
    stop = len(text) if end is None else end
    return [m.span() for m in rx.finditer(text, start, stop)]


def test_the_pattern_text_has_no_upper_case_letter() -> None:
    # re.I then changes nothing but the case of the text: an ASCII text lowered is matched alike
    assert re.search("[A-Z]", negation._NEGATION) is None
    assert NEGATION_LOWER_RE.pattern == NEGATION_RE.pattern
    assert not NEGATION_LOWER_RE.flags & re.I


_PIECES = [
    *("No", "NOT", "not", "never", "Never", "none", "nor", "Or not", "or Not", "can't", "CAN'T"),
    *("don’t", "cannot", "Unable", "unlikely", "denied", "DENIES", "failed -- to", "Failures"),
    *("fails, to", "lack", "without", "impossible", "hardly", "rarely", "seldom", "absent"),
    *("x_no", "snow", "only", "Only", "clear", "CLEAR", "immediately known", "to", "2023", "n't"),
    *("n'T", "é", "K", "ſeldom", "İt"),
]
_SEPARATORS = [" ", "", "_", "-", ". ", ", ", "'", "\n", "(", "9", "  ", "—"]


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_PIECES), st.sampled_from(_SEPARATORS)), max_size=10),
    st.integers(0, 40),
    st.integers(0, 40),
)
def test_same_cues_on_random_text(parts: list[tuple[str, str]], a: int, b: int) -> None:
    text = "".join(p + s for p, s in parts)
    start, end = min(a, b, len(text)), min(max(a, b), len(text))
    if text.isascii():
        assert _spans(NEGATION_LOWER_RE, text.lower(), start, end) == _spans(
            NEGATION_RE, text, start, end
        )
        assert negated(text, start, end) == _old_negated(text[:end], start)


def _old_negated(text: str, start: int = 0) -> bool:
    """`negated` on the case-insensitive pattern: a non-ASCII character past the end it reads
    takes that path and changes no cue (the engine sees nothing past `end`)."""
    return negated(text + "—", start, len(text))


def test_same_cues_on_the_dev_sets_sentences() -> None:
    seen = 0
    for name in ("ragtruth", "expertqa", "wice"):
        with open(SHARED / "eval" / "dev" / f"{name}-dev.events.jsonl", encoding="utf-8") as fh:
            for line in fh:
                event = json.loads(line)
                texts = [event["answer"]] + [
                    d.get("text") or "" for d in event.get("documents", [])
                ]
                for answer in texts:
                    for s in split_sentences(answer, []):
                        text = answer[s.start : s.end]
                        if not text.isascii():
                            continue
                        spans = _spans(NEGATION_RE, text)
                        assert _spans(NEGATION_LOWER_RE, text.lower()) == spans, text
                        assert negated(text) == _old_negated(text), text
                        seen += bool(spans)
    assert seen > 500
