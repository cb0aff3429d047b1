"""The standard mix (shared/bench/make_events.py): every citation's raw, status and error, in
order, must equal metadata.expect.citations."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from monitor.citations import extract_citations, resolve_citations
from monitor.config.options import CheckOptions
from monitor.inputs.decode import event_from_obj
from monitor.records.models import AnswerEvent

GENERATOR = Path("/work/shared/bench/make_events.py")


@pytest.fixture(scope="module")
def mix() -> list[dict[str, object]]:
    if not GENERATOR.exists():
        pytest.skip("shared bench generator not available")
    out = subprocess.run(
        [sys.executable, str(GENERATOR), "--n", "300", "--seed", "11"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_standard_mix_citations_match_ground_truth(mix: list[dict[str, object]]) -> None:
    opts = CheckOptions()
    formats = set()
    mismatches = []
    for obj in mix:
        ev = event_from_obj(obj)
        assert isinstance(ev, AnswerEvent)
        found, notes = extract_citations(ev, opts)
        got = [
            {"raw": r.citation.raw, "status": r.status, "error": r.error}
            for r in resolve_citations(ev, found, opts)
        ]
        meta = obj["metadata"]
        assert isinstance(meta, dict)
        formats.add(meta["format"])
        if got != meta["expect"]["citations"] or notes:
            mismatches.append((ev.event_id, got, meta["expect"]["citations"]))
    assert mismatches == []
    assert formats == {"span", "line", "numeric", "json_path", "segments"}
