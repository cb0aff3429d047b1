"""Where an answer holds code (fenced blocks, inline code spans): brackets there are not citations.

A simplified CommonMark reading, linear in the text length whatever the input:
- a fence is a line starting (after at most 3 spaces) with 3+ backticks or tildes; a backtick
  fence's info string may not contain a backtick. It closes at the next fence line of the same
  character, at least as long, with nothing but whitespace after it; an unclosed fence runs to the
  end of the text.
- outside fences, a run of N backticks opens an inline code span that closes at the next run of
  exactly N backticks; a run without such a partner is literal text.
Indented code blocks are not recognised (they are indistinguishable from nested list items).
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.M)
_TICKS = re.compile(r"`+")

Region = tuple[int, int]


def _fences(text: str) -> list[Region]:
    regions: list[Region] = []
    open_start = -1
    open_char = ""
    open_len = 0
    for m in _FENCE.finditer(text):
        run, rest = m.group(1), m.group(2)
        if open_start < 0:
            if run[0] == "`" and "`" in rest:
                continue  # "```x```" on one line is inline code, not a fence
            open_start, open_char, open_len = m.start(), run[0], len(run)
        elif run[0] == open_char and len(run) >= open_len and not rest.strip():
            regions.append((open_start, m.end()))
            open_start = -1
    if open_start >= 0:
        regions.append((open_start, len(text)))
    return regions


def _inline_spans(text: str, lo: int, hi: int, out: list[Region]) -> None:
    runs = [(m.start(), m.end() - m.start()) for m in _TICKS.finditer(text, lo, hi)]
    if len(runs) < 2:
        return
    by_len: dict[int, list[int]] = {}
    for k, (_, n) in enumerate(runs):
        by_len.setdefault(n, []).append(k)
    # One forward pointer per run length keeps the pairing linear (openers only move right).
    ptr = dict.fromkeys(by_len, 0)
    k = 0
    while k < len(runs):
        pos, n = runs[k]
        same = by_len[n]
        p = ptr[n]
        while p < len(same) and same[p] <= k:
            p += 1
        ptr[n] = p
        if p < len(same):
            close = same[p]
            out.append((pos, runs[close][0] + n))
            k = close + 1
        else:
            k += 1


def _single_ticks(text: str) -> list[Region]:
    """Every backtick run is one backtick long, so there is no fence and each backtick closes
    the span the one before it opened: the usual answer (`name`), paired without a regex."""
    regions: list[Region] = []
    find = text.find
    i = find("`")
    while i >= 0:
        j = find("`", i + 1)
        if j < 0:
            break
        regions.append((i, j + 1))
        i = find("`", j + 1)
    return regions


def code_regions(text: str) -> list[Region]:
    """Sorted, disjoint [start, end) regions of `text` that are code."""
    if "~~~" not in text:
        if "`" not in text:
            return []
        if "``" not in text:
            return _single_ticks(text)
    return _regions(text)


def _regions(text: str) -> list[Region]:
    """The general reading: fences first, then the inline spans between them."""
    regions: list[Region] = []
    lo = 0
    for start, end in _fences(text):
        _inline_spans(text, lo, start, regions)
        regions.append((start, end))
        lo = end
    _inline_spans(text, lo, len(text), regions)
    return regions
