"""Synthetic answer traffic for the demo: healthy answers, then a drift towards broken ones.

Each answer quotes sentences of its retrieved documents with span (`[doc:page:start-end]`) or
numeric (`[n]`) citations. `drift` in [0, 1] raises the share of out-of-range citations,
fabricated claims (changed facts and numbers behind a valid-looking citation) and uncited
claims, which is what a retrieval or prompt regression looks like from the outside.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

APPS = ("support-bot", "search", "docs-qa")
_TOPICS = [
    "invoice",
    "refund",
    "policy",
    "customer",
    "account",
    "billing",
    "period",
    "credit",
    "balance",
    "fee",
    "plan",
    "upgrade",
    "cluster",
    "node",
    "replica",
    "partition",
    "latency",
    "throughput",
    "backup",
    "region",
    "storage",
    "quota",
    "limit",
    "dosage",
    "patient",
    "trial",
    "cohort",
    "outcome",
    "therapy",
    "sample",
    "protocol",
    "enzyme",
    "marker",
]
_GLUE = [
    "the",
    "a",
    "of",
    "for",
    "in",
    "with",
    "on",
    "by",
    "from",
    "per",
    "after",
    "before",
    "during",
]


@dataclass(frozen=True)
class Mix:
    bad_citation: float
    fabricated: float
    uncited: float
    malformed: float = 0.002

    @classmethod
    def at(cls, drift: float) -> Mix:
        d = min(1.0, max(0.0, drift))
        return cls(
            bad_citation=0.01 + 0.25 * d, fabricated=0.02 + 0.30 * d, uncited=0.03 + 0.12 * d
        )


def _sentence(rng: random.Random) -> str:
    words = [
        rng.choice(_TOPICS) if rng.random() < 0.65 else rng.choice(_GLUE)
        for _ in range(rng.randint(9, 15))
    ]
    words.insert(rng.randint(2, len(words) - 1), str(rng.randint(3, 9800)))
    return " ".join(words).capitalize()


def _fabricate(rng: random.Random, text: str) -> str:
    out = []
    for word in text.split():
        if word.isdigit():
            out.append(str(int(word) + rng.randint(13, 97)))
        elif word.lower() in _TOPICS and rng.random() < 0.6:
            out.append(rng.choice(_TOPICS))
        else:
            out.append(word)
    return " ".join(out)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def make_answer(
    rng: random.Random, event_id: str, drift: float, app: str | None = None
) -> dict[str, Any]:
    mix = Mix.at(drift)
    docs = []
    for d in range(rng.randint(2, 3)):
        pages = [
            ". ".join(_sentence(rng) for _ in range(rng.randint(4, 6))) + "." for _ in range(2)
        ]
        docs.append({"id": f"doc_{d + 1}.pdf", "title": f"Document {d + 1}", "pages": pages})
    parts = []
    for _ in range(rng.randint(3, 5)):
        d = rng.randrange(len(docs))
        page = rng.randrange(2)
        text = docs[d]["pages"][page]
        sentences = [s for s in text.split(". ") if len(s.split()) > 6]
        quote = rng.choice(sentences).rstrip(".")
        start = text.index(quote)
        roll = rng.random()
        if roll < mix.uncited:
            parts.append(quote + ".")
            continue
        claim = _fabricate(rng, quote) if roll < mix.uncited + mix.fabricated else quote
        if rng.random() < mix.bad_citation:
            start = len(text) + rng.randint(10, 200)  # past the end of the page
        if rng.random() < 0.7:
            cite = f"[{docs[d]['id']}:{page + 1}:{start}-{start + len(quote)}]"
        else:
            n = d + 1 if start < len(text) else len(docs) + rng.randint(1, 4)
            cite = f"[{n}]"
        parts.append(f"{claim} {cite}.")
    return {
        "event_id": event_id,
        "timestamp": _now(),
        "app": app or rng.choice(APPS),
        "model": rng.choice(("gen-small", "gen-large")),
        "question": "What do the documents say about " + rng.choice(_TOPICS) + "?",
        "answer": " ".join(parts),
        "documents": docs,
    }


class Traffic:
    """Event bytes for the demo: `next(drift)` gives one record value."""

    def __init__(self, seed: int | None = None, prefix: str = "demo") -> None:
        self.rng = random.Random(seed)
        self.prefix = prefix
        self.count = 0

    def next(self, drift: float) -> bytes:
        self.count += 1
        event_id = f"{self.prefix}-{self.count:08d}"
        if self.rng.random() < Mix.at(drift).malformed:
            return b'{"event_id": "' + event_id.encode() + b'", "answer": '  # cut short
        return json.dumps(make_answer(self.rng, event_id, drift)).encode("utf-8")
