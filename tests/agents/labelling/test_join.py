"""The human-label join: a label and the judge's verdict on the same claim make one pair,
whichever comes first; the same judgement read twice publishes nothing more."""

from __future__ import annotations

import asyncio

from agents.labelling.canary import canary_label_hook
from agents.labelling.join import JudgedClaims, LabelJoin
from monitor.estimation.pairs import CalibrationPairs
from monitor.records.labels import HumanLabel, decode
from monitor.records.models import AnswerEvent, GoldClaim
from tests.agents.helpers import mixed_verdict


def record(eid: str, verdicts: dict[int, str], model: str = "m", at: float = 50.0) -> dict:
    return {
        "event_id": eid,
        "app": "search",
        "judged_at": at,
        "claims": [{"index": i, "verdict": v, "model": model} for i, v in verdicts.items()],
    }


def make() -> tuple[LabelJoin, list[HumanLabel]]:
    sent: list[HumanLabel] = []

    async def publish(label: HumanLabel) -> None:
        sent.append(label)

    return LabelJoin(CalibrationPairs(1e9), JudgedClaims(10), publish), sent


def test_label_first_then_the_judge() -> None:
    join, sent = make()
    asyncio.run(join.on_label(HumanLabel("e", "not_supported", "import", 1.0, claim_index=1)))
    assert sent == [] and join.counts.unpaired == 1
    asyncio.run(join.on_judged(record("e", {0: "supported", 1: "supported"})))
    [pair] = sent
    assert pair.key() == "e:1" and pair.judge is not None and pair.judge.verdict == "supported"
    assert pair.judge.app == "search" and pair.judge.model == "m"
    asyncio.run(join.on_judged(record("e", {1: "supported"})))  # delivered again
    assert len(sent) == 1
    assert len(join.store.pairs(100.0)) == 1


def test_judge_first_then_the_label() -> None:
    join, sent = make()
    asyncio.run(join.on_judged(record("e", {0: "not_supported", 1: "unverifiable"})))
    asyncio.run(join.on_label(HumanLabel("e", "supported", "review", 2.0, claim_index=0)))
    asyncio.run(join.on_label(HumanLabel("e", "supported", "review", 2.0, claim_index=1)))
    [pair] = sent  # claim 1 has no verdict the judge gave (a timeout)
    assert pair.judge is not None and pair.judge.verdict == "not_supported"
    # the pair read back from the topic changes nothing
    asyncio.run(join.on_label(pair))
    assert len(sent) == 1


def test_judged_claims_keep_the_newest() -> None:
    kept = JudgedClaims(2)
    for eid in ("a", "b", "c"):
        kept.add(record(eid, {0: "supported"}))
    assert kept.get("a", 0) is None and kept.get("c", 0) is not None
    assert kept.get("c", 5) is None


def test_canary_gold_claims_become_label_records() -> None:
    out: list[tuple[str, bytes, bytes]] = []
    hook = canary_label_hook(lambda role, k, v: out.append((role, k, v)), lambda a: a or "other")
    verdict = mixed_verdict("c1")
    gold = (GoldClaim("supported", index=0), GoldClaim("abstain", index=2))
    hook(AnswerEvent(event_id="c1", answer="x", app="shop", gold_claims=gold), verdict)
    hook(AnswerEvent(event_id="c2", answer="x", app="shop"), verdict)  # no gold: nothing
    assert [(r, k) for r, k, _ in out] == [("labels", b"c1:0"), ("labels", b"c1:2")]
    first = decode(out[0][2])
    assert first is not None and first.source == "canary" and first.app == "shop"
