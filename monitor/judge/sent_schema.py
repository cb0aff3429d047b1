"""The reply schema as sent to the server, per form. Pure.

Tighter than the one checked (monitor.judge.schema) where a grammar can enforce it: the asked
claim ids as an enum, exactly as many verdicts as pairs, a bounded `reasoning`, scores in
tenths, and `supports` tied to the judgement (two alternatives), so a constrained model can
neither ramble, invent ids nor contradict itself. Hosted OpenAI's strict mode gets the portable
subset; what it cannot express is checked locally anyway.
"""

from __future__ import annotations

from typing import Any

from monitor.judge.schema import ANSWER_REPLY_SCHEMA, PAIR_VERDICT_SCHEMA

#: `reasoning` bound in the schema sent to servers that enforce it with a grammar: one or two
#: sentences fit; it caps the tokens a constrained model can spend on a verdict.
SENT_REASONING_CHARS = 320
SENT_MISSING_ITEMS = 5
SENT_SCORES: list[float] = [i / 10 for i in range(11)]


def batch_request_schema(claim_ids: tuple[int, ...], bounded: bool) -> dict[str, Any]:
    """The batch reply schema as sent for one call. `bounded` (servers that compile the schema
    into a grammar): the asked ids as an enum, exactly len(claim_ids) verdicts, reasoning of
    12..SENT_REASONING_CHARS characters. Otherwise the portable subset strict OpenAI accepts
    (the ids as an enum; lengths are checked locally)."""
    item = dict(PAIR_VERDICT_SCHEMA)
    props = dict(item["properties"])
    props["claim_id"] = {"type": "integer", "enum": list(claim_ids)}
    if bounded:
        props["reasoning"] = {"type": "string", "minLength": 12, "maxLength": SENT_REASONING_CHARS}
        # grammar converters do not enforce minimum/maximum on numbers (SmolLM2 wrote scores
        # above 1): a score in tenths is one of eleven literals
        props["score"] = {"type": "number", "enum": SENT_SCORES}
    item["properties"] = props
    verdicts: dict[str, Any] = {"type": "array", "items": item}
    if bounded:  # supports follows from the judgement: one alternative each way
        yes = {**props, "judgement": {"const": "ENTAILMENT"}, "supports": {"const": True}}
        no = {
            **props,
            "judgement": {"enum": ["NEUTRAL", "CONTRADICTION", "ABSTAIN"]},
            "supports": {"const": False},
        }
        verdicts["items"] = {"anyOf": [{**item, "properties": yes}, {**item, "properties": no}]}
    if bounded:
        verdicts.update(minItems=len(claim_ids), maxItems=len(claim_ids))
    schema = {
        "type": "object",
        "additionalProperties": False,
        "required": ["verdicts"],
        "properties": {"verdicts": verdicts},
    }
    return schema if bounded else portable_schema(schema)


def answer_request_schema(bounded: bool) -> dict[str, Any]:
    schema = dict(ANSWER_REPLY_SCHEMA)
    del schema["$schema"], schema["title"]
    if not bounded:
        return portable_schema(schema)
    props = dict(schema["properties"])
    props["reasoning"] = {"type": "string", "minLength": 12, "maxLength": SENT_REASONING_CHARS}
    props["correctness_score"] = props["interpretability_score"] = {
        "type": "number",
        "enum": SENT_SCORES,
    }
    props["missing_information"] = {
        "type": "array",
        "maxItems": SENT_MISSING_ITEMS,
        "items": {"type": "string", "maxLength": SENT_REASONING_CHARS},
    }
    schema["properties"] = props
    return schema


# Keywords strict OpenAI structured outputs refuse or ignore; they are checked locally anyway.
_LOCAL_ONLY = frozenset(
    {"$schema", "title", "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"}
)


def portable(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: portable(v) for k, v in node.items() if k not in _LOCAL_ONLY}
    if isinstance(node, list):
        return [portable(v) for v in node]
    return node


def portable_schema(schema: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = portable(schema)
    return out
