"""How the reply's structure is asked of each kind of model server. Pure.

Servers disagree on the request field for structured output, and one that does not know a form
rejects the whole request:

  openai              `response_format: {type: json_schema, strict: true}` with the portable
                      schema (hosted OpenAI refuses length keywords)
  json_schema         the same field with the bounded schema: llama.cpp's `llama-server`, vLLM,
                      LM Studio, Ollama >= 0.5 on /v1 (each compiles it into a grammar)
  json_object_schema  `response_format: {type: json_object, schema: ...}`: llama-cpp-python's
                      `llama_cpp.server` (it refuses `json_schema`)
  ollama              Ollama's native /api/chat with `format: <schema>`
  json_object         `response_format: {type: json_object}`: JSON, unconstrained shape
  none                no field: the prompt alone asks for the JSON

`auto` starts with the strongest form the server is likely to take (`openai` for a hosted
endpoint, `json_schema` otherwise) and, when the server answers a request with an error that
names the response format, moves to the next form of `fallbacks` instead of retrying; the client
remembers the form that worked.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any
from urllib.parse import urlsplit

from monitor.judge.sent_schema import answer_request_schema, batch_request_schema

FORMS: tuple[str, ...] = (
    "openai",
    "json_schema",
    "json_object_schema",
    "ollama",
    "json_object",
    "none",
)
#: Forms whose schema a grammar enforces: the bounded schema is sent.
BOUNDED: frozenset[str] = frozenset({"json_schema", "json_object_schema", "ollama"})
#: The order `auto` tries, per kind of endpoint. Ollama's /v1 takes json_schema, so the native
#: form is only used when chosen.
_AUTO_LOCAL = ("json_schema", "json_object_schema", "json_object", "none")
_AUTO_HOSTED = ("openai", "json_schema", "json_object", "none")

# An error that is about the structured-output field, as servers word it: llama-cpp-python
# ("Input should be 'text' or 'json_object'" at response_format.type), vLLM ("guided decoding"),
# llama-server ("json_schema"), OpenAI ("Invalid schema for response_format").
_FORMAT_WORDS = re.compile(
    r"response_format|json_schema|json_object|\bschema\b|grammar|guided|structured output"
    r"|'text' or 'json",
    re.IGNORECASE,
)


def is_local(base_url: str | None) -> bool:
    """A model server on this machine or a private network (loopback, RFC 1918, link-local,
    `localhost`, a single-label or `.local` host name): one that usually serves one request at a
    time on the hardware it has. None (the OpenAI default) is hosted."""
    if not base_url:
        return False
    host = urlsplit(base_url if "//" in base_url else f"//{base_url}").hostname or ""
    if host == "localhost" or host.endswith((".local", ".localhost", ".internal")):
        return True
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host  # `ollama`, `vllm`: a compose or cluster service name
    return addr.is_loopback or addr.is_private or addr.is_link_local


def fallbacks(setting: str, base_url: str | None) -> tuple[str, ...]:
    """The forms to try, in order: the configured one alone, or the `auto` sequence."""
    if setting != "auto":
        if setting not in FORMS:
            raise ValueError(f"unknown response format {setting!r}")
        return (setting,)
    return _AUTO_LOCAL if is_local(base_url) else _AUTO_HOSTED


def names_format(message: str) -> bool:
    """The server's error text is about the structured-output request field."""
    return bool(_FORMAT_WORDS.search(message))


def format_fields(form: str, schema: dict[str, Any], name: str) -> dict[str, Any]:
    """The body fields that ask `form` of an OpenAI-compatible /chat/completions endpoint (the
    native Ollama body is built by `ollama_body`)."""
    if form in ("openai", "json_schema"):
        spec = {"name": name, "strict": True, "schema": schema}
        return {"response_format": {"type": "json_schema", "json_schema": spec}}
    if form == "json_object_schema":
        return {"response_format": {"type": "json_object", "schema": schema}}
    if form == "json_object":
        return {"response_format": {"type": "json_object"}}
    return {}


def request(
    form: str,
    model: str,
    messages: list[dict[str, Any]],
    schema: dict[str, Any],
    name: str,
    temperature: float,
    max_tokens: int,
    base_url: str | None,
) -> tuple[str, dict[str, Any]]:
    """(path or URL, body) of one attempt in `form`."""
    if form == "ollama":
        body = ollama_body(model, messages, schema, temperature, max_tokens)
        return ollama_url(base_url), body
    body = {
        "model": model,
        "messages": messages,
        "temperature": temperature,
        "max_tokens": max_tokens,
    }
    body.update(format_fields(form, schema, name))
    return "/chat/completions", body


def batch_schema(form: str, claim_ids: tuple[int, ...]) -> dict[str, Any]:
    return batch_request_schema(claim_ids, bounded=form in BOUNDED)


def answer_schema(form: str) -> dict[str, Any]:
    return answer_request_schema(bounded=form in BOUNDED)


def ollama_url(base_url: str | None) -> str:
    """Ollama's native chat endpoint from an OpenAI-style base URL (`…:11434/v1` → `…/api/chat`)."""
    root = (base_url or "http://127.0.0.1:11434").rstrip("/")
    if root.endswith("/v1"):
        root = root[: -len("/v1")]
    return f"{root}/api/chat"


def ollama_body(
    model: str,
    messages: list[dict[str, Any]],
    schema: dict[str, Any],
    temperature: float,
    max_tokens: int,
) -> dict[str, Any]:
    return {
        "model": model,
        "messages": messages,
        "stream": False,
        "format": schema,
        "options": {"temperature": temperature, "num_predict": max_tokens},
    }


def read_ollama(reply: Any) -> tuple[str | None, str | None, int | None, int | None]:
    """(content, finish reason, prompt tokens, completion tokens) of a native Ollama reply."""
    if not isinstance(reply, dict):
        return None, None, None, None
    message = reply.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    finish = "length" if reply.get("done_reason") == "length" else "stop"
    tokens_in, tokens_out = reply.get("prompt_eval_count"), reply.get("eval_count")
    return (
        content if isinstance(content, str) else None,
        finish,
        tokens_in if isinstance(tokens_in, int) else None,
        tokens_out if isinstance(tokens_out, int) else None,
    )
