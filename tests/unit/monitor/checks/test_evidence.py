"""Claim terms and the stemmer against the code they replaced (kept here as the reference, not
in monitor/): the faster paths give the same results."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.checks.evidence import GENERIC_CODE_WORDS, ClaimTerms, _pairs, claim_terms
from monitor.text.numbers import numbers
from monitor.text.words import NUMBER_STRINGS, STEMS, identifiers, separate, words
from tests.conftest import dev_sentences

_CAMEL_RE = re.compile(r"[a-z][A-Z]")


def _reference_claim_terms(text: str) -> ClaimTerms:
    """claim_terms as it was before names and identifier parts were read without a pass over
    the tokens."""
    separated = separate(text)
    cased = separated.split()
    if text.isascii():
        lowered = separated.lower()
        tokens = lowered.split()
        if not NUMBER_STRINGS.keys().isdisjoint(tokens):
            tokens = [NUMBER_STRINGS.get(t, t) for t in tokens]
        first = separated.index(cased[0]) + len(cased[0]) if cased else 0
        upper_after_first = separated[first:] != lowered[first:]
        upper = upper_after_first or separated[1:first] != lowered[1:first]
    else:
        tokens = words(text)
        upper = upper_after_first = True
    capitalised = (
        {
            low
            for t, low in zip(cased[1:], tokens[1:], strict=False)
            if t[0].isupper() and not t.isupper()
        }
        if upper_after_first
        else set()
    )
    code_hint = "_" in text or "`" in text or (upper and _CAMEL_RE.search(text) is not None)
    ids = identifiers(text) if code_hint else []
    id_parts = {w for name in ids for w in words(name)}
    stems = [STEMS[t] for t in tokens]
    terms = {
        key
        for token, key in zip(tokens, stems, strict=True)
        if key and token not in GENERIC_CODE_WORDS and not token.isdecimal()
    }
    heavy: set[str] = set()
    names: set[str] = set()
    for token, key in zip(tokens, stems, strict=True):
        if not key or token.isdecimal() or token in GENERIC_CODE_WORDS:
            continue
        if token in capitalised:
            heavy.add(key)
            names.add(key)
        elif token in id_parts:
            heavy.add(key)
    return ClaimTerms(
        text,
        frozenset(terms),
        frozenset(heavy),
        frozenset(names),
        frozenset(_pairs(stems)),
        tuple(ids),
        tuple(numbers(text)),
    )


CLAIM_WORDS = [
    *("Paris", "paris", "PARIS", "The", "the", "Five", "five", "5", "2023", "Value", "value"),
    *("valued", "iPhone", "McDonald", "snake_case", "`get_value`", "camelCase", "Revenue"),
    *("NASA", "U.S.", "Straße", "İstanbul", "Café", "grew", "names", "Names", "a", "of", "One"),
    *(",", ".", "(", ")", "-", "'", "Function", "function", "x1", "A1", "Ab1", "\t", "\x1c"),
]
claim_texts = st.one_of(
    st.lists(st.sampled_from(CLAIM_WORDS), max_size=16).map(" ".join),
    st.lists(st.sampled_from(CLAIM_WORDS), max_size=8).map("".join),
    st.text(max_size=40),
)


@settings(max_examples=500)
@given(claim_texts)
def test_claim_terms_are_the_reference(text: str) -> None:
    assert claim_terms(text) == _reference_claim_terms(text)


def test_capitalised_words_found_by_one_scan_are_the_split_tokens() -> None:
    # every white space str.split() cuts at, before a capitalised word (the ASCII scan's \s)
    for space in (" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x1f"):
        text = f"Rome{space}Paris and{space}  Berlin{space}NASA{space}Five grew"
        assert claim_terms(text).names == _reference_claim_terms(text).names != frozenset()
    for text in dev_sentences():
        assert claim_terms(text) == _reference_claim_terms(text), text
