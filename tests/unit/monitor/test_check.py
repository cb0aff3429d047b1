"""monitor.check: what a benchmark round relies on to start cold."""

from __future__ import annotations

import json

from monitor.check import check_bytes, clear_caches
from monitor.checks import contrast_sentences, data_context, evidence
from monitor.config.options import CheckOptions
from monitor.text import units
from tests.conftest import shared_path


def _memos() -> list[int]:
    return [
        len(evidence._cache),
        len(data_context._cache),
        len(contrast_sentences._sentences),
        len(units._EVIDENCE_QUANTITIES),
    ]


def test_clear_caches_forgets_every_per_text_memo() -> None:
    path = shared_path("eval", "dev", "ragtruth-dev.events.jsonl")
    lines = path.read_bytes().splitlines()
    # answers over prose and over structured data (RAGTruth's data-to-text task: a JSON
    # document), so that every memo gets entries
    with_data = [raw for raw in lines if json.loads(raw)["metadata"]["task_type"] == "Data2txt"]
    options = CheckOptions()
    for raw in [*lines[:40], *with_data[:20]]:
        check_bytes(raw, options)
    assert all(n > 0 for n in _memos()), _memos()
    clear_caches()
    assert _memos() == [0, 0, 0, 0]
