"""A long evidence text cut down for the judge: the passages that share the most words with the
claim, as many as fit in the claim's share of `max_evidence_chars`, in document order
(monitor/judge/request.py builds the requests with them). Pure.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w{3,}")
_PASSAGE = re.compile(r"[^\n.!?]*(?:[.!?]+|\n|$)")


def _passages(text: str) -> list[str]:
    return [m.group(0).strip() for m in _PASSAGE.finditer(text) if m.group(0).strip()]


#: a text's passages and each passage's set of (lower-cased) words
Split = tuple[list[str], list[frozenset[str]]]


def split_passages(text: str) -> Split:
    passages = _passages(text)
    return passages, [frozenset(w.lower() for w in _WORD.findall(p)) for p in passages]


def select_evidence(text: str, claim: str, max_chars: int, split: Split | None = None) -> str:
    """`text` if it fits, else the passages sharing words with the claim (most shared first,
    as many as fit), in document order; the head of the text when no passage shares any.
    `split` is `split_passages(text)` when the caller has it already."""
    if len(text) <= max_chars:
        return text
    wanted = {w.lower() for w in _WORD.findall(claim)}
    passages, words = split if split is not None else split_passages(text)
    overlap = [len(wanted & w) for w in words]
    ranked = sorted((i for i in range(len(passages)) if overlap[i]), key=lambda i: (-overlap[i], i))
    keep: set[int] = set()
    used = 0
    for i in ranked:
        size = len(passages[i]) + 3
        if used + size <= max_chars:
            keep.add(i)
            used += size
    if not keep:
        return text[:max_chars]
    out: list[str] = []
    for i in sorted(keep):
        if out:
            out.append(" " if i - 1 in keep else " … ")
        out.append(passages[i])
    return "".join(out)


class Splits:
    """The long texts of one answer, each split into passages once: every uncited claim weighs
    every document, and several claims cite one passage, so splitting per claim repeated the
    same work (it ran on the check path for each sampled answer)."""

    def __init__(self) -> None:
        self._done: dict[str, Split] = {}

    def select(self, text: str, claim: str, max_chars: int) -> str:
        if len(text) <= max_chars:
            return text
        split = self._done.get(text)
        if split is None:
            split = self._done[text] = split_passages(text)
        return select_evidence(text, claim, max_chars, split)
