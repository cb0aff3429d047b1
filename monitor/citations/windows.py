"""The answer text around a citation where the value it cites should be stated (seed 002).

For a citation (taken with its whole cross-reference group, so `$1,200 and $500 [a.x] [a.y]`
lets both brackets see both numbers), nearest first:
1. clause: the text before the group back to the previous group's end, at most `window` chars,
   and no further back than the last sentence boundary;
2. after:  the text after the group up to the next group, the sentence end, or `window` chars;
3. before: the text before the group back to the previous group's end, at most `window` chars.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from monitor.records.models import Citation

_BOUNDARY = re.compile(r"[.!?](?=\s)|\n")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")

Bounds = tuple[
    int, int, int, int
]  # previous group's end, group start, group end, next group's start


def group_bounds(citations: Sequence[Citation], text_len: int) -> dict[int, Bounds]:
    """Per group of inline citations: where its neighbours end and start."""
    spans: dict[int, list[int]] = {}
    order: list[int] = []
    for c in citations:
        if c.format == "segment":
            continue
        if c.group not in spans:
            spans[c.group] = [c.start, c.end]
            order.append(c.group)
        else:
            s = spans[c.group]
            s[0], s[1] = min(s[0], c.start), max(s[1], c.end)
    out: dict[int, Bounds] = {}
    for k, g in enumerate(order):
        prev_end = spans[order[k - 1]][1] if k else 0
        next_start = spans[order[k + 1]][0] if k + 1 < len(order) else text_len
        start, end = spans[g]
        out[g] = (min(prev_end, start), start, end, max(next_start, end))
    return out


def value_windows(answer: str, bounds: Bounds, window: int) -> list[str]:
    prev_end, start, end, next_start = bounds
    window = max(0, window)
    before = answer[max(prev_end, start - window) : start]
    clause = before
    for m in _BOUNDARY.finditer(before):
        clause = before[m.end() :]
    after = answer[end : min(next_start, end + window)]
    m_end = _SENTENCE_END.search(after)
    if m_end is not None:
        after = after[: m_end.start()]
    return [clause, after, before]
