"""`python -m agents.bench.digest`: usage, a missing file, and the same digest for the same file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.bench.digest import main
from agents.checking import fastcore
from tests.conftest import standard_mix


@pytest.fixture(autouse=True)
def _no_core_switch(monkeypatch: pytest.MonkeyPatch) -> None:
    # main() picks the checking core as a command does; in this test process monitor is
    # already imported, and activate() would only record why it stays pure (module state)
    monkeypatch.setattr(fastcore, "activate", lambda *args, **kwargs: "pure: test")


def test_help_and_no_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "agents.bench.digest FILE" in capsys.readouterr().out
    assert main([]) == 2


def test_a_missing_file_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope.jsonl")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_one_file_twice_gives_one_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mix.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in standard_mix(60, seed=3)))
    assert main([str(path), str(path)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["path"] for r in rows] == ["in process", "check process"] * 2
    assert rows[0] == rows[2] and rows[1] == rows[3]
    # the check process's pickling changes nothing the path writes
    assert {k: v for k, v in rows[0].items() if k != "path"} == {
        k: v for k, v in rows[1].items() if k != "path"
    }
    assert rows[0]["checked"] == 60
