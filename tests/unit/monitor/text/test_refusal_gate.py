"""The refusal gate's one-scan look for negation parts (monitor/text/refusal_gate.py): true
exactly when one of the parts `_negation_part` searches for is in the text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.text.refusal_gate import _NEGATION_PART_RE, _NEGATION_PARTS, _negation_part
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
