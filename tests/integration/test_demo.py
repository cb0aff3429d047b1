"""`ragmon demo` as a user runs it: ready within 60 s, /metrics answers, the gauges move, and
Ctrl-C (SIGINT) or SIGTERM stops it with no broker or worker process left behind."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from agents.kafka.broker import pid_alive
from tests.integration.conftest import ROOT, wait_until

pytestmark = pytest.mark.integration


def children_of(pid: int) -> set[int]:
    """Direct and indirect children of `pid`, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # Field 4 (ppid) follows the parenthesised command name, which may contain spaces.
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _reader(stream: object, lines: queue.Queue[str]) -> None:
    for line in iter(stream.readline, ""):  # type: ignore[attr-defined]
        lines.put(line)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_demo_starts_serves_metrics_and_stops_without_orphans(
    tmp_path: Path, stop_signal: signal.Signals
) -> None:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agents.cli",
            "demo",
            "--metrics-port",
            "0",
            "--rate",
            "40",
            "--healthy",
            "3",
            "--ramp",
            "3",
            "--workdir",
            str(tmp_path),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True)
    reader.start()
    output: list[str] = []

    def until(pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                assert proc.poll() is None, "".join(output)
                continue
            output.append(line)
            match = re.search(pattern, line)
            if match:
                return match
        raise AssertionError(f"no {pattern!r} in {timeout} s:\n{''.join(output)}")

    children: set[int] = set()
    try:
        started = time.monotonic()
        url = until(r"metrics at (http://\S+/metrics)", 30).group(1)
        evidence = until(r"evidence: (http://\S+/evidence)\b", 5).group(1)
        assert evidence == url.removesuffix("/metrics") + "/evidence"
        until(r"ready in ([\d.]+) s", 60)
        assert time.monotonic() - started < 60
        children = children_of(proc.pid)
        assert len(children) >= 2, children  # tansu + the worker

        def checked() -> float:
            with urllib.request.urlopen(url, timeout=3) as response:
                text = response.read().decode()
            found = re.findall(r'ragmon_events_total\{app="[^"]+",outcome="checked"\} (\S+)', text)
            return sum(float(v) for v in found)

        wait_until(lambda: checked() > 20, timeout=30, what="events checked")

        def judge_calls() -> str | None:
            with urllib.request.urlopen(url, timeout=3) as response:
                text = response.read().decode()
            return text if 'ragmon_judge_requests_total{model="scripted-judge"' in text else None

        # the demo's judge is named as what it is, and costs nothing
        metrics_text = wait_until(judge_calls, timeout=60, what="the scripted judge's calls")
        assert "gpt-4o" not in metrics_text
        costs = re.findall(r"ragmon_judge_cost_usd_total\{[^}]*\} (\S+)", metrics_text)
        assert all(float(v) == 0 for v in costs), costs
        until(r"validity", 15)  # the live summary table

        def firing() -> tuple[str, str] | None:
            with urllib.request.urlopen(url, timeout=3) as response:
                text = response.read().decode()
            found = re.search(r'ragmon_alert_firing\{app="([^"]+)",rule="([^"]+)"\} 1\.0', text)
            return None if found is None else (found.group(1), found.group(2))

        # once the drift phase has fired an alert, the page lists the answers behind it
        app, rule = wait_until(firing, timeout=120, what="an alert from the drift phase")
        page_url = f"{evidence}?app={app}&rule={rule}&since=10m"
        with urllib.request.urlopen(page_url, timeout=30) as response:
            page = response.read().decode()
        assert 'id="answer-1"' in page and "moved the rate by +" in page
        proc.send_signal(stop_signal)
        assert proc.wait(45) == 0, "".join(output)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
    wait_until(lambda: not any(pid_alive(p) for p in children), timeout=10, what="children gone")
    reader.join(10)
    while not lines.empty():
        output.append(lines.get())
    text = "".join(output)
    assert "stopping" in text
    assert re.search(r"summary: \d+ s, \d+ events sent, \d+ checked", text), text
    assert "alerts that fired:" in text


def test_demo_rate_alerts_fire_on_drift_only_with_the_interval(tmp_path: Path) -> None:
    """Healthy traffic fires no support or hallucination alert; the drift phase fires them,
    and the alert says the estimate, its interval and the judged claims."""
    rate_rules = ("support_low", "hallucination_high")
    phases = ["--healthy", "40", "--ramp", "5", "--duration", "130"]
    where = ["--metrics-port", "0", "--workdir", str(tmp_path)]
    proc = subprocess.run(
        [sys.executable, "-m", "agents.cli", "demo", *phases, *where],
        cwd=ROOT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    blocks = proc.stdout.split("\n\n")
    healthy = [b for b in blocks if b.startswith("phase: healthy")]
    drift = [b for b in blocks if b.startswith("phase: drift")]
    assert healthy and drift, proc.stdout[-3000:]
    # the estimates were there while healthy (judged claims, an interval) and no rate alert
    assert any("[" in b and "judged" in b for b in healthy)
    for block in healthy:
        firing = block.rsplit("alerts firing:", 1)[1]
        assert not any(rule in firing for rule in rate_rules), block
    assert any("hallucination_high[" in b.rsplit("alerts firing:", 1)[1] for b in drift), drift[-1]
    # each firing alert on screen with its figure, as the alert said it, and its link
    shown = re.findall(
        r"^  hallucination_high\[([\w-]+)\]: fired [\d:]+ UTC at (hallucination [\d.]+ "
        r"\(95% interval [\d.]+-[\d.]+, \d+ judged claims; judge scale\)) \(threshold 0\.1\)\n"
        r"    evidence: (http://127\.0\.0\.1:\d+/evidence\?app=([\w-]+)&rule=hallucination_high"
        r"&from=[\d.]+&to=[\d.]+)$",
        proc.stdout,
        re.MULTILINE,
    )
    assert shown, drift[-1]
    assert all(app == linked for app, _, _, linked in shown)
    fired = [
        json.loads(line)
        for line in (tmp_path / "worker.log").read_text().splitlines()
        if '"alert firing"' in line
    ]
    texts = [f["figures"] for f in fired if f["rule"] in rate_rules]
    assert texts and all("95% interval" in t and "judged claims" in t for t in texts)
    # what the screen showed is what the alert said, with the link it carried
    said = {(f["figures"], f["evidence"]) for f in fired}
    assert {(figure, link) for _, figure, link, _ in shown} <= said
