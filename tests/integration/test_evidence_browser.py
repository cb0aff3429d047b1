"""From the alert to the evidence in one click, in a real browser: the embedded broker, a worker,
a drift that fires `hallucination_high`; the page opened from the alert's own link lists the
answer that caused it first, with its cited passage and reasons, and shows an answer's HTML as
text. Debian's chromium, headless, started by the test; a screenshot under the test's tmp dir."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agents.kafka.broker import EmbeddedBroker
from tests.integration.conftest import Namespace, WorkerProcess, produce, wait_until

pytestmark = pytest.mark.integration

APP = "shop"
RULES = """
rules:
  - name: hallucination_high
    figure: hallucination
    above: 0.1
    resolve_at: 0.07
    window: 120s
    min_events: 10
    min_judged: 5
    for: 0s
    severity: warning
"""
DOC = (
    "The annual report states that revenue grew 12 percent in 2023, driven by strong demand "
    "for cloud services in Europe."
)
CITE = "[report.pdf:1:30-62]"  # "revenue grew 12 percent in 2023,"
GOOD = f"Revenue grew 12 percent in 2023 {CITE}."
# one answer whose six claims are all unsupported, one of them carrying markup
WORST = (
    f"Revenue grew 40 percent in 2021 {CITE}. The company opened 15 new offices in Asia. "
    "Profits tripled because of aggressive marketing campaigns. The CEO announced a merger with "
    "a rival firm. Headcount doubled across every division in 2022. <script>alert('x')</script> "
    "Dividends rose for the tenth consecutive year."
)
SMALL = f"Revenue grew 12 percent in 2023 {CITE}. Marketing spend also fell sharply last year."


def event(event_id: str, answer: str) -> tuple[bytes, bytes]:
    body = {
        "event_id": event_id,
        "app": APP,
        "question": "How did <b>revenue</b> change?",
        "answer": answer,
        "model": "gen-7",
        "documents": [{"id": "report.pdf", "text": DOC}],
    }
    return APP.encode(), json.dumps(body).encode()


def chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("Debian's chromium is not installed (apt-get install -y chromium)")


def browse(url: str, tmp_path: Path, *args: str) -> str:
    profile = tmp_path / "chromium-profile"
    out = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *args,
            url,
        ],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr.decode(errors="replace")[-2000:]
    return out.stdout.decode("utf-8", errors="replace")


def alert_line(worker: WorkerProcess) -> dict[str, Any] | None:
    for line in worker.log_path.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("event") == "alert firing" and entry.get("rule") == "hallucination_high":
            return dict(entry)
    return None


def alert_link(worker: WorkerProcess) -> str | None:
    line = alert_line(worker)
    return None if line is None else str(line["evidence"])


def test_the_page_behind_the_alert_link(
    broker: EmbeddedBroker,
    start_worker: Callable[..., WorkerProcess],
    tmp_path: Path,
) -> None:
    from agents.judging.fake_server import JudgeHTTPServer

    rules = tmp_path / "rules.yaml"
    rules.write_text(RULES, encoding="utf-8")
    ns = Namespace("evidence")
    # hallucination is an estimate from the judge's verdicts (the fake OpenAI-compatible
    # server judges by word overlap): every answer is judged
    judge = JudgeHTTPServer().start()
    worker = start_worker(
        ns,
        RAGMON_RULES_FILE=str(rules),
        RAGMON_WINDOW_SECONDS="120",
        RAGMON_WINDOW_STEP_SECONDS="5",
        RAGMON_AUDIT_SAMPLE_RATE="1.0",
        RAGMON_CHECK_PROCESSES="0",
        RAGMON_JUDGE_ENABLED="true",
        OPENAI_BASE_URL=judge.url,
        OPENAI_API_KEY="test-key",
        RAGMON_JUDGE_MODEL="ok",
        RAGMON_ESCALATION_MODEL="ok",
        RAGMON_JUDGE_SAMPLE_RATE="1",
        RAGMON_JUDGE_OVERSAMPLE_RATE="1",
    )
    try:
        run_alert_case(broker, worker, tmp_path)
    finally:
        judge.stop()


def run_alert_case(broker: EmbeddedBroker, worker: WorkerProcess, tmp_path: Path) -> None:
    ns = worker.ns
    worker.wait_assigned(timeout=90)
    produce(
        broker.bootstrap, ns.topic("answers"), [event(f"good-{i:02d}", GOOD) for i in range(30)]
    )

    def in_window() -> float:
        key = ("ragmon_window_events", frozenset({("app", APP)}))
        return worker.metrics().get(key, 0.0)

    # in the aggregate's window (not only checked), so the drift meets all 30
    wait_until(lambda: in_window() >= 30, 60, what="the healthy answers in the window")
    assert alert_link(worker) is None  # 0 of 30 claims unsupported
    drift = [event(f"small-{i:02d}", SMALL) for i in range(20)] + [event("worst-1", WORST)]
    produce(broker.bootstrap, ns.topic("answers"), drift)
    try:
        link = wait_until(lambda: alert_link(worker), 60, what="the alert's log line")
    except AssertionError:
        raise AssertionError(f"no alert; the worker's log:\n{worker.log_tail(6000)}") from None
    assert link.startswith(worker.base + "/evidence?app=shop&rule=hallucination_high&from=")

    # The JSON under the same path, for scripts; the audit trail is read by timestamp.
    api = link.replace("/evidence?", "/evidence/api?")

    def report() -> dict[str, Any] | None:
        with urllib.request.urlopen(api, timeout=30) as response:
            found = json.loads(response.read())
        # the audit records of the last answers may still be on their way
        return found if found["answers_in_range"] == 51 else None

    data = wait_until(report, 60, what="the evidence report")
    ranked = [a["event_id"] for a in data["answers"]]
    # cheap rate 26/76; the worst answer moved it by (6 − 6·26/76)/70, each small one by
    # (1 − 2·26/76)/74; the page shows the top 20 (RAGMON_EVIDENCE_ANSWERS)
    assert ranked[0] == "worst-1"
    assert data["answers"][0]["move"] == pytest.approx((6 - 6 * 26 / 76) / 70, abs=1e-6)
    assert data["answers"][1]["move"] == pytest.approx((1 - 2 * 26 / 76) / 74, abs=1e-6)
    assert len(ranked) == 20 and all(r.startswith("small-") for r in ranked[1:])
    assert data["answers"][0]["sampled_for_judge"] is True
    # a lean record (RAGMON_AUDIT_PASSAGES=reference): its passage's place only, the page cut
    # the passage out of the answer on the answers topic
    cited = data["answers"][0]["citations"][0]
    assert cited["span"] == [30, 62] and cited["cited_text"] == DOC[30:62]

    with urllib.request.urlopen(link, timeout=30) as response:
        # behind the escaping, the page may run no script at all
        assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")
        assert response.headers["Content-Type"].startswith("text/html")
    dom = browse(link, tmp_path, "--dump-dom")
    first = dom.index('id="answer-1"')
    second = dom.index('id="answer-2"')
    block = dom[first:second]
    assert "worst-1" in block
    # its cited passage, highlighted in its context, and the cheap verdict's reasons
    assert '<mark class="span">revenue grew 12 percent in 2023,</mark>' in block
    assert "not_supported" in block and "number_missing" in block
    assert "gen-7" in block and "How did &lt;b&gt;revenue&lt;/b&gt; change?" in block
    # the answer's markup is text: no script element anywhere, the text shown escaped
    assert "&lt;script&gt;alert('x')&lt;/script&gt;" in block
    assert not re.search(r"<script", dom, re.IGNORECASE)
    # the page and the alert agree: the alert's own estimate and interval, on the judge's
    # scale, from the record the worker wrote to the audit trail when the rule fired
    stated = alert_line(worker)
    assert stated is not None and "95% interval" in stated["figures"]

    def alerts() -> list[dict[str, Any]]:
        with urllib.request.urlopen(api, timeout=30) as response:
            return list(json.loads(response.read())["alerts"])

    [shown] = wait_until(alerts, 30, what="the alert's record in the audit trail")
    assert shown["text"] == stated["figures"] and shown["scale"] == "judge"
    dom = browse(link, tmp_path, "--dump-dom")
    assert html.escape(stated["figures"], quote=True) in dom
    assert "judge scale" in dom
    shot = tmp_path / "evidence.png"
    browse(link, tmp_path, f"--screenshot={shot}", "--window-size=1280,2400")
    assert shot.is_file() and shot.stat().st_size > 10_000

    # a mistyped app is no all-clear: 404, and the apps that exist, each a link
    wrong = worker.base + "/evidence?app=shpo&since=15m"
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(wrong, timeout=30)
    assert caught.value.code == 404
    dom = browse(wrong, tmp_path, "--dump-dom")
    assert "no app &#x27;shpo&#x27;" in dom or "no app 'shpo'" in dom
    assert f'href="{worker.base}/evidence?app=shop&amp;since=15m"' in dom


def test_the_page_shows_the_judges_verdict_and_reasoning(
    broker: EmbeddedBroker, start_worker: Callable[..., WorkerProcess]
) -> None:
    """With the judge on (the fake OpenAI-compatible server, every answer sampled), the page
    merges the judge's audit record into the answer: its verdict and reasoning per claim, and
    the check's record says the answer was sampled."""
    from agents.judging.fake_server import JudgeHTTPServer

    judge = JudgeHTTPServer().start()
    try:
        ns = Namespace("evidence-judge")
        worker = start_worker(
            ns,
            RAGMON_AUDIT_SAMPLE_RATE="1.0",
            RAGMON_CHECK_PROCESSES="0",
            RAGMON_JUDGE_ENABLED="true",
            OPENAI_BASE_URL=judge.url,
            OPENAI_API_KEY="test-key",
            RAGMON_JUDGE_MODEL="ok",
            RAGMON_ESCALATION_MODEL="ok",
            RAGMON_JUDGE_SAMPLE_RATE="1",
            RAGMON_JUDGE_OVERSAMPLE_RATE="1",
        )
        worker.wait_assigned(timeout=90)
        answers = [event(f"good-{i}", GOOD) for i in range(5)] + [event("worst-1", WORST)]
        produce(broker.bootstrap, ns.topic("answers"), answers)
        api = f"{worker.base}/evidence/api?app={APP}&since=10m"

        def judged() -> dict[str, Any] | None:
            with urllib.request.urlopen(api, timeout=30) as response:
                found = json.loads(response.read())
            first = found["answers"][0] if found["answers"] else None
            return first if first is not None and "judge" in first else None

        first = wait_until(judged, 90, what="the judge's record on the page")
        assert first["event_id"] == "worst-1" and first["sampled_for_judge"] is True
        claims = [c for c in first["claims"] if "judge" in c]
        assert claims and all(c["judge"]["outcome"] for c in claims)
        assert any(c["judge"]["reasons"] for c in claims)  # the judge's reasoning
        page = urllib.request.urlopen(api.replace("/evidence/api?", "/evidence?"), timeout=30)
        text = page.read().decode()
        reasoning = next(c["judge"]["reasons"][0] for c in claims if c["judge"]["reasons"])
        assert html.escape(reasoning) in text
    finally:
        judge.stop()
