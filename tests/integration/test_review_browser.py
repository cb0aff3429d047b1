"""A reviewer labels a claim on the evidence page, in a real browser (Debian's chromium, headless,
driven over the DevTools protocol): logs in with RAGMON_REVIEW_TOKEN, presses "not supported"
on a claim with a name that is markup; the label reaches the `labels` topic (`ragmon label
list`), the page shows it as text, and no script element exists on the page."""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.kafka.broker import EmbeddedBroker, free_port
from tests.integration.conftest import ROOT, Namespace, WorkerProcess, produce, wait_until

pytestmark = pytest.mark.integration

TOKEN = "review-token-for-the-browser-test"
APP = "shop"
DOC = "The annual report states that revenue grew 12 percent in 2023."
EVIL = "<script>alert(1)</script>"


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("Debian's chromium is not installed")


class Browser:
    """One headless chromium page, driven over the DevTools protocol (aiohttp's websocket)."""

    def __init__(self, tmp_path: Path) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [
                chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={tmp_path / 'profile'}",
                f"--remote-debugging-port={self.port}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.ids = itertools.count(1)

    def ws_url(self) -> str:
        def page() -> str | None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/list") as r:
                    targets = json.load(r)
            except OSError:
                return None
            found = [t["webSocketDebuggerUrl"] for t in targets if t.get("type") == "page"]
            return found[0] if found else None

        return str(wait_until(page, 30, what="chromium's DevTools endpoint"))

    async def run(self, steps: Callable[[Any], Any]) -> Any:
        import aiohttp

        async with aiohttp.ClientSession() as session, session.ws_connect(self.ws_url()) as ws:

            async def call(method: str, **params: Any) -> Any:
                ident = next(self.ids)
                await ws.send_json({"id": ident, "method": method, "params": params})
                while True:
                    msg = await ws.receive_json(timeout=60)
                    if msg.get("id") == ident:
                        assert "error" not in msg, msg
                        return msg.get("result")

            return await steps(call)

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


async def _goto(call: Any, url: str) -> None:
    await call("Page.navigate", url=url)
    await _settle(call)


async def _settle(call: Any) -> None:
    """Until the document is complete (a form's POST and its redirect included)."""
    deadline = time.monotonic() + 30
    await asyncio.sleep(0.5)
    while time.monotonic() < deadline:
        got = await call("Runtime.evaluate", expression="document.readyState")
        if got["result"].get("value") == "complete":
            return
        await asyncio.sleep(0.2)
    raise AssertionError("page did not load")


async def _submit(call: Any, expression: str) -> None:
    """Run `expression` (which submits a form) and wait for the next document to load."""
    await _eval(call, "window.__old_document = true")
    await _eval(call, expression)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        await asyncio.sleep(0.3)
        fresh = await _eval(call, "window.__old_document === undefined")
        if fresh and await _eval(call, "document.readyState") == "complete":
            return
    raise AssertionError("the form's POST did not load a new page")


async def _eval(call: Any, expression: str) -> Any:
    got = await call("Runtime.evaluate", expression=expression, returnByValue=True)
    return got["result"].get("value")


def test_a_reviewer_labels_a_claim_in_the_browser(
    broker: EmbeddedBroker, start_worker: Callable[..., WorkerProcess], tmp_path: Path
) -> None:
    ns = Namespace("review")
    worker = start_worker(
        ns,
        RAGMON_REVIEW_TOKEN=TOKEN,
        RAGMON_AUDIT_SAMPLE_RATE="1.0",
        RAGMON_CHECK_PROCESSES="0",
    )
    worker.wait_assigned(timeout=90)
    event = {
        "event_id": "rev-1",
        "app": APP,
        "question": "How did revenue change?",
        "answer": "Revenue grew 40 percent [report.pdf:1:30-55]. Costs fell in Asia.",
        "documents": [{"id": "report.pdf", "text": DOC}],
    }
    produce(broker.bootstrap, ns.topic("answers"), [(APP.encode(), json.dumps(event).encode())])
    verdicts = "verdict=supported,partially_supported,not_supported,unverifiable"
    page = f"{worker.base}/evidence?app={APP}&since=1h&{verdicts}"
    browser = Browser(tmp_path)
    try:

        async def steps(call: Any) -> dict[str, Any]:
            await call("Page.enable")
            await call("Runtime.enable")
            await _goto(call, f"{worker.base}/evidence/login?next=/evidence")
            await _eval(call, f"document.querySelector('input[name=token]').value = '{TOKEN}'")
            await _submit(call, "document.querySelector('form').submit()")
            where = str(await _eval(call, "location.pathname + document.body.innerText"))
            assert not where.startswith("/evidence/login"), where
            for _ in range(60):  # until the answer is audited and listed
                await _goto(call, page)
                if await _eval(call, "document.querySelectorAll('form.review').length"):
                    break
                await asyncio.sleep(1)
            await _submit(
                call,
                "var f = document.querySelector('form.review');"
                f"f.querySelector('input[name=reviewer]').value = {json.dumps(EVIL)};"
                "f.querySelector('button[value=not_supported]').click()",
            )
            for _ in range(30):  # the worker reads its own label back from the topic
                await _goto(call, page)
                text = await _eval(call, "document.body.innerText")
                if EVIL in (text or ""):
                    break
                await asyncio.sleep(1)
            return {
                "text": await _eval(call, "document.body.innerText"),
                "scripts": await _eval(call, "document.querySelectorAll('script').length"),
                "url": await _eval(call, "location.href"),
            }

        got = asyncio.run(browser.run(steps))
    finally:
        browser.close()
    assert EVIL in got["text"], got["text"][-2000:]  # shown as text
    assert got["scripts"] == 0
    assert "not supported (review by" in got["text"]
    listed = subprocess.run(
        [sys.executable, "-m", "agents.cli", "label", "list", "--json", "--event", "rev-1"],
        cwd=ROOT,
        env={
            "RAGMON_BOOTSTRAP_SERVERS": broker.bootstrap,
            "RAGMON_TOPIC_PREFIX": ns.prefix,
            "PYTHONPATH": str(ROOT),
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert listed.returncode == 0, listed.stderr
    [label] = [json.loads(line) for line in listed.stdout.splitlines()]
    assert (label["label"], label["source"], label["reviewer"]) == ("not_supported", "review", EVIL)
    assert label["claim_index"] == 0 and label["app"] == APP
