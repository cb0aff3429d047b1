"""What the scripted judge server (agents/judging/fake_server.py) answers: the verdicts of its
word-overlap rule, a claim whose words (3+ letters) all occur in its evidence is ENTAILMENT,
half or more NEUTRAL, else CONTRADICTION; the answer judge's overlap reply; and the broken
replies of the failure scenarios (malformed, off-schema, echoing the prompt). Pure: the server
picks the scenario from the model name and the attempt.
"""

from __future__ import annotations

import json
import re
from typing import Any

_WORD = re.compile(r"[a-z0-9]{3,}")
_TAG = re.compile(r"<<(DATA-[0-9a-f]+):begin")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _blocks(content: str, tag: str) -> dict[str, str]:
    pat = re.compile(rf"<<{tag}:begin ([^>]*)>>\n(.*?)\n<<{tag}:end \1>>", re.S)
    return {m.group(1): m.group(2) for m in pat.finditer(content)}


def verdict_for(claim: str, evidence: str) -> tuple[str, float]:
    want = _words(claim)
    share = len(want & _words(evidence)) / len(want) if want else 0.0
    if share == 1.0:
        return "ENTAILMENT", 0.95
    if share >= 0.5:
        return "NEUTRAL", 0.5
    return "CONTRADICTION", 0.05


#: judgement → score of a scripted verdict
_SCRIPTED_SCORE = {"ENTAILMENT": 0.95, "NEUTRAL": 0.5, "CONTRADICTION": 0.05}


def _batch_reply(
    content: str,
    tag: str,
    confidence: str,
    reverse: bool,
    scripted: dict[str, str] | None = None,
) -> dict[str, Any]:
    blocks = _blocks(content, tag)
    ids = sorted(int(k.split()[1]) for k in blocks if k.startswith("claim "))
    out = []
    for i in ids:
        claim = blocks[f"claim {i}"]
        known = (scripted or {}).get(" ".join(claim.split()))
        if known is not None:  # a scripted verdict for this claim (e.g. its human label)
            judgement, score = known, _SCRIPTED_SCORE[known]
        else:
            judgement, score = verdict_for(claim, blocks.get(f"evidence {i}", ""))
        out.append(
            {
                "claim_id": i,
                "reasoning": f"rule: {judgement.lower()}",
                "judgement": judgement,
                "supports": judgement == "ENTAILMENT",
                "score": score,
                "confidence": confidence,
            }
        )
    return {"verdicts": out[::-1] if reverse else out}


def _answer_reply(content: str, tag: str) -> dict[str, Any]:
    blocks = _blocks(content, tag)
    ref, ans = _words(blocks.get("reference", "")), _words(blocks.get("answer", ""))
    share = len(ref & ans) / len(ref) if ref else 0.0
    alignment = "CORRECT" if share >= 0.8 else "PARTIALLY_CORRECT" if share >= 0.4 else "INCORRECT"
    return {
        "reasoning": "overlap rule",
        "alignment": alignment,
        "correctness_score": round(share, 4),
        "interpretability_score": 0.5,
        "missing_information": [],
    }


def content_for(
    scenario: str,
    messages: list[dict[str, Any]],
    attempt: int,
    scripted: dict[str, str] | None = None,
) -> str:
    system = str(messages[0].get("content", "")) if messages else ""
    user = str(messages[-1].get("content", "")) if messages else ""
    m = _TAG.search(user)
    tag = m.group(1) if m else ""
    if scenario == "malformed" or (scenario == "malformed-once" and attempt == 1):
        return '{"verdicts": [{"claim_id": 1, "supports": tru'
    if scenario == "obey":
        return '{"supports": true}'
    if scenario in ("echo", "echo-rules"):
        return _echo(scenario, system, user)
    if "answer judge" in system:
        return json.dumps(_answer_reply(user, tag))
    reply = _batch_reply(
        user,
        tag,
        "high" if scenario == "strong" else "low" if scenario == "low" else "high",
        reverse=scenario == "shuffled",
        scripted=scripted,
    )
    if scenario == "badschema":
        for v in reply["verdicts"]:
            v["supports"] = "yes"
    if scenario == "wrong-ids":
        for v in reply["verdicts"]:
            v["claim_id"] += 10
    return json.dumps(reply)


def _echo(scenario: str, system: str, user: str) -> str:
    """What a weak model under a grammar sends back: the example reply of the old prompt word for
    word (`echo`, as SmolLM2 did: reasoning "...", score 0.95), or a sentence of the instructions
    as its reasoning (`echo-rules`). Valid JSON of the right shape, never a verdict."""
    reasoning = "..."
    if scenario == "echo-rules":
        line = next(x for x in system.splitlines() if x.startswith("- reasoning: "))
        reasoning = line.removeprefix("- reasoning: ")
    if "answer judge" in system:
        return json.dumps(
            {
                "reasoning": reasoning,
                "alignment": "CORRECT",
                "correctness_score": 0.9,
                "interpretability_score": 0.8,
                "missing_information": [],
            }
        )
    ids = sorted({int(i) for i in re.findall(r"begin claim (\d+)>>", user)}) or [1]
    one = {
        "reasoning": reasoning,
        "judgement": "ENTAILMENT",
        "supports": True,
        "score": 0.95,
        "confidence": "high",
    }
    return json.dumps({"verdicts": [{"claim_id": i, **one} for i in ids]})
