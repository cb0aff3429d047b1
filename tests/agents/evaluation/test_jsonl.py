"""The label files' reader (agents/evaluation/jsonl.py): blank lines skipped, every error names
the file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.evaluation.jsonl import jsonl_rows
from monitor.config.errors import InputError


def test_rows_with_their_line_numbers_blank_lines_skipped(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"event_id": "a"}\n\n  \n[1, 2]\n', encoding="utf-8")
    assert list(jsonl_rows(str(path))) == [(f"{path}:1", {"event_id": "a"}), (f"{path}:4", [1, 2])]


def test_a_line_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"event_id": "a"}\n{oops\n', encoding="utf-8")
    rows = jsonl_rows(str(path))
    assert next(rows)[1] == {"event_id": "a"}
    with pytest.raises(InputError, match=r"labels\.jsonl:2: not JSON"):
        next(rows)


def test_a_missing_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"cannot read .*nope\.jsonl"):
        list(jsonl_rows(str(tmp_path / "nope.jsonl")))
