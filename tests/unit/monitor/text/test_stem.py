"""The stemmer against the suffix loop it replaced (kept here as the reference): trying only the
suffixes that end in a word's last letter stems every word the same."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.text.words import _SUFFIXES, _stem


def _reference_stem(word: str) -> str:
    """_stem as first written: every suffix tried in turn."""
    if len(word) <= 3 or not word.isalpha():
        return word
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied", "ities"):
                base += "i"
            elif suffix in ("ations", "ation", "ational"):
                base += "at"
            elif suffix in ("izations", "ization"):
                base += "iz"
            elif suffix == "s" and base.endswith(("s", "u", "i")):
                return word
            word = base
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
        word = word[:-1]
    if word.endswith("y") and len(word) > 3:
        word = word[:-1] + "i"
    return word


# stems and suffixes glued together: every suffix, and the short stems the length rules are about
_PIECES = ["a", "ab", "val", "valid", "stud", "glass", "statu", "run", "é", *_SUFFIXES, "e", "y"]
stem_words = st.one_of(
    st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4).map("".join),
    st.text(alphabet="abeilnorstuyz", max_size=12),
    st.text(max_size=8),
)


@settings(max_examples=1000)
@given(stem_words)
def test_the_stemmer_is_the_reference(word: str) -> None:
    assert _stem(word) == _reference_stem(word)


def test_known_stems() -> None:
    for word, expected in {
        "validation": "validat",
        "validated": "validat",
        "studies": "studi",
        "running": "run",
        "glass": "glass",
        "organizations": "organiz",
    }.items():
        assert _stem(word) == _reference_stem(word) == expected
