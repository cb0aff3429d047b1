"""split_sentences' shortcut for one unmarked line agrees with the line walk it skips."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.text.sentences import BlockKind, _protected, _Ranges, _split_prose, split_sentences
from tests.conftest import dev_sentences

ALPHABET = "aAbZz09_-.,;:!?'\"()[]`#|*+•=~ \t\n\x1c\u2028İé中“”"
WORDS = [
    *("The", "revenue", "grew", "U.S.", "etc.", "Dr.", "e.g.", "3.14", "report.pdf", "[1]."),
    *("[2]", "- ", "1.", "a)", "# ", "| a |", "`x.y`", '"Dead."', "https://a.b/c.", "?", "!"),
]
texts = st.one_of(
    st.text(alphabet=ALPHABET, max_size=80),
    st.lists(st.sampled_from(WORDS), max_size=14).map(" ".join),
)


def _by_line_walk(text: str) -> list[tuple[int, int, BlockKind]]:
    """split_sentences as it was before the one-line shortcut: every text through _split_prose."""
    protected = _Ranges(_protected(text, ()))
    raw: list[tuple[int, int, BlockKind]] = []
    _split_prose(text, 0, len(text), protected, raw)
    out = []
    for s, e, kind in raw:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            out.append((s, e, kind))
    return out


def _split(text: str) -> list[tuple[int, int, BlockKind]]:
    return [(s.start, s.end, s.kind) for s in split_sentences(text)]


@settings(max_examples=500)
@given(texts)
def test_one_line_shortcut_cuts_as_the_line_walk(text: str) -> None:
    if "```" in text or "~~~" in text:
        text = text.replace("`", "'").replace("~", "-")  # fences take the other path anyway
    assert _split(text) == _by_line_walk(text)


def test_one_line_shortcut_on_real_sentences() -> None:
    for sentence in dev_sentences():
        line = sentence.replace("\n", " ").replace("```", "'''").replace("~~~", "---")
        assert _split(line) == _by_line_walk(line), line
