"""Uncited claims against the retrieved context: a hallucination is what the context does not
support, not what the answer forgot to cite.

An uncited claim is first a citation-coverage problem (`coverage`). It is then checked against
every document of the event (and the event's `data`, rendered as "key words = value" lines), as
if it cited the one that supports it best: a claim found verbatim in one (between sentence
boundaries) is supported by rule; otherwise the lexical tier scores it against the document that
shares most of its content words (the one it would have cited), contrast checks included (a
claim that flips a document's statement is not supported by it). Every such verdict carries the reason `uncited`, so coverage and grounding stay
apart in verdicts and metrics; only a `not_supported` one is a hallucination.

Answers that never cite (many RAG systems emit no inline markers) are then measured on their
grounding instead of reading 100% hallucination.

Bounded work: past `max_grounded_claims` uncited claims in one answer, and past the citation
cap (the answer's citations after it were never read), claims are undecided (`unverifiable`,
reason `over_cap`) and left out of the answer's rates.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from monitor.contrast import claim_core, verbatim
from monitor.evidence import claim_terms, index_evidence
from monitor.models import AnswerEvent, Claim, Support
from monitor.support import lexical_support
from monitor.text import identifiers

UNCITED = "uncited"
OVER_CAP = "over_cap"
MAX_DATA_LINES = 2_000  # leaves of `data` rendered as context
LONG_TEXT = 4_000  # past this, a document's stem and bigram sets are built once for all claims

NO_CONTEXT = Support("not_supported", 0.0, "high", "rules", (UNCITED, "no_context"))
UNDECIDED = Support("unverifiable", 0.5, "low", "rules", (UNCITED, OVER_CAP))


def _leaves(node: Any, path: list[str], depth: int) -> Iterator[str]:
    if depth > 32:
        return
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, [*path, str(key)], depth + 1)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _leaves(value, [*path, str(i)], depth + 1)
    else:
        shown = node if isinstance(node, str) else json.dumps(node, default=str)
        words = " ".join(p.replace("_", " ") for p in path if not p.isdigit())
        yield f"{words} = {shown}"


def render_data(data: Any) -> str:
    """`data` as lines a claim can be compared with: `{"quote": {"premium": 300}}` →
    "quote premium = 300"."""
    lines = []
    for line in _leaves(data, [], 0):
        lines.append(line)
        if len(lines) >= MAX_DATA_LINES:
            break
    return "\n".join(lines)


def context_texts(event: AnswerEvent) -> list[str]:
    """The event's retrieved context: every document's text, then its data."""
    texts = [t for t in (doc.full_text for doc in event.documents) if t and not t.isspace()]
    if event.data is not None:
        rendered = render_data(event.data)
        if rendered:
            texts.append(rendered)
    return texts  # not deduplicated: hashing whole documents per answer costs more than a repeat


def _names_symbol(claim: str, text: str) -> bool:
    return any(name in text for name in identifiers(claim))


def ground_uncited(claim: Claim, texts: list[str]) -> Support:
    """The verdict on an uncited claim from the event's context texts (`context_texts`)."""
    if not texts:
        return NO_CONTEXT
    text = claim.text
    core = claim_core(text)
    for t in texts:
        if verbatim(text, t, core):
            return Support("supported", 1.0, "high", "rules", (UNCITED, "verbatim_in_context"))
    best = texts[0]
    named = [t for t in texts if _names_symbol(text, t)] if "`" in text or "_" in text else []
    if named:
        best = named[0]  # the document that holds the code symbol the claim names
    elif len(texts) > 1:
        # the document sharing most of the claim's content stems is the one it would cite; only
        # that one is scored (scoring every document cost a tenth of the check on the mix)
        # (names count twice, as in the term coverage)
        terms = claim_terms(text)
        shared = -1
        for t in texts:
            index = index_evidence(t)
            if len(t) > LONG_TEXT:
                _ = index.stems, index.bigrams  # set look-ups instead of a scan per claim
            found = index.stems_found(terms.terms)
            n = len(found) + len(found & terms.heavy)
            if n > shared:
                best, shared = t, n
    support = lexical_support(text, [best], claim.kind)
    return Support(
        support.verdict,
        support.score,
        support.confidence,
        support.tier,
        (UNCITED, *support.reasons),
    )
