"""Structured-output forms per server, local-server defaults, and the server's error text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.config.settings import load_settings
from monitor.judge.config import JudgeConfig
from monitor.judge.formats import (
    fallbacks,
    format_fields,
    is_local,
    names_format,
    ollama_url,
    read_ollama,
    request,
)
from monitor.judge.prompt import reply_token_cap
from monitor.judge.wire import MAX_DETAIL_CHARS, redact, server_error_text


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8000/v1", True),
        ("http://localhost:11434/v1", True),
        ("http://[::1]:8080/v1", True),
        ("http://192.168.1.20:1234/v1", True),
        ("http://10.0.0.5/v1", True),
        ("http://ollama:11434/v1", True),  # a compose service name
        ("http://gpu-box.local:8000/v1", True),
        ("https://api.openai.com/v1", False),
        ("https://my-endpoint.openai.azure.com/openai", False),
        ("http://8.8.8.8/v1", False),
        (None, False),
        ("", False),
    ],
)
def test_is_local(url: str | None, local: bool) -> None:
    assert is_local(url) is local


def test_fallbacks_by_setting_and_place() -> None:
    local, hosted = "http://127.0.0.1:8000/v1", "https://api.openai.com/v1"
    assert fallbacks("auto", local) == ("json_schema", "json_object_schema", "json_object", "none")
    assert fallbacks("auto", hosted) == ("openai", "json_schema", "json_object", "none")
    assert fallbacks("auto", None)[0] == "openai"
    assert fallbacks("json_object_schema", hosted) == ("json_object_schema",)
    with pytest.raises(ValueError):
        fallbacks("grammar", local)


@pytest.mark.parametrize(
    ("message", "about_format"),
    [
        (
            "HTTP 500: 1 validation error: ... 'msg': \"Input should be 'text' or 'json_object'\"",
            True,
        ),
        ("HTTP 400: Invalid schema for response_format 'judge_batch': ...", True),
        ("HTTP 400: guided decoding backend xgrammar does not support ...", True),
        ("HTTP 400: 'json_schema' is not supported by this model", True),
        ("HTTP 400: Requested tokens (9120) exceed context window of 8192", False),
        ("HTTP 404: The model `gpt-5` does not exist", False),
        ("HTTP 500: boom", False),
    ],
)
def test_names_format(message: str, about_format: bool) -> None:
    assert names_format(message) is about_format


def test_request_bodies_per_form() -> None:
    msgs = [{"role": "user", "content": "hi"}]
    schema = {"type": "object"}
    path, body = request("json_schema", "m", msgs, schema, "judge_batch", 0.0, 250, None)
    assert path == "/chat/completions" and body["max_tokens"] == 250
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "judge_batch", "strict": True, "schema": schema},
    }
    _, body = request("json_object_schema", "m", msgs, schema, "x", 0.0, 250, None)
    assert body["response_format"] == {"type": "json_object", "schema": schema}
    _, body = request("none", "m", msgs, schema, "x", 0.7, 250, None)
    assert "response_format" not in body and body["temperature"] == 0.7
    assert format_fields("json_object", schema, "x") == {"response_format": {"type": "json_object"}}
    url, body = request("ollama", "m", msgs, schema, "x", 0.0, 250, "http://h:11434/v1/")
    assert url == "http://h:11434/api/chat"
    assert body == {
        "model": "m",
        "messages": msgs,
        "stream": False,
        "format": schema,
        "options": {"temperature": 0.0, "num_predict": 250},
    }
    assert ollama_url(None) == "http://127.0.0.1:11434/api/chat"


def test_read_ollama() -> None:
    reply = {
        "message": {"role": "assistant", "content": "{}"},
        "done_reason": "length",
        "prompt_eval_count": 812,
        "eval_count": 64,
    }
    assert read_ollama(reply) == ("{}", "length", 812, 64)
    assert read_ollama({"message": {}, "done_reason": "stop"}) == (None, "stop", None, None)
    assert read_ollama("<html>") == (None, None, None, None)


def test_reply_token_cap() -> None:
    assert [reply_token_cap(n, 1_000) for n in (1, 2, 4, 5)] == [250, 460, 880, 1_000]
    assert reply_token_cap(1, 100) == 100 and reply_token_cap(1, 10) == 64


def test_local_defaults_from_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in (
        "OPENAI_BASE_URL",
        "RAGMON_JUDGE_TIMEOUT_SECONDS",
        "RAGMON_JUDGE_CONCURRENCY",
        "RAGMON_ESCALATION_MODEL",
    ):
        monkeypatch.delenv(key, raising=False)
    local = JudgeConfig.from_settings(load_settings(openai_base_url="http://127.0.0.1:8000/v1"))
    hosted = JudgeConfig.from_settings(load_settings())
    assert (local.timeout, local.max_in_flight, local.response_format) == (120.0, 1, "auto")
    assert (hosted.timeout, hosted.max_in_flight) == (30.0, 4)
    # the default escalation model is hosted: a local server gets none unless one is named
    assert (local.escalation_model, hosted.escalation_model) == (None, "gpt-4o")
    named = load_settings(openai_base_url="http://127.0.0.1:8000/v1", escalation_model="qwen-32b")
    assert JudgeConfig.from_settings(named).escalation_model == "qwen-32b"
    monkeypatch.setenv("RAGMON_JUDGE_TIMEOUT_SECONDS", "45")
    monkeypatch.setenv("RAGMON_JUDGE_CONCURRENCY", "auto")
    set_ = JudgeConfig.from_settings(load_settings(openai_base_url="http://127.0.0.1:8000/v1"))
    assert (set_.timeout, set_.max_in_flight) == (45.0, 1)


def test_server_error_text_picks_the_servers_words() -> None:
    openai_style = {"error": {"message": "Invalid schema for response_format", "type": "x"}}
    assert server_error_text(400, openai_style, None) == (
        "HTTP 400: Invalid schema for response_format"
    )
    fastapi = {"detail": [{"loc": ["body", "response_format"], "msg": "bad"}]}
    assert server_error_text(422, fastapi, None).startswith('HTTP 422: [{"loc": ["body"')
    assert server_error_text(502, None, "<html>Bad gateway</html>") == (
        "HTTP 502: <html>Bad gateway</html>"
    )
    assert server_error_text(500, None, "") == "HTTP 500: (no message)"


def test_secrets_never_reach_the_text() -> None:
    body = {
        "error": {
            "message": "Incorrect API key provided: sk-proj-abcdef123456. "
            "Authorization: Bearer tok.en-987 api_key=hunter22 my-own-key-xyz"
        }
    }
    text = server_error_text(401, body, None, secrets=("my-own-key-xyz",))
    for secret in ("sk-proj-abcdef123456", "tok.en-987", "hunter22", "my-own-key-xyz"):
        assert secret not in text
    assert text.startswith("HTTP 401: Incorrect API key provided: ***")


_key = st.text(
    alphabet=st.characters(min_codepoint=33, max_codepoint=126, exclude_characters="\"'"),
    min_size=8,
    max_size=40,
)


@given(st.text(max_size=600), _key, st.text(max_size=600))
def test_redacted_text_is_bounded_and_keyless(before: str, key: str, after: str) -> None:
    text = server_error_text(400, {"error": {"message": before + key + after}}, None, (key,))
    assert key not in text
    assert len(text) <= len("HTTP 400: ") + MAX_DETAIL_CHARS
    assert "\n" not in text
    assert redact(key, (key,)) == "***"
