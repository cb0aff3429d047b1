"""units.py: the memoised figures of evidence texts are the figures a scan finds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.text import units
from monitor.text.units import (
    _evidence_quantities,
    _quantities,
    clear_quantity_cache,
    same_quantities,
    unit_mismatch,
)

PIECES = [
    *("500", "1,500", "1.5", "12", "0.5", "4.2", "90", " ", "  ", "mg", "g", "kg", "km", "%"),
    *("percent", "per cent", "percentage points", "minutes", "hours", "billion", "MG", "Km"),
    *("x", ".", ",", "-", "é", "the dose was ", "\n"),
]
texts = st.lists(st.sampled_from(PIECES), max_size=80).map("".join)


@pytest.fixture(autouse=True)
def _cold() -> Iterator[None]:
    clear_quantity_cache()
    yield
    clear_quantity_cache()


@settings(max_examples=300)
@given(texts)
def test_memoised_figures_are_the_scan_s(text: str) -> None:
    for t in (text, text * 10):  # short and (mostly) long enough to be held
        for _ in range(2):  # cold, then a hit for a long text
            assert list(_evidence_quantities(t)) == _quantities(t)


def test_long_evidence_is_scanned_once_and_held_read_only() -> None:
    text = "The tablet holds 500 mg. " * 20
    first = _evidence_quantities(text)
    assert first is _evidence_quantities("".join(["The tablet holds 500 mg. "] * 20))
    assert isinstance(first, tuple) and len(first) == 20
    assert unit_mismatch("It holds 500 g.", [text]) == "500 g vs mg"
    assert same_quantities("It holds 0.5 g.", [text]) == {"0.5"}
    short = "500 mg"
    assert _evidence_quantities(short) is not _evidence_quantities(short)  # not held


def test_a_very_long_text_is_scanned_not_held(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(units, "MEMO_MAX_CHARS", 1_000)
    huge = "The tablet holds 500 mg. " * 41  # 1,025 characters
    assert list(_evidence_quantities(huge)) == _quantities(huge)
    assert units._EVIDENCE_QUANTITIES == {}
    held = huge[:1_000]
    _evidence_quantities(held)
    assert list(units._EVIDENCE_QUANTITIES) == [held]


def test_the_memo_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(units, "MEMO_MAX_ENTRIES", 4)
    docs = [f"Document {i}: " + "it weighs 3 kg and more. " * 10 for i in range(10)]
    for doc in docs:
        _evidence_quantities(doc)
    assert list(units._EVIDENCE_QUANTITIES) == docs[-4:]  # the newest stay
