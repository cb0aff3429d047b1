"""The semantic second opinion beside the judge: per-claim entries, the judge record, the metric."""

from __future__ import annotations

import asyncio
from typing import Any

from prometheus_client import CollectorRegistry

from agents.judging.agent import JudgeRunner
from agents.semantic import rules
from agents.semantic.opinion import MODEL_ID, SemanticOpinion, opinion_of
from agents.telemetry.metrics import build_metrics
from monitor.judge.request import Item, JudgeRequest
from monitor.semantic.fit import linear_score
from tests.agents.helpers import unreachable_judge

EVIDENCE = (
    "(source: 1)\nThe museum opened in 1902. Its roof was rebuilt after a fire in 1950. "
    "Stock prices of steel makers fell last week. Traders blamed weak demand from China."
)


def test_a_close_paraphrase_is_supported_and_an_unrelated_claim_is_not(embedder: Any) -> None:
    close = opinion_of(embedder, Item(0, "Steel company shares dropped last week.", EVIDENCE))
    far = opinion_of(embedder, Item(1, "The recipe needs two eggs and flour.", EVIDENCE, None, 0.9))
    # 4 sentences, the source line removed: one window per start
    assert close["windows"] == far["windows"] == 4
    assert close["opinion"] == "supported" and far["opinion"] == "not_supported"
    assert close["cosine"] > far["cosine"]
    assert "combined" not in close  # no cheap score to combine with
    expected = linear_score(rules.COMBINED, (0.9, far["cosine"])) >= 0
    assert far["combined"] == ("supported" if expected else "not_supported")


def test_no_evidence_is_its_own_opinion(embedder: Any) -> None:
    entry = opinion_of(embedder, Item(3, "Anything.", "(source: 1)\n"))
    assert entry == {"index": 3, "windows": 0, "cosine": None, "opinion": "no_evidence"}


async def test_the_judge_record_carries_the_opinion_and_the_metric_counts_it(
    embedder: Any,
) -> None:
    metrics = build_metrics(CollectorRegistry())
    client = unreachable_judge(metrics)
    published: list[dict[str, Any]] = []

    async def publish(record: dict[str, Any]) -> None:
        published.append(record)

    semantic = SemanticOpinion(embedder)
    runner = JudgeRunner(client, metrics, concurrency=1, publish=publish, semantic=semantic)
    items = (
        Item(0, "Steel company shares dropped last week.", EVIDENCE),
        Item(1, "The recipe needs two eggs and flour.", EVIDENCE),
    )
    runner.submit(JudgeRequest("e1", "shop", items))
    await asyncio.wait_for(runner.join(), 60)
    await runner.stop()
    (record,) = published
    assert record["claims"][0]["verdict"] is None  # the judge was down; its record stands
    opinion = record["semantic"]
    assert opinion["model"] == MODEL_ID
    assert [c["opinion"] for c in opinion["claims"]] == ["supported", "not_supported"]
    get = metrics.registry.get_sample_value
    for verdict in ("supported", "not_supported"):
        labels = {"app": "shop", "opinion": verdict}
        assert get("ragmon_semantic_claims_total", labels) == 1
