"""The judge's reply contracts (JSON Schema) and their strict validation. Pure.

A reply is accepted only if it is exactly one JSON object of the schema: no surrounding prose, no
markdown fence, no extra or missing keys, no duplicate keys, booleans that are booleans, scores
that are finite numbers in [0, 1], a judgement consistent with `supports`, exactly the claim
ids that were asked for, and reasoning of its own: not a text without words ("...") and not a
sentence copied from the instructions (a weak model under a grammar copies what it is shown word
for word). Anything else raises ReplyInvalid with one of INVALID_REASONS and never becomes a
verdict.

The schema sent to the server (`request_schema`) is tighter than the one checked here where a
grammar can enforce it: the asked claim ids as an enum, exactly as many verdicts as pairs, and a
bounded `reasoning`, and `supports` tied to the judgement (two alternatives), so a constrained
model can neither ramble, invent ids nor contradict itself.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from monitor.config.errors import JudgeError
from monitor.records.models import ClaimVerdict, Confidence

Judgement = Literal["ENTAILMENT", "NEUTRAL", "CONTRADICTION", "ABSTAIN"]
Alignment = Literal["CORRECT", "PARTIALLY_CORRECT", "INCORRECT"]

# ABSTAIN: the claim declines to answer ("the passages do not say"): verdict `abstain`
JUDGEMENTS: tuple[str, ...] = ("ENTAILMENT", "NEUTRAL", "CONTRADICTION", "ABSTAIN")
CONFIDENCES: tuple[str, ...] = ("high", "medium", "low")
ALIGNMENTS: tuple[str, ...] = ("CORRECT", "PARTIALLY_CORRECT", "INCORRECT")
MAX_REASONING_CHARS = 4_000
MAX_MISSING_ITEMS = 50
# Fewest words a reasoning found verbatim in the instructions needs to count as copied: a
# generic "The evidence supports the claim." (5) is the model's own, if lazy.
_ECHO_MIN_WORDS = 6
#: Values of ragmon_judge_invalid_replies_total{reason}: why a reply was not a verdict.
INVALID_REASONS: tuple[str, ...] = (
    "empty",  # no content
    "not_json",  # not exactly one JSON object (prose, fences, truncated JSON)
    "cut_off",  # the server stopped at max_tokens
    "off_schema",  # missing/extra keys, wrong types, values outside an enum
    "echoed_example",  # reasoning copied from the instructions, or without a word ("...")
    "score_out_of_range",  # a score that is not a finite number in [0, 1]
    "unknown_claim_id",  # ids not asked for, missing or answered twice
    "inconsistent_judgement",  # supports disagrees with the judgement
)
_WORDISH = re.compile(r"[^\W\d_]{2,}")

# Seed 004: support_score per judgement; the claim verdict the monitor records for each.
# (an ABSTAIN has no support score: answer.py leaves it out of the mean)
SUPPORT_SCORE: dict[str, float] = {
    "ENTAILMENT": 1.0,
    "NEUTRAL": 0.5,
    "CONTRADICTION": 0.0,
    "ABSTAIN": 0.5,
}
CLAIM_VERDICT: dict[str, ClaimVerdict] = {
    "ENTAILMENT": "supported",
    "NEUTRAL": "partially_supported",
    "CONTRADICTION": "not_supported",
    "ABSTAIN": "abstain",
}
# Seed 001 §9 escalates below a numeric confidence of 0.7; the judge answers in words.
CONFIDENCE_VALUE: dict[str, float] = {"high": 0.9, "medium": 0.7, "low": 0.4}

_UNIT = {"type": "number", "minimum": 0, "maximum": 1}

PAIR_VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["claim_id", "reasoning", "judgement", "supports", "score", "confidence"],
    "properties": {
        "claim_id": {"type": "integer", "minimum": 1},
        "reasoning": {"type": "string", "maxLength": MAX_REASONING_CHARS},
        "judgement": {"type": "string", "enum": list(JUDGEMENTS)},
        "supports": {"type": "boolean"},
        "score": _UNIT,
        "confidence": {"type": "string", "enum": list(CONFIDENCES)},
    },
}

BATCH_REPLY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "ragmon judge batch reply",
    "type": "object",
    "additionalProperties": False,
    "required": ["verdicts"],
    "properties": {"verdicts": {"type": "array", "minItems": 1, "items": PAIR_VERDICT_SCHEMA}},
}

ANSWER_REPLY_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "ragmon judge answer reply",
    "type": "object",
    "additionalProperties": False,
    "required": [
        "reasoning",
        "alignment",
        "correctness_score",
        "interpretability_score",
        "missing_information",
    ],
    "properties": {
        "reasoning": {"type": "string", "maxLength": MAX_REASONING_CHARS},
        "alignment": {"type": "string", "enum": list(ALIGNMENTS)},
        "correctness_score": _UNIT,
        "interpretability_score": _UNIT,
        "missing_information": {
            "type": "array",
            "maxItems": MAX_MISSING_ITEMS,
            "items": {"type": "string", "maxLength": MAX_REASONING_CHARS},
        },
    },
}


class ReplyInvalid(JudgeError):
    """The judge's reply is not exactly the schema; counted as invalid_reply / judge_error, and
    under `kind` (one of INVALID_REASONS) in ragmon_judge_invalid_replies_total."""

    def __init__(self, message: str, kind: str = "off_schema") -> None:
        super().__init__(message, reason="invalid_reply")
        self.kind = kind


@dataclass(frozen=True, slots=True)
class PairVerdict:
    claim_id: int
    judgement: Judgement
    supports: bool
    score: float
    confidence: Confidence
    reasoning: str

    @property
    def verdict(self) -> ClaimVerdict:
        return CLAIM_VERDICT[self.judgement]

    @property
    def confidence_value(self) -> float:
        return CONFIDENCE_VALUE[self.confidence]

    @property
    def support_score(self) -> float:
        return SUPPORT_SCORE[self.judgement]


@dataclass(frozen=True, slots=True)
class AnswerVerdict:
    alignment: Alignment
    correctness_score: float
    interpretability_score: float
    missing_information: tuple[str, ...]
    reasoning: str


def _reject_constant(name: str) -> Any:
    raise ReplyInvalid(f"non-finite number {name} in reply", "score_out_of_range")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ReplyInvalid(f"duplicate key {key!r} in reply")
        out[key] = value
    return out


def load_strict(text: str | None) -> dict[str, Any]:
    """Exactly one JSON object (whitespace around it allowed), else ReplyInvalid."""
    if not text or not text.strip():
        raise ReplyInvalid("empty reply", "empty")
    try:
        value = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise ReplyInvalid(f"reply is not JSON: {exc.msg} at {exc.pos}", "not_json") from None
    if not isinstance(value, dict):
        raise ReplyInvalid("reply is not a JSON object", "not_json")
    return value


def _keys(obj: Any, schema: dict[str, Any], where: str) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise ReplyInvalid(f"{where} is not an object")
    expected = set(schema["required"])
    if set(obj) != expected:
        extra, missing = sorted(set(obj) - expected), sorted(expected - set(obj))
        raise ReplyInvalid(f"{where}: unexpected keys {extra}, missing keys {missing}")
    return obj


def _unit(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ReplyInvalid(f"{where} is not a number")
    if not math.isfinite(value) or not 0.0 <= value <= 1.0:
        raise ReplyInvalid(f"{where} is outside [0, 1]", "score_out_of_range")
    return float(value)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise ReplyInvalid(f"{where} is not a string")
    if len(value) > MAX_REASONING_CHARS:
        raise ReplyInvalid(f"{where} is longer than {MAX_REASONING_CHARS} characters")
    return value


def _flat(text: str) -> str:
    return " ".join(text.split()).lower()


def is_placeholder(reasoning: str, instructions: str = "") -> bool:
    """Not reasoning of the judge's own: no word at all ("...", "-", "N/A"), or a passage of
    the instructions (the system message, which holds no data) copied back."""
    if _WORDISH.search(reasoning) is None:
        return True
    flat = _flat(reasoning).strip(" .\"'<>")
    return len(flat.split()) >= _ECHO_MIN_WORDS and flat in _flat(instructions)


def _reasoning(value: Any, where: str, instructions: str) -> str:
    text = _text(value, where)
    if is_placeholder(text, instructions):
        raise ReplyInvalid(f"{where} is copied from the prompt, not reasoning", "echoed_example")
    return text


def _enum(value: Any, allowed: tuple[str, ...], where: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ReplyInvalid(f"{where} must be one of {', '.join(allowed)}")
    return value


def _pair(obj: Any, where: str, instructions: str) -> PairVerdict:
    item = _keys(obj, PAIR_VERDICT_SCHEMA, where)
    claim_id = item["claim_id"]
    if isinstance(claim_id, bool) or not isinstance(claim_id, int):
        raise ReplyInvalid(f"{where}.claim_id is not an integer", "unknown_claim_id")
    judgement = _enum(item["judgement"], JUDGEMENTS, f"{where}.judgement")
    supports = item["supports"]
    if not isinstance(supports, bool):
        raise ReplyInvalid(f"{where}.supports is not a boolean")
    score = _unit(item["score"], f"{where}.score")
    confidence = _enum(item["confidence"], CONFIDENCES, f"{where}.confidence")
    reasoning = _reasoning(item["reasoning"], f"{where}.reasoning", instructions)
    if supports != (judgement == "ENTAILMENT"):
        raise ReplyInvalid(
            f"{where}: supports={supports} contradicts judgement {judgement}",
            "inconsistent_judgement",
        )
    return PairVerdict(
        claim_id=claim_id,
        judgement=judgement,  # type: ignore[arg-type]
        supports=supports,
        score=score,
        confidence=confidence,  # type: ignore[arg-type]
        reasoning=reasoning,
    )


def parse_batch_reply(
    text: str | None, claim_ids: tuple[int, ...], instructions: str = ""
) -> dict[int, PairVerdict]:
    """The verdicts by claim id; exactly `claim_ids`, each once, in any order. `instructions`:
    the system message sent, whose sentences a reasoning must not merely repeat."""
    reply = _keys(load_strict(text), BATCH_REPLY_SCHEMA, "reply")
    items = reply["verdicts"]
    if not isinstance(items, list) or not items:
        raise ReplyInvalid("reply.verdicts is not a non-empty array")
    out: dict[int, PairVerdict] = {}
    for n, obj in enumerate(items):
        verdict = _pair(obj, f"reply.verdicts[{n}]", instructions)
        if verdict.claim_id in out:
            raise ReplyInvalid(f"claim_id {verdict.claim_id} answered twice", "unknown_claim_id")
        out[verdict.claim_id] = verdict
    if set(out) != set(claim_ids):
        raise ReplyInvalid(
            f"claim ids {sorted(out)} do not match the ids asked for {sorted(claim_ids)}",
            "unknown_claim_id",
        )
    return out


def parse_answer_reply(text: str | None, instructions: str = "") -> AnswerVerdict:
    reply = _keys(load_strict(text), ANSWER_REPLY_SCHEMA, "reply")
    missing = reply["missing_information"]
    if not isinstance(missing, list) or len(missing) > MAX_MISSING_ITEMS:
        raise ReplyInvalid("reply.missing_information is not a short array")
    return AnswerVerdict(
        alignment=_enum(reply["alignment"], ALIGNMENTS, "reply.alignment"),  # type: ignore[arg-type]
        correctness_score=_unit(reply["correctness_score"], "reply.correctness_score"),
        interpretability_score=_unit(
            reply["interpretability_score"], "reply.interpretability_score"
        ),
        missing_information=tuple(
            _text(m, f"reply.missing_information[{i}]") for i, m in enumerate(missing)
        ),
        reasoning=_reasoning(reply["reasoning"], "reply.reasoning", instructions),
    )
