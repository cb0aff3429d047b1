"""`ragmon check` on a file of vendor envelopes (docs/inputs.md), through the real CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema

from tests.conftest import shared_path
from tests.unit.monitor.inputs.vendor_cases import all_cases, require_sdks

require_sdks()


def _check(src: Path, out: Path, **env: str) -> list[dict[str, object]]:
    proc = subprocess.run(
        [sys.executable, "-m", "agents.cli", "check", str(src), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_check_reads_a_file_of_envelopes(tmp_path: Path) -> None:
    cases = all_cases()
    src = tmp_path / "envelopes.jsonl"
    src.write_text("".join(json.dumps(c.envelope) + "\n" for c in cases))
    verdicts = _check(src, tmp_path / "out.jsonl")
    assert len(verdicts) == len(cases)
    schema = json.loads(shared_path("schema", "verdict.schema.json").read_text())
    for case, verdict in zip(cases, verdicts, strict=True):
        jsonschema.validate(verdict, schema)
        assert verdict["event_id"] == case.envelope["event_id"]
        if case.rejected:
            assert verdict["error"] == case.rejected[0]
            assert case.rejected[1] in str(verdict["error_detail"])
            continue
        assert verdict["error"] is None
        got = [(c["text"], tuple(c["citation_indexes"]), c["verdict"]) for c in verdict["claims"]]
        assert got == case.claims
        citations = verdict["citations"]
        assert isinstance(citations, list)
        assert [(c["doc_id"], c["error"]) for c in citations] == [
            (w.doc_id, w.error) for w in case.citations
        ]


def test_input_format_names_the_kind_of_a_file_without_format_keys(tmp_path: Path) -> None:
    cases = [c for c in all_cases() if c.fmt == "cohere.chat.v2" and not c.rejected]
    src = tmp_path / "cohere.jsonl"
    keyless = [{k: v for k, v in c.envelope.items() if k != "format"} for c in cases]
    src.write_text("".join(json.dumps(e) + "\n" for e in keyless))
    plain = _check(src, tmp_path / "plain.jsonl")
    assert {v["error"] for v in plain} == {"schema_violation"}  # read as v1 events: no answer
    told = _check(src, tmp_path / "told.jsonl", RAGMON_INPUT_FORMAT="cohere.chat.v2")
    for case, verdict in zip(cases, told, strict=True):
        assert verdict["error"] is None
        got = [(c["text"], tuple(c["citation_indexes"]), c["verdict"]) for c in verdict["claims"]]
        assert got == case.claims
