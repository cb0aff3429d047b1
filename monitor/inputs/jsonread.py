"""Reading a vendor response's plain JSON: typed access that says where the response went wrong.

A field of the wrong type is a dead letter (`invalid_response`) with its path, never an
exception past the decoder.
"""

from __future__ import annotations

import json
from typing import Any

#: one encoder for every `raw`: json.dumps with arguments builds a new one per call
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), sort_keys=True)
#: fields left out of `raw`: texts that can be long (they are the excerpt or the documents)
_LONG_FIELDS = frozenset({"cited_text", "text", "document", "tool_output", "encrypted_index"})


class Unreadable(Exception):
    """The envelope cannot become an event: a dead letter with `reason` (REJECTION_REASONS)."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


def bad(where: str, expected: str) -> Unreadable:
    return Unreadable("invalid_response", f"{where} must be {expected}")


def as_obj(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise bad(where, "an object")
    return value


def as_list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise bad(where, "an array")
    return value


def opt_list(obj: dict[str, Any], key: str, where: str) -> list[Any]:
    """A list that may be absent or null (SDK dumps write null for an empty optional list)."""
    value = obj.get(key)
    return [] if value is None else as_list(value, f"{where}.{key}")


def as_str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise bad(where, "a string")
    return value


def opt_str(obj: dict[str, Any], key: str) -> str | None:
    value = obj.get(key)
    return value if isinstance(value, str) else None


def as_int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad(where, "an integer")
    return value


def pick(obj: dict[str, Any], camel: str, snake: str) -> Any:
    """A field under its JSON (camelCase) or its SDK dump (snake_case) name."""
    return obj[camel] if camel in obj else obj.get(snake)


def raw_of(citation: dict[str, Any]) -> str:
    """The API's citation object as compact JSON, its long texts left out."""
    kept = {k: v for k, v in citation.items() if k not in _LONG_FIELDS and v is not None}
    return _ENCODER.encode(kept)
