"""Who may read the evidence, over HTTP against a real worker: a non-loopback bind without a
token refuses to start; with a token, /evidence and its JSON answer 401 without it and 200 with
it (bearer or the login cookie), /metrics stays open; a redacted field appears nowhere."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from agents.kafka.broker import EmbeddedBroker, free_port
from tests.integration.conftest import ROOT, Namespace, WorkerProcess, produce, wait_until

pytestmark = pytest.mark.integration

TOKEN = "evidence-token-for-the-access-test"
EMAIL = "jane.doe@example.com"
APP = "shop"
DOC = "The annual report states that revenue grew 12 percent in 2023."


def test_a_non_loopback_bind_without_a_token_refuses_to_start() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAGMON_")}
    env.update(
        RAGMON_METRICS_HOST="0.0.0.0",  # refused before anything binds or connects
        RAGMON_BOOTSTRAP_SERVERS=f"127.0.0.1:{free_port()}",
        PYTHONPATH=str(ROOT),
    )
    run = subprocess.run(
        [sys.executable, "-m", "agents.cli", "worker", "--max-wait", "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "RAGMON_EVIDENCE_TOKEN is not set" in lines[0]
    assert "RAGMON_METRICS_HOST=0.0.0.0" in lines[0]
    # with the page off the same worker goes on to the broker (unreachable here: its own error)
    off = subprocess.run(
        [sys.executable, "-m", "agents.cli", "worker", "--max-wait", "1"],
        cwd=ROOT,
        env={**env, "RAGMON_EVIDENCE": "off"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "RAGMON_EVIDENCE_TOKEN" not in off.stderr
    assert "unreachable" in off.stderr or "did not answer" in off.stderr, off.stderr[-2000:]


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def login(base: str, token: str, target: str) -> tuple[int, dict[str, str]]:
    body = urllib.parse.urlencode({"token": token, "next": target}).encode()
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(base + "/evidence/login", data=body, timeout=30) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers)


def test_the_page_needs_the_token_metrics_do_not_and_redaction_holds(
    broker: EmbeddedBroker, start_worker: Callable[..., WorkerProcess]
) -> None:
    ns = Namespace("access")
    worker = start_worker(
        ns,
        RAGMON_EVIDENCE_TOKEN=TOKEN,
        RAGMON_REDACT="email",
        RAGMON_AUDIT_SAMPLE_RATE="1.0",
        RAGMON_CHECK_PROCESSES="0",
    )
    worker.wait_assigned(timeout=90)
    event = {
        "event_id": "mail-1",
        "app": APP,
        "question": f"What did {EMAIL} ask about revenue?",
        "answer": f"Revenue grew 40 percent [report.pdf:1:30-55]. Write to {EMAIL}.",
        "documents": [{"id": "report.pdf", "text": DOC}],
    }
    meta = produce(
        broker.bootstrap, ns.topic("answers"), [(APP.encode(), json.dumps(event).encode())]
    )
    # every verdict asked for: a lone answer moved its window by nothing, so it is listed only then
    query = f"app={APP}&since=1h&verdict=supported,partially_supported,not_supported,unverifiable"
    page = f"{worker.base}/evidence?{query}"
    api = f"{worker.base}/evidence/api?{query}"
    bearer = {"Authorization": f"Bearer {TOKEN}"}

    # without the token: 401 with the bearer challenge; a browser gets the login form
    status, headers, body = get(page)
    assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer")
    assert b'action="/evidence/login"' in body and EMAIL.encode() not in body
    assert get(api)[0] == 401
    assert get(api, {"Authorization": "Bearer wrong-token-wrong-token"})[0] == 401
    assert get(f"{worker.base}/evidence/api/answer?partition=0&offset=0")[0] == 401
    # /metrics stays open for Prometheus; the runbook (docs, no answers) too, a page per rule
    assert get(worker.base + "/metrics")[0] == 200
    status, _, body = get(worker.base + "/evidence/runbook/hallucination_high")
    assert status == 200 and b"<h1>ragmon runbook: hallucination_high</h1>" in body
    assert b"First three things to check" in body
    assert get(worker.base + "/evidence/runbook/no_such_rule")[0] == 404

    def report() -> dict[str, Any] | None:
        status, _, body = get(api, bearer)
        assert status == 200, body
        found = json.loads(body)
        return found if found["answers"] else None

    data = wait_until(report, 60, what="the audited answer")
    assert data["answers"][0]["event_id"] == "mail-1"
    status, _, html_body = get(page, bearer)
    assert status == 200 and b"mail-1" in html_body

    # the raw answer record (the answers topic is never redacted at write) is redacted on the way out
    raw_url = (
        f"{worker.base}/evidence/api/answer?partition={meta[0].partition}&offset={meta[0].offset}"
    )
    status, _, raw = get(raw_url, bearer)
    assert status == 200 and b"[redacted:email]" in raw
    for body in (json.dumps(data).encode(), html_body, raw):
        assert EMAIL.encode() not in body

    # a browser: the token once, then the cookie; the cookie is not the token
    status, headers = login(worker.base, "not-the-token-at-all", "/evidence?app=shop")
    assert status == 401 and "Set-Cookie" not in headers
    status, headers = login(worker.base, TOKEN, f"/evidence?{query}")
    assert status == 303 and headers["Location"] == f"/evidence?{query}"
    cookie = headers["Set-Cookie"].split(";", 1)[0]
    assert cookie.startswith("ragmon_login=v1.") and TOKEN not in cookie
    assert get(page, {"Cookie": cookie})[0] == 200
    assert get(page, {"Cookie": cookie[:-2] + "00"})[0] == 401
