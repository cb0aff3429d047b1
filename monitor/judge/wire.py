"""What goes over the wire for one judge attempt, and what comes back. Pure.

`server_error_text` turns a failed HTTP exchange into one line an operator can act on: the
server's own message (OpenAI-style `error.message`, FastAPI's `detail`, or the raw text),
with anything that looks like a credential removed and the length bounded.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from monitor.judge.prompt import estimate_tokens

MAX_DETAIL_CHARS = 300
# Bearer tokens, OpenAI-style keys, `api_key=...`/`"password": "..."` pairs.
_SECRETS = re.compile(
    r"(?i)(bearer\s+)[\w.~+/=-]+"
    r"|\bsk-[\w-]{6,}"
    r"|((?:api[_-]?key|token|password|secret|authorization)[\"']?\s*[:=]\s*[\"']?"
    r"(?:bearer\s+)?)[^\s\"',}]+"
)


def redact(text: str, secrets: Iterable[str | None] = ()) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")

    def hide(m: re.Match[str]) -> str:
        prefix = m.group(1) or m.group(2) or ""
        return f"{prefix}***"

    return _SECRETS.sub(hide, text)


def _message_of(body: Any) -> str | None:
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
        if isinstance(error, str):
            return error
        for key in ("message", "detail"):
            if body.get(key):
                value = body[key]
                return value if isinstance(value, str) else json.dumps(value)[:2_000]
    if isinstance(body, str) and body.strip():
        return body
    return None


def server_error_text(
    status: int | None, body: Any, raw: str | None, secrets: Iterable[str | None] = ()
) -> str:
    """One line: `HTTP 400: <the server's message>`, secrets removed, at most ~300 chars."""
    message = _message_of(body) or _message_of(raw) or "(no message)"
    flat = " ".join(redact(message, secrets).split())
    if len(flat) > MAX_DETAIL_CHARS:
        flat = flat[: MAX_DETAIL_CHARS - 1] + "…"
    return f"HTTP {status}: {flat}" if status is not None else flat


def read_completion(
    reply: Any, messages: list[dict[str, Any]]
) -> tuple[str | None, str | None, int, int]:
    """Content, finish reason and token usage of a chat completion, tolerating odd servers:
    usage is estimated from the text when the server does not report it."""
    text: str | None = None
    finish: str | None = None
    try:
        choice = reply.choices[0]
        text = choice.message.content
        finish = choice.finish_reason
    except (AttributeError, IndexError, TypeError):
        pass
    usage = getattr(reply, "usage", None)
    return finish_usage(
        text if isinstance(text, str) else None,
        finish,
        getattr(usage, "prompt_tokens", None),
        getattr(usage, "completion_tokens", None),
        messages,
    )


def finish_usage(
    text: str | None,
    finish: str | None,
    tokens_in: Any,
    tokens_out: Any,
    messages: list[dict[str, Any]],
) -> tuple[str | None, str | None, int, int]:
    if not isinstance(tokens_in, int):
        tokens_in = sum(estimate_tokens(str(m.get("content", ""))) for m in messages)
    if not isinstance(tokens_out, int):
        tokens_out = estimate_tokens(text or "")
    return text, finish, tokens_in, tokens_out
