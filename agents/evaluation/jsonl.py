"""The label files `ragmon eval` reads: one JSON value per non-blank line."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from monitor.config.errors import InputError
from monitor.records.jsonl import json_lines


def jsonl_rows(path: str) -> Iterator[tuple[str, Any]]:
    """("PATH:LINE", value) of every non-blank line of the file at `path` (monitor/records/
    jsonl.py); an unreadable file is an InputError naming it."""
    try:
        with open(path, encoding="utf-8") as fh:
            yield from json_lines(fh, path)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
