"""JSON Lines as the label files and imports write them: one JSON value per non-blank line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from monitor.config.errors import InputError


def json_lines(lines: Iterable[str], name: str) -> Iterator[tuple[str, Any]]:
    """("NAME:LINE", value) of every non-blank line; a line that is not JSON is an InputError
    naming it. What a value must be (an object, with which keys) is the caller's to say."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            raise InputError(f"{name}:{n}: not JSON") from None
        yield f"{name}:{n}", value
