"""The judge against the ways real servers differ, over real HTTP (the scripted server).

A server that refuses the response format (llama-cpp-python answers `json_schema` with a 500,
others with a 400) is never retried as it is: `auto` moves to the next form and keeps it; a
fixed form ends the call as `format_rejected`, with the server's words. A reply that copies the
prompt's template is not a verdict. `ragmon eval --judge` fails loudly when nothing was judged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from agents.judging.fake_server import JudgeHTTPServer
from agents.judging.observer import MetricsObserver
from agents.kafka.broker import free_port
from agents.telemetry.metrics import Metrics
from monitor.judge.client import JudgeClient
from monitor.judge.config import JudgeConfig
from monitor.judge.prompt import Pair
from monitor.judge.sent_schema import SENT_REASONING_CHARS

pytestmark = pytest.mark.integration

SUPPORTED = Pair("Revenue grew five percent", "In 2023 revenue grew by five percent overall.")
CONTRADICTED = Pair("The premium costs twelve hundred", "Premium: nine hundred dollars.")


async def _no_sleep(seconds: float) -> None:
    return None


def client_for(url: str, metrics: Metrics, model: str, **cfg: Any) -> JudgeClient:
    base: dict[str, Any] = {
        "base_url": url,
        "api_key": "sk-test-secret-123456",
        "model": model,
        "escalation_model": None,
        "timeout": 2.0,
        "max_retries": 2,
        "backoff": 0.01,
    }
    base.update(cfg)
    return JudgeClient(JudgeConfig(**base), observer=MetricsObserver(metrics), sleep=_no_sleep)


def value(metrics: Metrics, name: str, **labels: str) -> float:
    return metrics.registry.get_sample_value(name, labels) or 0.0


def bodies(judge_server: JudgeHTTPServer, model: str) -> list[dict[str, Any]]:
    return [r for r in judge_server.state.requests if r.get("model") == model]


@pytest.mark.parametrize("model", ["format400", "format500"])
async def test_auto_switches_form_on_a_refusal_and_keeps_it(
    judge_server: JudgeHTTPServer, metrics: Metrics, model: str
) -> None:
    client = client_for(judge_server.url, metrics, model)
    # the server is the module's: other tests may have sent this model requests already
    before = len(bodies(judge_server, model))
    first = await client.judge([SUPPORTED, CONTRADICTED])
    second = await client.judge([Pair("Profit fell", "Profit fell sharply.")])
    await client.aclose()
    assert [o.claim_verdict for o in first] == ["supported", "not_supported"]
    assert [o.claim_verdict for o in second] == ["supported"]
    sent = [b["response_format"] for b in bodies(judge_server, model)[before:]]
    # one refused json_schema attempt, then llama-cpp-python's form for every call
    assert [f["type"] for f in sent] == ["json_schema", "json_object", "json_object"]
    assert all("schema" in f for f in sent[1:])
    assert client.form == "json_object_schema"
    # the schema a grammar enforces: the asked ids, exactly as many verdicts, short reasoning
    verdicts = sent[1]["schema"]["properties"]["verdicts"]
    assert (verdicts["minItems"], verdicts["maxItems"]) == (2, 2)
    yes, no = (alt["properties"] for alt in verdicts["items"]["anyOf"])
    assert yes["claim_id"]["enum"] == no["claim_id"]["enum"] == [1, 2]
    assert yes["reasoning"]["maxLength"] == SENT_REASONING_CHARS
    # supports is tied to the judgement: a grammar cannot emit CONTRADICTION with supports true
    assert (yes["judgement"], yes["supports"]) == ({"const": "ENTAILMENT"}, {"const": True})
    assert no["supports"] == {"const": False} and "ENTAILMENT" not in no["judgement"]["enum"]
    assert value(metrics, "ragmon_judge_retries_total", model=model, reason="format_switch") == 1
    assert value(metrics, "ragmon_judge_retries_total", model=model, reason="server_error") == 0
    assert value(metrics, "ragmon_judge_requests_total", model=model, outcome="ok") == 2
    assert "Input should be 'text' or 'json_object'" in client.problems["format_switch"]


async def test_a_fixed_form_refused_is_not_retried(
    judge_server: JudgeHTTPServer, metrics: Metrics
) -> None:
    client = client_for(judge_server.url, metrics, "format400", response_format="json_schema")
    before = len(bodies(judge_server, "format400"))
    out = await client.judge([SUPPORTED])
    await client.aclose()
    assert [(o.outcome, o.verdict) for o in out] == [("format_rejected", None)]
    assert len(bodies(judge_server, "format400")) - before == 1
    assert client.problems["format_rejected"].startswith("HTTP 400: ")
    assert "Input should be 'text' or 'json_object'" in client.problems["format_rejected"]
    outcome = {"model": "format400", "outcome": "format_rejected"}
    assert value(metrics, "ragmon_judge_requests_total", **outcome) == 1


@pytest.mark.parametrize("model", ["echo", "echo-rules"])
async def test_an_echoed_example_is_never_a_verdict(
    judge_server: JudgeHTTPServer, metrics: Metrics, model: str
) -> None:
    client = client_for(judge_server.url, metrics, model)
    out = await client.judge([SUPPORTED, CONTRADICTED])
    answer = await client.judge_answer("q?", "An answer [1].", "The reference.")
    await client.aclose()
    assert [(o.outcome, o.verdict) for o in out] == [("judge_error", None)] * 2
    assert (answer.outcome, answer.verdict) == ("judge_error", None)
    # 2 attempts per call, each reply rejected as the template copied back
    reasons = {"model": model, "reason": "echoed_example"}
    assert value(metrics, "ragmon_judge_invalid_replies_total", **reasons) == 4
    assert "echoed_example" in client.problems["judge_error"]


async def test_other_client_errors_keep_the_server_words_without_the_key(
    judge_server: JudgeHTTPServer, metrics: Metrics
) -> None:
    client = client_for(judge_server.url, metrics, "401")
    out = await client.judge([SUPPORTED])
    await client.aclose()
    assert out[0].outcome == "client_error"
    assert client.problems["client_error"] == "HTTP 401: bad key"
    assert "sk-test-secret" not in json.dumps(client.problems)


async def test_each_call_asks_for_what_its_reply_can_need(
    judge_server: JudgeHTTPServer, metrics: Metrics
) -> None:
    client = client_for(judge_server.url, metrics, "ok@0", max_output_tokens=1_000)
    await client.judge([Pair(f"Claim {i} grew", f"Claim {i} grew a lot.") for i in range(5)])
    await client.judge([Pair("One more claim", "One more claim here.")])
    await client.aclose()
    caps = [b["max_tokens"] for b in bodies(judge_server, "ok@0")[-2:]]
    assert caps == [1_000, 40 + 210]  # 40 + 5 × 210 = 1090, held to the ceiling


async def test_ollama_native_form(judge_server: JudgeHTTPServer, metrics: Metrics) -> None:
    client = client_for(judge_server.url, metrics, "qwen-native", response_format="ollama")
    out = await client.judge([SUPPORTED])
    await client.aclose()
    assert [o.claim_verdict for o in out] == ["supported"]
    (body,) = bodies(judge_server, "qwen-native")
    assert body["stream"] is False and body["format"]["required"] == ["verdicts"]
    assert body["options"] == {"temperature": 0.0, "num_predict": 250}
    assert value(metrics, "ragmon_judge_tokens_total", model="qwen-native", direction="in") == 100


def _eval(tmp_path: Any, monkeypatch: pytest.MonkeyPatch, url: str, model: str) -> int:
    from agents.cli import main
    from tests.conftest import shared_path

    events = shared_path("eval", "dev", "wice-dev.events.jsonl").read_text().splitlines()[:3]
    labels = shared_path("eval", "dev", "wice-dev.labels.jsonl").read_text().splitlines()[:3]
    (tmp_path / "e.jsonl").write_text("\n".join(events) + "\n")
    (tmp_path / "l.jsonl").write_text("\n".join(labels) + "\n")
    for key, val in {
        "OPENAI_BASE_URL": url,
        "RAGMON_JUDGE_MODEL": model,
        "RAGMON_ESCALATION_MODEL": "",
        "RAGMON_JUDGE_MAX_RETRIES": "1",
        "RAGMON_JUDGE_BACKOFF_SECONDS": "0.01",
    }.items():
        monkeypatch.setenv(key, val)
    return int(
        main(["eval", str(tmp_path / "e.jsonl"), "--labels", str(tmp_path / "l.jsonl"), "--judge"])
    )


def test_eval_with_an_unreachable_judge_exits_non_zero_naming_the_url(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    assert _eval(tmp_path, monkeypatch, url, "m") == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1  # one line, naming the URL
    assert err[0].startswith(f"ragmon eval: the judge is unreachable: cannot reach {url}: ")


def test_eval_when_every_call_fails_says_why(
    judge_server: JudgeHTTPServer, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    assert _eval(tmp_path, monkeypatch, judge_server.url, "500") == 1
    captured = capsys.readouterr()
    last = captured.err.strip().splitlines()[-1]
    assert last.startswith(
        f"ragmon eval: every judge call to {judge_server.url} failed (server_error "
    )
    assert last.endswith("last server_error: HTTP 500: boom")  # no hint for a broken server
    assert "columns judge verdict" in captured.out


async def test_the_retry_after_an_unusable_reply_samples(
    judge_server: JudgeHTTPServer, metrics: Metrics
) -> None:
    """At temperature 0 the same request returns the same reply: the retry must differ."""
    client = client_for(judge_server.url, metrics, "malformed-once")
    out = await client.judge([Pair("Sales rose in May", "Sales rose in May and June.")])
    await client.aclose()
    assert [o.claim_verdict for o in out] == ["supported"]
    assert [b["temperature"] for b in bodies(judge_server, "malformed-once")[-2:]] == [0.0, 0.7]
    reasons = {"model": "malformed-once", "reason": "not_json"}
    assert value(metrics, "ragmon_judge_invalid_replies_total", **reasons) == 1


def test_eval_with_a_refused_format_names_it_and_hints(
    judge_server: JudgeHTTPServer, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    monkeypatch.setenv("RAGMON_JUDGE_RESPONSE_FORMAT", "json_schema")
    assert _eval(tmp_path, monkeypatch, judge_server.url, "format500") == 1
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert "failed (format_rejected 3); last format_rejected: HTTP 500: " in last
    assert "Input should be 'text' or 'json_object'" in last
    assert last.endswith(
        "(RAGMON_JUDGE_RESPONSE_FORMAT=auto tries each form; docs/judge.md "
        "names the one your server takes)"
    )
