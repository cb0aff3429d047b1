"""`ragmon demo`: embedded broker + worker + synthetic traffic + a live summary of the gauges.

The broker and the worker are child processes in their own sessions (a terminal Ctrl-C reaches
only this process, which then stops them in order: traffic, worker, broker) and are tied to
this process by PDEATHSIG, so even a SIGKILL of the demo leaves nothing running.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import yaml

from agents.demo.alerts import AlertLog
from agents.demo.display import Screen, final_summary, render, scrape
from agents.demo.traffic import Traffic
from agents.judging.fake_server import JudgeHTTPServer
from agents.kafka.broker import EmbeddedBroker, die_with_parent, embedded_env, free_port, port_open
from agents.kafka.produce import Publisher
from agents.kafka.topics import topic_specs
from monitor.alerting.alerts import DEFAULT_RULES_FILE
from monitor.config.errors import RagmonError
from monitor.config.settings import load_settings

#: the demo judge's model name: the scripted server (agents/judging/fake_server.py) answers
#: it with its word-overlap verdicts, and no price table knows it
SCRIPTED_JUDGE = "scripted-judge"


@dataclass
class DemoConfig:
    rate: float = 25.0  # events per second
    healthy_seconds: float = 45.0
    ramp_seconds: float = 60.0  # drift rises linearly from 0 to 1 over this, then stays
    duration: float | None = None  # None: until Ctrl-C / SIGTERM
    metrics_port: int = 6066  # 0: any free port
    window_seconds: float = 60.0
    step_seconds: float = 5.0
    #: the demo's judge (a local OpenAI-compatible server, agents/judging/fake_server.py, that
    #: judges by word overlap) on this share of answers: the support and hallucination
    #: estimates need judged answers (60 s × 25/s × 0.2 = 300 per window)
    judge_rate: float = 0.2
    refresh_seconds: float = 3.0
    start_timeout: float = 60.0
    workdir: str | None = None

    def drift(self, elapsed: float) -> float:
        if elapsed < self.healthy_seconds:
            return 0.0
        return min(1.0, (elapsed - self.healthy_seconds) / max(self.ramp_seconds, 1e-9))


def demo_rules(path: Path, window_seconds: float) -> None:
    """The default alert rules on the demo's short window, firing after 15 s of breach."""
    doc = yaml.safe_load(DEFAULT_RULES_FILE.read_text(encoding="utf-8"))
    doc["defaults"] = {"window": f"{int(window_seconds)}s", "min_events": 20, "for": "15s"}
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")


def _stop_process(proc: subprocess.Popen[bytes] | None, timeout: float) -> None:
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        proc.wait(5)


class Demo:
    def __init__(self, config: DemoConfig, out: IO[str] = sys.stdout) -> None:
        self.config = config
        self.screen = Screen(out)
        self.workdir = Path(config.workdir or tempfile.mkdtemp(prefix="ragmon-demo-"))
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.broker = EmbeddedBroker(log=self.workdir / "broker.log", new_session=True)
        self.worker: subprocess.Popen[bytes] | None = None
        self.port = config.metrics_port or free_port()
        if config.metrics_port and port_open("127.0.0.1", config.metrics_port):
            self.port = free_port()
            self.screen.say(f"port {config.metrics_port} is in use; metrics on {self.port} instead")
        self.stop_event: asyncio.Event | None = None
        self.sent = 0
        self.last_metrics: dict[str, list[tuple[dict[str, str], float]]] = {}
        self.fired: set[str] = set()  # every alert seen firing, for the summary at the end
        self.judge: JudgeHTTPServer | None = None
        self.alerts = AlertLog(self.workdir / "worker.log")

    def worker_env(self, bootstrap: str) -> dict[str, str]:
        rules = self.workdir / "rules.yaml"
        demo_rules(rules, self.config.window_seconds)
        env = dict(os.environ)
        env.update(embedded_env(bootstrap))
        env.update(
            {
                "RAGMON_APP_ID": "ragmon-demo",
                "RAGMON_METRICS_HOST": "127.0.0.1",
                "RAGMON_METRICS_PORT": str(self.port),
                "RAGMON_WINDOW_SECONDS": str(self.config.window_seconds),
                "RAGMON_WINDOW_STEP_SECONDS": str(self.config.step_seconds),
                "RAGMON_RULES_FILE": str(rules),
                "RAGMON_DATA_DIR": str(self.workdir / "data"),
                "RAGMON_AUDIT_LOG": str(self.workdir / "audit.jsonl"),
                "RAGMON_LOG_FORMAT": "json",
                "PYTHONUNBUFFERED": "1",
            }
        )
        if self.judge is not None:
            env.update(
                {
                    "RAGMON_JUDGE_ENABLED": "true",
                    "OPENAI_BASE_URL": self.judge.url,
                    "OPENAI_API_KEY": "demo",
                    # named as what it is, in metrics, audit and page; no price: no cost
                    "RAGMON_JUDGE_MODEL": SCRIPTED_JUDGE,
                    "RAGMON_JUDGE_PRICES": "{}",
                    "RAGMON_JUDGE_SAMPLE_RATE": str(self.config.judge_rate),
                    "RAGMON_JUDGE_CALLS_PER_MINUTE": "0",  # the local judge has no limits
                    "RAGMON_JUDGE_TOKENS_PER_HOUR": "0",
                    "RAGMON_ESCALATION_MODEL": "",
                }
            )
        return env

    def run(self) -> int:
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(self._main(loop))
        finally:
            self.shutdown()
            loop.close()

    def shutdown(self) -> None:
        _stop_process(self.worker, timeout=25)
        self.broker.stop()
        if self.judge is not None:
            self.judge.stop()

    async def _main(self, loop: asyncio.AbstractEventLoop) -> int:
        self.stop_event = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self.stop_event.set)
        started = time.monotonic()
        self.screen.say(f"ragmon demo: logs and audit trail in {self.workdir}")
        bootstrap = self.broker.start()
        self.screen.say(f"broker:  {bootstrap} (tansu, in memory)")
        if self.config.judge_rate > 0:
            self.judge = JudgeHTTPServer().start()
            self.screen.say(
                f"judge:   {SCRIPTED_JUDGE} at {self.judge.url} (a scripted word-overlap judge, "
                f"no LLM, no cost; {self.config.judge_rate:.0%} of answers)"
            )
        with open(self.workdir / "worker.log", "ab") as log:
            self.worker = subprocess.Popen(
                [sys.executable, "-m", "agents.cli", "worker", "--max-wait", "30"],
                env=self.worker_env(bootstrap),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                preexec_fn=die_with_parent,
                start_new_session=True,
            )
        base = f"http://127.0.0.1:{self.port}"
        self.screen.say(f"worker:  pid {self.worker.pid}, metrics at {base}/metrics")
        # the page answers once the drift phase has fired an alert (the answers behind it)
        self.screen.say(f"evidence: {base}/evidence (each app's answers behind its alerts)")
        if not await self._wait_ready(base, started):
            return 0 if self.stop_event.is_set() else 1
        self.screen.say(f"ready in {time.monotonic() - started:.1f} s; Ctrl-C stops everything")
        settings = load_settings(bootstrap_servers=bootstrap)
        publisher = Publisher(settings, topic_specs(settings)["answers"].name)
        await publisher.start()
        producer = asyncio.ensure_future(self._produce(publisher))
        try:
            await self._summaries(base)
        finally:
            producer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await producer
            with contextlib.suppress(Exception):
                await asyncio.wait_for(publisher.stop(), 10)
        with contextlib.suppress(Exception):  # the last figures, if the worker still answers
            self.last_metrics = await asyncio.to_thread(scrape, base + "/metrics")
        for line in final_summary(
            self.last_metrics,
            sent=self.sent,
            seconds=time.monotonic() - started,
            fired=self.fired,
            alerts=self.alerts,
        ):
            self.screen.say(line)
        self.screen.say(f"stopping (sent {self.sent} events)…")
        return 0

    async def _wait_ready(self, base: str, started: float) -> bool:
        assert self.stop_event is not None and self.worker is not None
        while time.monotonic() - started < self.config.start_timeout:
            if self.stop_event.is_set():
                return False
            if self.worker.poll() is not None:
                raise RagmonError(
                    f"worker exited with code {self.worker.returncode}; see {self.workdir}/worker.log"
                )
            with contextlib.suppress(Exception):
                status = await asyncio.to_thread(_get_json, base + "/status")
                if any(t.endswith("answers") for t in status.get("assigned", {})):
                    return True
            await asyncio.sleep(0.5)
        raise RagmonError(
            f"worker not ready after {self.config.start_timeout:.0f} s; see {self.workdir}/worker.log"
        )

    async def _produce(self, publisher: Publisher) -> None:
        traffic = Traffic(prefix=f"demo-{int(time.time())}")
        started = time.monotonic()
        interval = 1.0 / self.config.rate
        next_at = started
        while True:
            drift = self.config.drift(time.monotonic() - started)
            await publisher.send(traffic.next(drift))
            self.sent += 1
            self.drift = drift
            next_at += interval
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))

    async def _summaries(self, base: str) -> None:
        assert self.stop_event is not None
        started = time.monotonic()
        self.drift = 0.0
        while not self.stop_event.is_set():
            elapsed = time.monotonic() - started
            if self.config.duration is not None and elapsed >= self.config.duration:
                return
            if self.worker is not None and self.worker.poll() is not None:
                raise RagmonError(f"worker exited; see {self.workdir}/worker.log")
            phase = "healthy" if self.drift == 0 else f"drift {self.drift:.0%}"
            try:
                metrics = await asyncio.to_thread(scrape, base + "/metrics")
                self.last_metrics = metrics
                self.fired.update(
                    f"{labels['rule']}[{labels['app']}]"
                    for labels, value in metrics.get("ragmon_alert_firing", [])
                    if value >= 1
                )
                self.alerts.read()
                self.screen.show(render(metrics, phase, self.sent, self.alerts))
            except Exception as exc:  # a missed scrape is shown, not fatal
                self.screen.say(f"(metrics unavailable: {exc})")
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self.stop_event.wait(), self.config.refresh_seconds)


def _get_json(url: str) -> Any:
    import json

    with urllib.request.urlopen(url, timeout=2) as response:
        return json.loads(response.read())
