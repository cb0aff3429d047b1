"""Issue 24 point 4 for figures: an uncited claim's figure counts as found in its document only
where it sits beside the rest of what the claim says, not anywhere in a long article.

A figure's passage window is the sentence that holds it and the sentence on either side (a
sentence ends at `.`, `!` or `?` before white space, or at a line break: a line of the rendered
data is a sentence). A figure of the claim that the document holds only in windows sharing no
other content word with the claim is scattered (`figure_scattered:<figure>`): the number was
taken from an unrelated place ("killed 12 people" where the article's 12 is a date or a page).
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from monitor.checks.evidence import ClaimTerms
from monitor.text.numbers import LENIENT_NUMBER_RE, NumberMention, NumberSet
from monitor.text.words import NUMBER_WORDS, STEMS, words

WINDOW_SENTENCES = 1  # sentences on either side of the one that holds the figure
MIN_WINDOW_WORDS = 1  # other content stems of the claim the window must hold
_YEAR_SPAN = 8  # characters before a figure that may make it a year range ("2018-19")
_SENTENCE_END_RE = re.compile(r"[.!?]+[\"'”’)\]]*\s+|\n")
_NUMBER_WORD_RE = re.compile(r"\b(?:" + "|".join(NUMBER_WORDS) + r")\b", re.I)


class _Located:
    """A text's figures with their positions, and its sentences' content stems."""

    __slots__ = ("figures", "sentences", "starts")

    def __init__(self, text: str) -> None:
        figures: list[tuple[int, NumberSet]] = []
        for match in LENIENT_NUMBER_RE.finditer(text):
            start = match.start()
            # the same figures NumberSet reads there, year ranges included
            figures.append(
                (start, NumberSet.of_text(text[max(0, start - _YEAR_SPAN) : match.end()], ()))
            )
        for match in _NUMBER_WORD_RE.finditer(text):
            figures.append((match.start(), NumberSet([float(NUMBER_WORDS[match[0].lower()])])))
        self.figures = figures
        self.starts = [0] + [m.end() for m in _SENTENCE_END_RE.finditer(text)]
        ends = [*self.starts[1:], len(text)]
        get = STEMS.__getitem__
        self.sentences = [
            frozenset(map(get, words(text[a:b]))) for a, b in zip(self.starts, ends, strict=True)
        ]

    def windows(self, mention: NumberMention) -> list[frozenset[str]]:
        """The content stems of the window around each place the text states `mention`."""
        out = []
        last = len(self.sentences) - 1
        for position, values in self.figures:
            if values.contains(mention):
                at = bisect.bisect_right(self.starts, position) - 1
                lo, hi = max(0, at - WINDOW_SENTENCES), min(last, at + WINDOW_SENTENCES)
                out.append(frozenset().union(*self.sentences[lo : hi + 1]))
        return out


@lru_cache(maxsize=64)  # the documents of the answers in flight; one answer's claims share one
def _located(text: str) -> _Located:
    return _Located(text)


def scattered_figures(terms: ClaimTerms, text: str) -> list[str]:
    """The claim's figures that `text` states only in windows holding fewer than
    MIN_WINDOW_WORDS of the claim's other content stems (all of them, for a claim with fewer).
    A figure the text does not state where this reads figures (another unit, a missing one)
    is not scattered: the missing-figure rule speaks for it."""
    if not terms.numbers:
        return []
    need = min(MIN_WINDOW_WORDS, len(terms.terms))
    if not need:
        return []
    located = _located(text)
    scattered = []
    for mention in terms.numbers:
        windows = located.windows(mention)
        if windows and all(len(terms.terms & w) < need for w in windows):
            scattered.append(mention.raw)
    return scattered
