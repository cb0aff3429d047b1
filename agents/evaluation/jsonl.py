"""The label files `ragmon eval` reads: one JSON value per non-blank line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from monitor.config.errors import InputError


def jsonl_rows(path: str) -> Iterator[tuple[str, Any]]:
    """("PATH:LINE", value) of every non-blank line; an unreadable file or a line that is not
    JSON is an InputError naming it (what a row must hold is the caller's to say)."""
    try:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except ValueError:
                    raise InputError(f"{path}:{n}: not JSON") from None
                yield f"{path}:{n}", row
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
