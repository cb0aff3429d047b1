"""`ragmon eval --semantic` end to end through the CLI, with the real model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.cli import main

DOC = {
    "id": "1",
    "text": "The bridge opened to traffic in 1937. It spans the strait. "
    "Fog often covers it in summer. Tolls are collected southbound only.",
}
EVENTS = [
    ("a", "The bridge was opened to cars in 1937 [1].", "supported"),
    ("b", "The recipe needs two eggs and a cup of flour [1].", "not_supported"),
    ("c", "In summer the bridge is frequently covered by fog [1].", "supported"),
    ("d", "Quantum computers factor large primes quickly [1].", "not_supported"),
]


def test_eval_semantic_scores_caches_and_reports(
    embedder: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events, labels = tmp_path / "ev.jsonl", tmp_path / "lab.jsonl"
    events.write_text(
        "".join(
            json.dumps({"event_id": i, "answer": a, "documents": [DOC]}) + "\n"
            for i, a, _ in EVENTS
        )
    )
    labels.write_text("".join(json.dumps({"event_id": i, "label": y}) + "\n" for i, _, y in EVENTS))
    cache, out = tmp_path / "cache.jsonl", tmp_path / "figures.json"
    args = ["eval", str(events), "--labels", str(labels), "--semantic"]
    assert main([*args, "--semantic-cache", str(cache), "--json", str(out)]) == 0
    rows = [json.loads(line) for line in cache.read_text().splitlines()]
    assert [r["event_id"] for r in rows] == ["a", "b", "c", "d"]
    assert all(r["windows"] == [4] for r in rows)  # 4 sentences, one window per start
    figures = json.loads(out.read_text())
    # the paraphrases beat the unrelated claims: a perfect ranking by cosine
    assert figures["cosine"]["auroc"] == 1.0
    assert "semantic tier: 4 labelled events" in capsys.readouterr().out
    # the cache is read back, not recomputed: the model's load time is then unknown
    assert main([*args, "--semantic-cache", str(cache)]) == 0
    assert "model load n/a" in capsys.readouterr().out
