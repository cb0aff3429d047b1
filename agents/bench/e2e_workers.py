"""The workers of the end-to-end bench: the monitors (`ragmon worker` with and without check
processes, with the judge on) and the bare Faust pass-through they are measured against."""

from __future__ import annotations

import asyncio
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.bench.e2e_procs import PARTITIONS, _env, _spawn
from agents.kafka.broker import free_port
from agents.kafka.topics import ensure_topics, topic_specs
from monitor.config.settings import Settings, load_settings


@dataclass
class Monitor:
    """One monitor worker of the bench: `ragmon worker` with `env` on topics `prefix`*."""

    name: str
    prefix: str
    env: dict[str, str]
    settings: Settings | None = None
    proc: subprocess.Popen[bytes] | None = None
    port: int = 0
    bootstrap: str = ""  # its broker
    broker_pid: int | None = None
    rates: list[float] = field(default_factory=list)
    cpu_us: list[float] = field(default_factory=list)
    # per round: the machine's CPU share in use, the busiest process's share of one core
    busy: list[tuple[float, float]] = field(default_factory=list)
    # per round: the broker's CPU µs per answer, the worker's, then each of its other
    # processes' (largest first)
    costs: list[tuple[float, list[float]]] = field(default_factory=list)
    full: bool = True  # also lag and RSS (not only the rounds)


#: The judge of the judge-on monitor: the fake judge replying after this many seconds, 10% of
#: answers sampled, no budgets (the queue bound stops excess work), as `--section judge`.
JUDGE_DELAY = 2.0
JUDGE_RATE = 0.1


def monitors(check_processes: int, judge_url: str | None = None) -> list[Monitor]:
    """The in-process monitor; the one with check processes unless `check_processes` is 0; and,
    given a judge, the latter again with the judge on (rounds only)."""
    out = [Monitor("monitor", "mon.", {"RAGMON_CHECK_PROCESSES": "0"})]
    if check_processes > 0:
        pool = {"RAGMON_CHECK_PROCESSES": str(check_processes)}
        out.append(Monitor("monitor_pool", "mp.", pool))
        if judge_url:
            judge = {
                "RAGMON_JUDGE_ENABLED": "true",
                "OPENAI_BASE_URL": judge_url,
                "OPENAI_API_KEY": "bench-not-a-secret",
                "RAGMON_JUDGE_MODEL": f"ok@{JUDGE_DELAY}",
                "RAGMON_JUDGE_SAMPLE_RATE": str(JUDGE_RATE),
                "RAGMON_JUDGE_OVERSAMPLE_RATE": str(JUDGE_RATE),
                "RAGMON_JUDGE_CALLS_PER_MINUTE": "0",
                "RAGMON_JUDGE_TOKENS_PER_HOUR": "0",
            }
            out.append(Monitor("monitor_pool_judge", "mj.", {**pool, **judge}, full=False))
    return out


def _start_monitor(m: Monitor, bootstrap: str, work: Path) -> None:
    m.settings = load_settings(
        bootstrap_servers=bootstrap, topic_prefix=m.prefix, partitions=PARTITIONS
    )
    asyncio.run(
        ensure_topics(m.settings, {"bootstrap_servers": bootstrap}, topic_specs(m.settings))
    )
    m.port = free_port()
    env = {**_env(bootstrap, m.prefix, f"bench-{m.name}", m.port, work), **m.env}
    m.proc = _spawn(["agents.cli", "worker"], env, work / f"{m.name}.log")


def _topic(m: Monitor, role: str) -> str:
    assert m.settings is not None
    return m.settings.topic(role)


#: Faust's own producer batch (aiokafka's default): the bare pass-through's, whatever the monitors'
#: RAGMON_PRODUCER_BATCH_BYTES. It forwards a ~9 kB record per answer, one per 16 KiB batch, so
#: each waits a broker round trip (agents/stream/faust_setup.py); given the monitors' 256 KiB it
#: ran 1.5x as fast (docs/guarantees.md, session 19): the variable below measures against that.
FAUST_PRODUCER_BATCH_BYTES = 16_384
PASSTHROUGH_BATCH_ENV = "RAGMON_BENCH_PASSTHROUGH_PRODUCER_BATCH_BYTES"


def passthrough_batch_bytes() -> int:
    return int(os.environ.get(PASSTHROUGH_BATCH_ENV) or FAUST_PRODUCER_BATCH_BYTES)


def _passthrough() -> int:
    """A bare Faust agent: answers → out, value and key unchanged, the monitors' Faust settings
    but for the producer's batch (`passthrough_batch_bytes`)."""
    import faust

    from agents.kafka.faust_fixes import fetch_wait
    from agents.stream.faust_setup import faust_config
    from agents.stream.runner import RagmonWorker

    settings = load_settings()
    config = {**faust_config(settings), "producer_max_batch_size": passthrough_batch_bytes()}
    app = faust.App(settings.app_id, **config)
    fetch_wait.install(app, settings.fetch_max_wait_ms)  # as the monitor's worker does
    source = app.topic(settings.topic("answers"), key_serializer="raw", value_serializer="raw")
    sink = app.topic(settings.topic("out"), key_serializer="raw", value_serializer="raw")

    async def forward(stream: Any) -> None:
        async for event in stream.events():
            sink.send_soon(key=event.key, value=event.value)

    app.agent(source, name="bench.passthrough")(forward)
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    worker = RagmonWorker(app, loop=loop, loglevel="WARNING", quiet=True, override_logging=False)
    worker.spinner = None
    worker.execute_from_commandline()
    return 0
