"""Source references and list labels in a claim: "according to passage 1", "(Passage 2 & 3)",
"Step 6:". Their numbers name a source or an item, not a figure the source must state, and
their words are no names (monitor.checks.grounding reads uncited claims through both).

Pure: standard library only.
"""

from __future__ import annotations

import re

from monitor.text.numbers import has_digit

# "According to passage 1", "(Passage 2 & 3)", "Step 6:": numbers that name a source or a
# list item, not figures the source must state
_SOURCE_NUMBER_RE = re.compile(
    r"\b((?:passages?|documents?|docs?|sources?|excerpts?|snippets?|articles?|results?|"
    r"references?|paragraphs?)\s+)#?\d{1,3}(?:\s*(?:,|and|&|or|-|to)\s*#?\d{1,3})*\b",
    re.I,
)
# the words of a source reference, which a claim may keep capitalised ("(Passage )"); also
# the look before the substitution: each word of _SOURCE_NUMBER_RE holds one of them
SOURCE_NAMES = frozenset(
    [
        "passage",
        "document",
        "doc",
        "source",
        "excerpt",
        "snippet",
        "article",
        "result",
        "reference",
        "paragraph",
    ]
)
_ITEM_WORDS = ("step", "item", "point", "tip", "option", "method", "way", "reason")
_ITEM_RE = re.compile(
    r"^\W*(?:step|item|point|tip|option|method|way|reason)\s+\d{1,3}\s*[:.)-]\s*", re.I
)


def source_references_removed(text: str) -> str:
    """The claim without the numbers of its source references and list labels."""
    if not has_digit(text):
        return text
    plain = text.isascii()
    low = text.lower()
    # the label can only open the text (one try at its start, cheaper than looking for its
    # words); a non-ASCII text keeps the word look: re.I matches "ſtep", whose lower() is no "step"
    if plain or any(map(low.__contains__, _ITEM_WORDS)):
        label = _ITEM_RE.match(text)
        if label is not None:
            text = text[label.end() :]
    if any(map(low.__contains__, SOURCE_NAMES)):
        text = _SOURCE_NUMBER_RE.sub(r"\1", text)
    return text
