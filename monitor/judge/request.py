"""The `judge-requests` record: built by the check path from a checked answer, read by the judge
agent. Pure and JSON-only so the topic carries plain dicts.

Claims with at least one citation that resolved to a passage are judged on the text of those
passages: a valid citation, or one that resolved but failed a check on its content (a quotation
or a value the cheap tier did not find in the passage: `excerpt_mismatch`, `value_mismatch`),
since whether the passage supports the claim is the judge's call, and the support and
hallucination estimates take the judge as the reference (monitor/estimation). An uncited claim
(given the event) is judged on the whole retrieved context, every document and the event's
data, as the cheap tier grounds it (monitor/checks/grounding.py): a hallucination is what the context
does not support. A claim whose citations resolve to no text has no evidence to weigh and is
already counted as unsupported; one past a cap (over_cap) is undecided and not judged. A long
document is cut down to the passages that share the most words with the claim, in document
order, within `max_evidence_chars` (split evenly between the texts; monitor/judge/passages.py).

A cited claim whose citations carry the citing API's own quote (`excerpt`: a vendor's cited
text, a v1 `excerpt:`) has it as the item's `quote`, shown to the judge apart from the passage.
The record gets a `quote` key only then (version 1 still: a reader that ignores it judges as
before), so a request without quotes keeps its exact bytes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from monitor.checks.grounding import context_texts
from monitor.checks.scoring import is_over_cap
from monitor.config.errors import JudgeError
from monitor.judge.passages import Splits
from monitor.judge.prompt import Pair, estimate_pairs_tokens
from monitor.records.models import AnswerEvent, CitationResult, ClaimResult, Verdict
from monitor.records.record import record

REQUEST_VERSION = 1
MAX_ANSWER_CHARS = 20_000


class RequestInvalid(JudgeError):
    def __init__(self, message: str) -> None:
        super().__init__(message, reason="invalid_request")


# @record, not a frozen dataclass: built on the check path for every sampled answer, and a
# frozen dataclass sets each field through object.__setattr__.
@record
class Item:
    claim_index: int
    claim: str
    evidence: str
    cheap_verdict: str | None = None
    cheap_score: float | None = None
    cited: bool = True  # False: an uncited claim judged on the whole context
    #: the API's own quotes of what it cited (citations' `excerpt`), when the event has them
    quote: str | None = None

    @property
    def pair(self) -> Pair:
        return Pair(self.claim, self.evidence, self.quote)


@record
class JudgeRequest:
    event_id: str
    app: str | None
    items: tuple[Item, ...]
    reason: str = "base"
    question: str | None = None
    answer: str | None = None  # only sent when there is a reference answer to compare with
    gold_answer: str | None = None
    gold_label: str | None = None
    est_tokens: int = 0
    created_at: float = 0.0
    #: in the base-rate hash sample (hash of the event id < base rate), whatever else sampled it:
    #: its verdicts are labels of the support and hallucination estimates (monitor/estimation)
    estimation: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "v": REQUEST_VERSION,
            "event_id": self.event_id,
            "app": self.app,
            "reason": self.reason,
            "question": self.question,
            "answer": self.answer,
            "gold_answer": self.gold_answer,
            "gold_label": self.gold_label,
            "est_tokens": self.est_tokens,
            "created_at": self.created_at,
            "estimation": self.estimation,
            "items": [
                {
                    "claim_index": i.claim_index,
                    "claim": i.claim,
                    "evidence": i.evidence,
                    "cheap_verdict": i.cheap_verdict,
                    "cheap_score": i.cheap_score,
                    "cited": i.cited,
                }
                # the key only when there is a quote: other requests keep their exact bytes
                | ({} if i.quote is None else {"quote": i.quote})
                for i in self.items
            ],
        }


def claim_text(
    result: ClaimResult, verdict: Verdict, by_index: Mapping[int, CitationResult] | None = None
) -> str:
    """The claim without its citation markers (the judge sees evidence separately)."""
    text = result.claim.text
    if by_index is None:
        by_index = {c.citation.index: c for c in verdict.citations}
    for i in result.claim.citation_indexes:
        cited = by_index.get(i)
        if cited is not None and cited.citation.raw:
            text = text.replace(cited.citation.raw, " ")
    return " ".join(text.split())


def _context_item(
    result: ClaimResult, verdict: Verdict, texts: list[str], max_chars: int, splits: Splits
) -> Item:
    claim = claim_text(result, verdict, {})
    budget = max(200, max_chars // max(1, len(texts)))
    return Item(
        claim_index=result.claim.index,
        claim=claim,
        evidence="\n\n".join(splits.select(t, claim, budget) for t in texts),
        cheap_verdict=result.support.verdict,
        cheap_score=result.support.score,
        cited=False,
    )


#: Errors of a citation that resolved to its passage, about what the passage says.
CONTENT_ERRORS = frozenset({"excerpt_mismatch", "value_mismatch"})


def is_evidence(cited: CitationResult) -> bool:
    """The citation gives the judge a passage to weigh."""
    return bool(cited.cited_text) and (cited.valid or cited.error in CONTENT_ERRORS)


def judge_items(
    verdict: Verdict, max_evidence_chars: int = 6_000, event: AnswerEvent | None = None
) -> tuple[Item, ...]:
    """The claims to judge; uncited ones only when `event` (their context) is given."""
    by_index = {c.citation.index: c for c in verdict.citations}
    items = []
    context: list[str] | None = None
    splits = Splits()
    for result in verdict.claims:
        if not result.claim.citation_indexes:
            if event is None or is_over_cap(result) or result.support.verdict == "abstain":
                continue  # a refusal asserts nothing to judge (it counts in no rate)
            if context is None:
                context = context_texts(event)
            if context:
                items.append(_context_item(result, verdict, context, max_evidence_chars, splits))
            continue
        valid = [
            by_index[i]
            for i in result.claim.citation_indexes
            if i in by_index and is_evidence(by_index[i])
        ]
        if not valid:
            continue
        claim = claim_text(result, verdict, by_index)
        budget = max(200, max_evidence_chars // len(valid))
        parts = []
        quotes = []
        seen: set[str] = set()
        quoted: set[str] = set()
        for cited in valid:
            text = cited.cited_text or ""
            source = f"(source: {cited.doc_id})\n" if cited.doc_id else ""
            excerpt = cited.citation.excerpt
            if excerpt and excerpt not in quoted:
                quoted.add(excerpt)
                quotes.append(source + splits.select(excerpt, claim, budget))
            if text in seen:  # [1][1] or two spans of one passage
                continue
            seen.add(text)
            parts.append(source + splits.select(text, claim, budget))
        items.append(
            Item(
                claim_index=result.claim.index,
                claim=claim,
                evidence="\n\n".join(parts),
                cheap_verdict=result.support.verdict,
                cheap_score=result.support.score,
                quote="\n\n".join(quotes) if quotes else None,
            )
        )
    return tuple(items)


def build_request(
    event: AnswerEvent,
    verdict: Verdict,
    items: tuple[Item, ...],
    reason: str,
    batch_size: int = 5,
    now: float | None = None,
    estimation: bool = False,
) -> JudgeRequest:
    gold = event.gold_answer
    return JudgeRequest(
        event_id=event.event_id,
        app=event.app,
        items=items,
        reason=reason,
        question=event.question,
        answer=event.answer[:MAX_ANSWER_CHARS] if gold else None,
        gold_answer=gold[:MAX_ANSWER_CHARS] if gold else None,
        gold_label=event.gold_label,
        est_tokens=estimate_pairs_tokens([i.pair for i in items], batch_size)
        + (len(event.answer[:MAX_ANSWER_CHARS]) // 4 + 600 if gold else 0),
        created_at=time.time() if now is None else now,
        estimation=estimation,
    )


def _str(value: Any, name: str, optional: bool = True) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise RequestInvalid(f"{name} must be a string")
    return value


def parse_request(value: Mapping[str, Any] | Any) -> JudgeRequest:
    """A judge-requests record (a dict, or its JSON as bytes/str) back into a JudgeRequest;
    RequestInvalid when it is not one."""
    if isinstance(value, bytes | bytearray | str):
        try:
            value = json.loads(value)
        except (ValueError, UnicodeDecodeError):
            raise RequestInvalid("record is not JSON") from None
    if not isinstance(value, Mapping):
        raise RequestInvalid("record is not an object")
    if value.get("v") != REQUEST_VERSION:
        raise RequestInvalid(f"unsupported request version {value.get('v')!r}")
    raw_items = value.get("items")
    if not isinstance(raw_items, list):
        raise RequestInvalid("items must be a list")
    items = []
    for n, raw in enumerate(raw_items):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("claim_index"), int):
            raise RequestInvalid(f"items[{n}] is not a claim item")
        score = raw.get("cheap_score")
        items.append(
            Item(
                claim_index=raw["claim_index"],
                claim=_str(raw.get("claim"), "claim", False) or "",
                evidence=_str(raw.get("evidence"), "evidence", False) or "",
                cheap_verdict=_str(raw.get("cheap_verdict"), "cheap_verdict"),
                cheap_score=float(score) if isinstance(score, int | float) else None,
                cited=raw.get("cited", True) is not False,
                quote=_str(raw.get("quote"), "quote"),
            )
        )
    est = value.get("est_tokens", 0)
    created = value.get("created_at", 0.0)
    return JudgeRequest(
        event_id=_str(value.get("event_id"), "event_id", False) or "",
        app=_str(value.get("app"), "app"),
        items=tuple(items),
        reason=_str(value.get("reason"), "reason") or "base",
        question=_str(value.get("question"), "question"),
        answer=_str(value.get("answer"), "answer"),
        gold_answer=_str(value.get("gold_answer"), "gold_answer"),
        gold_label=_str(value.get("gold_label"), "gold_label"),
        est_tokens=est if isinstance(est, int) else 0,
        created_at=float(created) if isinstance(created, int | float) else 0.0,
        estimation=value.get("estimation") is True,
    )
