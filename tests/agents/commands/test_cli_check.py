"""`ragmon check` end to end through the real CLI entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agents.cli import main
from tests.conftest import shared_path, standard_mix


def _validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(shared_path("schema", "verdict.schema.json").read_text())
    return jsonschema.Draft202012Validator(schema)


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for command in ("check", "bench"):
        assert command in out


def test_check_writes_one_valid_verdict_per_line(
    tmp_path: Path, mix_300: list[dict[str, Any]]
) -> None:
    events = mix_300[:60]
    lines = [json.dumps(e) for e in events]
    lines.insert(10, "{broken json")
    lines.insert(20, json.dumps({"event_id": "no-answer"}))
    lines.insert(30, "")
    src = tmp_path / "in.jsonl"
    src.write_bytes(("\n".join(lines) + "\n").encode() + b"\xff\xfe\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "agents.cli", "check", str(src), "-o", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    verdicts = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(verdicts) == len(lines) + 1
    validator = _validator()
    for v in verdicts:
        errors = list(validator.iter_errors(v))
        assert not errors, (v["event_id"], errors[0].message)
    assert verdicts[10]["error"] == "invalid_json"
    assert verdicts[20]["error"] == "schema_violation" and verdicts[20]["event_id"] == "no-answer"
    assert verdicts[30]["error"] == "empty"
    assert verdicts[-1]["error"] == "invalid_utf8"
    ok = [v for v in verdicts if v["error"] is None]
    assert [v["event_id"] for v in ok] == [e["event_id"] for e in events]
    assert "events:" in proc.stderr and "events/s" in proc.stderr


def test_check_reads_stdin_and_reports_missing_file(tmp_path: Path) -> None:
    event = {
        "event_id": "e1",
        "answer": "Revenue grew 5% in 2024 [1].",
        "documents": [{"id": "1", "text": "Revenue grew 5% in 2024."}],
    }
    proc = subprocess.run(
        [sys.executable, "-m", "agents.cli", "check", "-", "-q"],
        input=json.dumps(event) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    verdict = json.loads(proc.stdout)
    assert verdict["citations"][0]["status"] == "valid"
    assert proc.stderr == ""
    missing = subprocess.run(
        [sys.executable, "-m", "agents.cli", "check", str(tmp_path / "nope.jsonl")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 1
    assert "cannot read" in missing.stderr and "Traceback" not in missing.stderr


def test_shared_mix_generator_is_reachable() -> None:
    assert len(standard_mix(3)) == 3


def test_check_lines_are_utf8_json_equal_to_the_standard_librarys(
    tmp_path: Path, mix_300: list[dict[str, Any]]
) -> None:
    from monitor.check import check_bytes
    from monitor.config.options import CheckOptions
    from monitor.output.verdict_io import dumps_line, verdict_to_dict

    events = [
        *mix_300[:20],
        {
            "event_id": "é",
            "answer": "Zürich grew 5% [1].",
            "documents": [{"id": "1", "text": "Zürich grew 5%."}],
        },
    ]
    lines = [json.dumps(e).encode() for e in events]
    # a lone surrogate, legal in escaped JSON, cannot be written as UTF-8: escaped instead
    lines.append(b'{"event_id": "s", "answer": "Sales rose \\ud800 in 2024.", "documents": []}')
    src = tmp_path / "in.jsonl"
    src.write_bytes(b"\n".join(lines) + b"\n")
    out = tmp_path / "out.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "agents.cli", "check", str(src), "-o", str(out), "-q"],
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    written = out.read_bytes().decode("utf-8").splitlines()
    options = CheckOptions()
    expected = [
        dumps_line(verdict_to_dict(check_bytes(raw, options), options.cited_text_max_chars))  # type: ignore[arg-type]
        for raw in lines
    ]
    assert len(written) == len(expected) == 22
    assert [json.loads(w) for w in written] == [json.loads(e) for e in expected]
    assert '"Zürich' in written[20]  # non-ASCII kept, not escaped
    assert "\\ud800" in written[21]
