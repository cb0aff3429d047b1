"""Source references and list labels: their numbers leave the claim, their words stay."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from monitor.text import references
from monitor.text.references import source_references_removed


def test_hand_written_references_and_labels() -> None:
    assert source_references_removed("According to passage 1, sales rose 5%.") == (
        "According to passage , sales rose 5%."
    )
    assert source_references_removed("(Passage 2 & 3) The plant opened in 1990.") == (
        "(Passage ) The plant opened in 1990."
    )
    assert source_references_removed("Step 6: Mix 200 g of flour.") == "Mix 200 g of flour."
    assert (
        source_references_removed("Documents #4, 5 and 6 agree.") == "Documents  agree."
    )  # the word keeps its space
    # a figure that names no source stays
    assert source_references_removed("The referendum of 2016 passed.") == (
        "The referendum of 2016 passed."
    )


_WORDS = [
    "passage",
    "Docs",
    "document",
    "References",
    "source",
    "results",
    "Step",
    "tip",
    "referendum",
    "sourced",
    "of",
    "and",
    "#",
    ":",
    ",",
    "&",
    "-",
    "to",
    "7",
    "12",
    "2016",
]


@given(st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join))
def test_the_quick_looks_only_skip_texts_the_patterns_cannot_change(text: str) -> None:
    # the substring looks before each substitution are a shortcut: the result is the two
    # substitutions applied unconditionally
    plain = re.compile(r"\d").search(text) is None
    expected = text if plain else references._ITEM_RE.sub("", text)
    if not plain:
        expected = references._SOURCE_NUMBER_RE.sub(r"\1", expected)
    assert source_references_removed(text) == expected
