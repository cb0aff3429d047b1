"""The semantic tier beside the judge: a second opinion on the claims already sampled for it.

It never runs on the check path: the judge agent asks it for the claims of a request it is
judging anyway, and the model runs in one worker thread of its own (one intra-op thread), so
the event loop that consumes Kafka never waits on it. The evidence is the request's, i.e. what
the judge sees (long cited texts already cut to the passages sharing words with the claim).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from agents.semantic import rules
from agents.semantic.model import MODEL_PACKAGE, MODEL_VERSION, Embedder, load_embedder
from agents.semantic.score import best_match, window_pool
from monitor.judge.request import Item
from monitor.semantic.fit import linear_score

MODEL_ID = f"all-MiniLM-L6-v2-int8 ({MODEL_PACKAGE} {MODEL_VERSION})"
# the judge request prefixes each cited passage with its source line, which is no evidence
_SOURCE_LINE = re.compile(r"^\(source: [^\n]*\)$", re.M)
#: what monitor.judge.request puts between a claim's evidence texts
_TEXT_BREAK = "\n\n"


def request_texts(evidence: str) -> list[str]:
    """A request's evidence back as its texts (without source lines), so its windows are cut
    per text as `ragmon eval` cuts them, never across two texts. A blank line inside one text
    splits it too: the only difference left from eval, which sees whole cited texts."""
    return [t for t in _SOURCE_LINE.sub("", evidence).split(_TEXT_BREAK) if t.strip()]


def opinion_of(embedder: Embedder, item: Item) -> dict[str, Any]:
    """One claim's entry: its best window's cosine and the frozen rules' decisions."""
    pool, _ = window_pool(request_texts(item.evidence))
    entry: dict[str, Any] = {"index": item.claim_index, "windows": len(pool)}
    if not pool:
        return {**entry, "cosine": None, "opinion": "no_evidence"}
    cosine = round(best_match(embedder, item.claim, pool)[1], 4)
    supported = linear_score(rules.COSINE, (cosine,)) >= 0
    entry.update(cosine=cosine, opinion="supported" if supported else "not_supported")
    if item.cheap_score is not None:
        combined = linear_score(rules.COMBINED, (item.cheap_score, cosine)) >= 0
        entry["combined"] = "supported" if combined else "not_supported"
    return entry


class SemanticOpinion:
    """Scores a request's items in its own single worker thread."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ragmon-semantic")

    @classmethod
    def load(cls) -> SemanticOpinion:
        """The pinned model, hash checked (ModelFileError when it is not installed)."""
        return cls(load_embedder(threads=1))

    def score(self, items: Sequence[Item]) -> dict[str, Any]:
        start = time.perf_counter()
        claims = [opinion_of(self.embedder, item) for item in items]
        return {
            "model": MODEL_ID,
            "rules": rules.SOURCE,
            "claims": claims,
            "seconds": round(time.perf_counter() - start, 4),
        }

    async def opinion(self, items: Sequence[Item]) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self.score, items)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
