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


def _removed_before(text: str) -> str:
    """source_references_removed as it was before its shortcuts (kept to compare with)."""
    if re.compile(r"\d").search(text) is None:
        return text
    low = text.lower()
    if any(word in low for word in references._ITEM_WORDS):
        text = references._ITEM_RE.sub("", text)
    if any(word in low for word in references.SOURCE_NAMES):
        text = references._SOURCE_NUMBER_RE.sub(r"\1", text)
    return text


_ODD_WORDS = [*_WORDS, "ſtep", "STEP", "İtem", "Passage", "é", "٣", "(", "Step 2.", "\n"]


@given(st.lists(st.sampled_from(_ODD_WORDS), max_size=12).map(" ".join))
def test_the_same_as_before_the_shortcuts(text: str) -> None:
    assert source_references_removed(text) == _removed_before(text)
    assert source_references_removed(text.strip()) == _removed_before(text.strip())


def test_a_long_s_label_stays_as_before() -> None:
    # re.I reads "ſtep" as "step", but its lower() holds no "step": the label was never cut
    assert source_references_removed("ſtep 1: Mix 200 g.") == "ſtep 1: Mix 200 g."
