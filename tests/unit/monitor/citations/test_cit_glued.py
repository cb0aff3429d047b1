"""Numeric citations glued to a word (`quality[2].`) versus code indexing (`arr[0]`, `a[i]`)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.records.models import Document
from tests.unit.monitor.citations.helpers import cites, raws

# ids "1".."4" in order, plus "9" as the 5th document: [9] resolves by id, [5] by position
DOCS = (*(Document(id=str(i), text=f"doc {i}") for i in range(1, 5)), Document(id="9", text="x"))


def glued(text: str) -> list[str]:
    return raws(text, documents=DOCS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("high illumination quality[2].", ["[2]"]),
        ("quality[2]", ["[2]"]),
        ("energy-efficient LEDs[1][4] last longer.", ["[1]", "[4]"]),
        ("sustained during battle in 339[1].", ["[1]"]),
        ("the well-known[3], cheap option", ["[3]"]),
        ("(see quality[2]) and more", ["[2]"]),
        ('he called it "brutal[4]".', ["[4]"]),
        ("by id quality[9]; by position quality[5].", ["[9]", "[5]"]),
        ("ranges too: quality[1-3].", ["[1-3]", "[1-3]", "[1-3]"]),
        ("Ärzte[1] und Straße[2]!", ["[1]", "[2]"]),
    ],
)
def test_glued_numeric_bracket_after_a_prose_word_is_a_citation(
    text: str, expected: list[str]
) -> None:
    assert glued(text) == expected


def test_glued_citation_fields_match_a_spaced_one() -> None:
    (g,) = cites("quality[2].", documents=DOCS)
    (s,) = cites("quality [2].", documents=DOCS)
    assert (g.format, g.number, g.raw, g.group) == (s.format, s.number, s.raw, s.group)
    assert (g.start, g.end) == (7, 10)


@pytest.mark.parametrize(
    "text",
    [
        "arr[0] is the first",  # 0 never resolves
        "quality[6].",  # neither an id nor a position of the 5 documents
        "quality[1, 7].",  # every number must resolve
        "a[i] and a[1] and m[1][2]",  # not numeric; one-letter names are code
        "obj.items[1] and x_1[2] and arr2[3] and J.L[4]",  # not plain words
        "items[1].size and items[1](x) and items[1]x",  # code goes on after the bracket
        "items[1] = 2, items[2] += 1, items[3] == 4, items[4]<5",  # assignment, comparison
        "items[1][2].size",  # a chain that goes on as code
        "`quality[2]` and\n```\nquality[3].\n```\n",  # code spans and fences stay code
        "quality\\[2].",  # escaped
        "x" * 70 + "[1].",  # no word is that long
    ],
)
def test_code_indexing_and_unresolvable_glued_brackets_are_not_citations(text: str) -> None:
    assert glued(text) == []


def test_glued_rule_needs_documents_to_resolve_against() -> None:
    assert raws("quality[1].", documents=()) == []
    assert raws("quality [1].") == ["[1]"]  # spaced brackets are citations even if they fail


@given(
    word=st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2),
    n=st.integers(min_value=0, max_value=12),
    end=st.sampled_from(["", ".", ". Next", ", and", "[1]"]),
)
def test_glued_word_citation_iff_it_resolves(word: str, n: int, end: str) -> None:
    found = glued(f"Some {word}[{n}]{end}")
    assert (f"[{n}]" in found) == (1 <= n <= 5 or n == 9)


@given(
    name=st.from_regex(r"[a-z]{1,8}(?:_[a-z0-9]{1,4}|[0-9]{1,3}|\.[a-z]{1,6})", fullmatch=True),
    n=st.integers(min_value=1, max_value=5),
)
def test_glued_identifiers_stay_code(name: str, n: int) -> None:
    assert glued(f"value {name}[{n}] here") == []
