"""End-to-end benchmark on the embedded broker (`ragmon bench --section e2e`).

In one run, on one broker, with the same Faust settings and partitions:

Monitor workers: `monitor` checks in its own process (RAGMON_CHECK_PROCESSES=0),
`monitor_pool` hands the checks to `check_processes` check processes (left out when 0), and
`monitor_pool_judge` is the latter with the LLM judge on (a fake judge replying after 2 s, 10%
sampled, no budgets; `judge=False` or RAGMON_BENCH_E2E_JUDGE=0 leaves it out). The judge one
takes part in the throughput rounds only: its figure is `judge_on_vs_off`, its rate over
`monitor_pool`'s, round by round.

1. throughput, in `rounds` rounds, after a warm-up: each round freezes one monitor's worker
   (SIGSTOP), writes a backlog of fresh standard-mix events, lets it go (SIGCONT), then does the
   same with the other monitor and with a bare Faust pass-through worker (consume `answers`,
   forward every value). A rate is taken from the timestamps of the worker's output records
   (first to last, weighted by the answers each carries); the CPU time the worker's processes
   spent meanwhile (/proc, children included) gives µs of CPU per answer. A monitor's figure is
   the median of its rounds' ratios: the rates of a round are measured seconds apart, so a slow
   phase of the shared machine hits all of them;
2. each monitor is fed at 50% of its median rate; the event lag of an answer is the timestamp of
   the score record that carries it (when the check agent published it) minus the answer's
   record timestamp on `answers`;
3. each monitor keeps consuming until it has checked `rss_events` events in all; the RSS of its
   processes together is read from /proc;
4. the pass-through gets the in-process monitor's paced rate (its lag shows the broker's and
   Faust's floor).

Workers are separate processes (`ragmon worker`, `python -m agents.bench.e2e passthrough`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.kafka.broker import EmbeddedBroker, die_with_parent, embedded_env, free_port
from agents.kafka.produce import Publisher, paced
from agents.kafka.topics import TopicSpec, ensure_topics, topic_specs
from monitor.config.settings import Settings, load_settings

PARTITIONS = 4


def renamed(events: list[bytes], n: int, tag: str) -> Iterator[bytes]:
    """`n` events cycling through `events`, each round with fresh event ids (no dedup)."""
    for i in range(n):
        raw = events[i % len(events)]
        yield raw.replace(b'"event_id": "', f'"event_id": "{tag}{i // len(events)}-'.encode(), 1)


def _env(bootstrap: str, prefix: str, app_id: str, port: int, workdir: Path) -> dict[str, str]:
    return {
        **os.environ,
        **embedded_env(bootstrap),
        "RAGMON_TOPIC_PREFIX": prefix,
        "RAGMON_APP_ID": app_id,
        "RAGMON_METRICS_PORT": str(port),
        "RAGMON_DATA_DIR": str(workdir / f"data-{app_id}"),
        "RAGMON_PARTITIONS": str(PARTITIONS),
        "RAGMON_LOG_FORMAT": "json",
        "PYTHONUNBUFFERED": "1",
    }


def _spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", *args],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _checked(port: int) -> float:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("ragmon_events_total{") and 'outcome="checked"' in line
    )


async def _publish(settings: Settings, topic: str, values: Any, rate: float | None) -> int:
    publisher = Publisher(settings, topic)
    await publisher.start()
    try:
        async for value in paced(values, rate):
            await publisher.send(value)
    finally:
        await publisher.stop()
    return publisher.stats.sent


def _one(record: Any) -> int:
    return 1


async def _read(
    bootstrap: str, topic: str, count: int, timeout: float, weight: Any = _one
) -> list[Any]:
    """Records of `topic` from the start until their weights add up to `count`."""
    from aiokafka import AIOKafkaConsumer

    consumer = AIOKafkaConsumer(
        topic, bootstrap_servers=bootstrap, auto_offset_reset="earliest", enable_auto_commit=False
    )
    await consumer.start()
    out: list[Any] = []
    total = 0
    deadline = time.monotonic() + timeout
    try:
        while total < count and time.monotonic() < deadline:
            for records in (await consumer.getmany(timeout_ms=500, max_records=5000)).values():
                out.extend(records)
                total += sum(weight(r) for r in records)
    finally:
        await consumer.stop()
    return out


def _rate(records: list[Any], weight: Any = _one) -> float:
    """Items per second between the first and the last record (the first one's not counted)."""
    ordered = sorted(records, key=lambda r: r.timestamp)
    span = (ordered[-1].timestamp - ordered[0].timestamp) / 1000
    items = sum(weight(r) for r in ordered[1:])
    return items / span if span > 0 else float("nan")


def measure(
    events: list[bytes],
    *,
    throughput_events: int = 10_000,
    lag_seconds: float = 20.0,
    rss_events: int = 100_000,
    rounds: int = 3,
    workdir: str | None = None,
    check_processes: int = 1,
    judge: bool = True,
) -> dict[str, Any]:
    work = Path(workdir or tempfile.mkdtemp(prefix="ragmon-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    broker = EmbeddedBroker(log=work / "broker.log")
    bootstrap = broker.start()
    procs: list[subprocess.Popen[bytes]] = []
    judge_url = None
    if judge and check_processes > 0:
        from agents.bench.judge import _start_fake_judge

        judge_proc, judge_url = _start_fake_judge()
        procs.append(judge_proc)
    try:
        return _measure(
            events,
            bootstrap,
            work,
            procs,
            throughput_events,
            lag_seconds,
            rss_events,
            rounds,
            check_processes,
            judge_url,
        )
    finally:
        for proc in procs:
            _stop(proc)
        broker.stop()


def _lags(inputs: list[Any], outputs: list[Any]) -> list[float]:
    sent = {r.value: r.timestamp for r in inputs}
    return sorted((r.timestamp - sent[r.value]) / 1000 for r in outputs if r.value in sent)


def _summary(lags: list[float]) -> dict[str, Any]:
    return {
        "events": len(lags),
        "median_s": statistics.median(lags) if lags else None,
        "p95_s": lags[int(len(lags) * 0.95) - 1] if lags else None,
        "p99_s": lags[max(0, int(len(lags) * 0.99) - 1)] if lags else None,  # issue 6 asks p99
    }


def _tagged_answers(tag: str) -> Any:
    """Weight of a score record: how many of its answers carry ids starting with `tag`."""

    def weight(record: Any) -> int:
        value = json.loads(record.value)
        if value.get("kind", "scores") != "scores":
            return 0  # a judge correction: the answer was counted by its score record
        return sum(1 for e in value.get("events") or () if str(e[0]).startswith(tag))

    return weight


def _tagged_values(tag: str) -> Any:
    needle = f'"event_id": "{tag}'.encode()

    def weight(record: Any) -> int:
        return 1 if needle in record.value else 0

    return weight


@contextlib.contextmanager
def _paused(proc: subprocess.Popen[bytes]) -> Iterator[None]:
    """The worker frozen (SIGSTOP) while a backlog is written: it then meets the whole backlog
    at once, as after a start, without the restart (a new consumer-group member, table
    recovery) in the measurement. A few seconds stay far inside the group session timeout."""
    os.kill(proc.pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(proc.pid, signal.SIGCONT)


async def _ends(bootstrap: str, topic: str) -> dict[Any, int]:
    from aiokafka import AIOKafkaConsumer, TopicPartition

    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
    await consumer.start()
    try:
        tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
        return dict(await consumer.end_offsets(tps))
    finally:
        await consumer.stop()


async def _output_since(
    bootstrap: str, topic: str, starts: dict[Any, int], count: int, weight: Any, timeout: float
) -> list[Any]:
    """The records a worker writes to `topic` after `starts`, once their weights reach `count`.

    The bench reads them only after the topic's end offsets have stood still for a second: a
    reader running beside the worker would take CPU from it, and far more from a worker that
    writes a record per answer (the pass-through) than from one writing a record per batch."""
    from aiokafka import AIOKafkaConsumer

    deadline = time.monotonic() + timeout
    previous: dict[Any, int] = dict(starts)
    still = 0
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        ends = await _ends(bootstrap, topic)
        still = still + 1 if ends == previous and ends != starts else 0
        previous = ends
        if still < 2:
            continue
        consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False)
        await consumer.start()
        out: list[Any] = []
        try:
            consumer.assign(list(starts))
            for tp, offset in starts.items():
                consumer.seek(tp, offset)
            empty = 0
            while empty < 2:
                batch = await consumer.getmany(timeout_ms=300, max_records=5000)
                empty = 0 if batch else empty + 1
                for records in batch.values():
                    out.extend(records)
        finally:
            await consumer.stop()
        if sum(weight(r) for r in out) >= count:
            return out
        still = 0
    raise TimeoutError(f"{topic}: fewer than {count} answers came out in {timeout:.0f} s")


def _tree(pid: int) -> list[int]:
    """`pid` and its descendants (a monitor's check processes)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{p}/task").iterdir():
                todo.extend(int(c) for c in (task / "children").read_text().split())
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of `pid` and its descendants, from /proc."""
    total = 0
    for p in _tree(pid):
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / os.sysconf("SC_CLK_TCK")


def tree_rss_mb(pid: int) -> float:
    return sum(rss_mb(p) for p in _tree(pid))


def _backlog_rate(
    settings: Settings,
    bootstrap: str,
    source: str,
    sink: str,
    events: list[bytes],
    n: int,
    tag: str,
    weight: Any,
    proc: subprocess.Popen[bytes],
) -> tuple[float, float]:
    """How fast the running worker `proc` works through `n` fresh events written while it
    was paused, and the CPU time its processes spent per answer (µs)."""
    starts = asyncio.run(_ends(bootstrap, sink))
    with _paused(proc):
        asyncio.run(_publish(settings, source, renamed(events, n, tag), None))
        cpu = cpu_seconds(proc.pid)
    records = asyncio.run(_output_since(bootstrap, sink, starts, n, weight, timeout=1200))
    cpu_us = (cpu_seconds(proc.pid) - cpu) / n * 1e6
    return _rate([r for r in records if weight(r)], weight=weight), cpu_us


@dataclass
class Monitor:
    """One monitor worker of the bench: `ragmon worker` with `env` on topics `prefix`*."""

    name: str
    prefix: str
    env: dict[str, str]
    settings: Settings | None = None
    proc: subprocess.Popen[bytes] | None = None
    port: int = 0
    rates: list[float] = field(default_factory=list)
    cpu_us: list[float] = field(default_factory=list)
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


def _measure(
    events: list[bytes],
    bootstrap: str,
    work: Path,
    procs: list[subprocess.Popen[bytes]],
    n: int,
    lag_seconds: float,
    rss_events: int,
    rounds: int,
    check_processes: int = 1,
    judge_url: str | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {"throughput_events": n, "partitions": PARTITIONS, "rounds": rounds}
    client = {"bootstrap_servers": bootstrap}
    pt = load_settings(bootstrap_servers=bootstrap, topic_prefix="pt.", partitions=PARTITIONS)
    pt_specs = {
        "answers": TopicSpec("answers", "pt.answers", PARTITIONS),
        "out": TopicSpec("out", "pt.out", PARTITIONS),
    }
    asyncio.run(ensure_topics(pt, client, pt_specs))
    mons = monitors(check_processes, judge_url)
    for m in mons:
        _start_monitor(m, bootstrap, work)
        assert m.proc is not None
        procs.append(m.proc)
    passthrough = _spawn(
        ["agents.bench.e2e", "passthrough"],
        _env(bootstrap, "pt.", "bench-pt", free_port(), work),
        work / "passthrough.log",
    )
    procs.append(passthrough)

    # --- 0. every worker started and warm (imports, group join, first fetches) --------------
    warm = min(n, 1000)
    for m in mons:
        assert m.settings is not None
        asyncio.run(_publish(m.settings, _topic(m, "answers"), renamed(events, warm, "warm"), None))
    asyncio.run(_publish(pt, "pt.answers", renamed(events, warm, "ptwarm"), None))
    for m in mons:
        weight = _tagged_answers("warm")
        asyncio.run(_read(bootstrap, _topic(m, "scores"), warm, timeout=600, weight=weight))
    asyncio.run(_read(bootstrap, "pt.out", warm, timeout=600, weight=_tagged_values("ptwarm")))

    # --- 1. backlogs, the monitors and the pass-through in turn: the rates of a round are
    # measured seconds apart, so a slow phase of the shared machine hits all of them ---------
    pt_rates, pt_cpu = [], []
    for r in range(rounds):
        for m in mons:
            assert m.settings is not None and m.proc is not None
            tag = f"{m.prefix}tp{r}-"
            rate, cpu = _backlog_rate(
                m.settings,
                bootstrap,
                _topic(m, "answers"),
                _topic(m, "scores"),
                events,
                n,
                tag,
                _tagged_answers(tag),
                m.proc,
            )
            m.rates.append(rate)
            m.cpu_us.append(cpu)
        rate, cpu = _backlog_rate(
            pt,
            bootstrap,
            "pt.answers",
            "pt.out",
            events,
            n,
            f"pt{r}-",
            _tagged_values(f"pt{r}-"),
            passthrough,
        )
        pt_rates.append(rate)
        pt_cpu.append(cpu)
        line = ", ".join(f"{m.name} {m.rates[-1]:,.0f}/s ({m.rates[-1] / rate:.3f})" for m in mons)
        print(f"  round {r + 1}/{rounds}: {line}, pass-through {rate:,.0f}/s", file=sys.stderr)
    out["passthrough_events_per_s"] = statistics.median(pt_rates)
    out["rounds_passthrough_events_per_s"] = pt_rates
    out["passthrough_cpu_us_per_event"] = statistics.median(pt_cpu)
    for m in mons:
        ratios = [a / b for a, b in zip(m.rates, pt_rates, strict=True)]
        out[f"{m.name}_events_per_s"] = statistics.median(m.rates)
        out[f"rounds_{m.name}_events_per_s"] = m.rates
        out[f"rounds_{m.name}_ratio"] = ratios
        out[f"{m.name}_vs_passthrough"] = statistics.median(ratios)
        out[f"{m.name}_cpu_us_per_event"] = statistics.median(m.cpu_us)
        out[f"{m.name}_check_processes"] = int(m.env["RAGMON_CHECK_PROCESSES"])
    named = {m.name: m for m in mons}
    if "monitor_pool_judge" in named:
        on, off = named["monitor_pool_judge"].rates, named["monitor_pool"].rates
        out["judge_on_vs_off_rounds"] = [a / b for a, b in zip(on, off, strict=True)]
        out["judge_on_vs_off"] = statistics.median(out["judge_on_vs_off_rounds"])
        out["judge"] = {"delay_seconds": JUDGE_DELAY, "sample_rate": JUDGE_RATE}
    mons = [m for m in mons if m.full]
    for m in named.values():
        if not m.full and m.proc is not None:
            _stop(m.proc)
    out["rounds_ratio"] = out["rounds_monitor_ratio"]  # the in-process monitor, as before

    # --- 2. each monitor's lag at 50% of its own rate: score record published − answer record
    for m in mons:
        assert m.settings is not None
        rate = out[f"{m.name}_events_per_s"] / 2
        n_lag = max(50, int(rate * lag_seconds))
        asyncio.run(_publish(m.settings, _topic(m, "answers"), renamed(events, n_lag, "lag"), rate))
        records = asyncio.run(
            _read(bootstrap, _topic(m, "scores"), n_lag, timeout=600, weight=_tagged_answers("lag"))
        )
        lags = sorted(
            r.timestamp / 1000 - entry[1]
            for r in records
            for entry in json.loads(r.value)["events"]
            if str(entry[0]).startswith("lag")
        )
        out[f"{m.name}_lag_rate_events_per_s"] = rate
        out[f"{m.name}_lag"] = _summary(lags)
    out["lag_rate_events_per_s"] = out["monitor_lag_rate_events_per_s"]

    # --- 3. each monitor's RSS (its processes together) once it has checked `rss_events` ------
    for m in mons:
        assert m.settings is not None and m.proc is not None
        missing = rss_events - int(_checked(m.port))
        if missing > 0:
            asyncio.run(
                _publish(m.settings, _topic(m, "answers"), renamed(events, missing, "rss"), None)
            )
        deadline = time.monotonic() + 3600
        while time.monotonic() < deadline and _checked(m.port) < rss_events:
            time.sleep(2)
        out[f"{m.name}_events_checked"] = _checked(m.port)
        out[f"{m.name}_rss_mb"] = tree_rss_mb(m.proc.pid)
        out[f"{m.name}_processes"] = len(_tree(m.proc.pid))
        _stop(m.proc)

    # --- 4. the pass-through at the in-process monitor's paced rate ---------------------------
    rate = out["lag_rate_events_per_s"]
    lag_n = max(50, int(rate * lag_seconds))
    asyncio.run(_publish(pt, "pt.answers", renamed(events, lag_n, "ptlag"), rate))
    inputs = asyncio.run(_read(bootstrap, "pt.answers", warm + n * rounds + lag_n, timeout=600))
    outputs = asyncio.run(
        _read(bootstrap, "pt.out", lag_n, timeout=600, weight=_tagged_values("ptlag"))
    )
    tagged = [r for r in inputs if b'"event_id": "ptlag' in r.value]
    out["passthrough_lag_same_rate"] = _summary(_lags(tagged, outputs))
    out["passthrough_rss_mb"] = rss_mb(passthrough.pid)
    _stop(passthrough)
    return out


def _passthrough() -> int:
    """A bare Faust agent: answers → out, value and key unchanged, same Faust settings."""
    import faust

    from agents.kafka.faust_fixes import fetch_wait
    from agents.stream.faust_setup import faust_config
    from agents.stream.runner import RagmonWorker

    settings = load_settings()
    app = faust.App(settings.app_id, **faust_config(settings))
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


def _section(args: Any, events: list[bytes]) -> dict[str, Any]:
    """End to end through the embedded broker, against a bare Faust pass-through.

    With one check process and without; lag at half rate; worker RSS."""
    return measure(
        events,
        throughput_events=int(os.environ.get("RAGMON_BENCH_E2E_EVENTS", "10000")),
        rss_events=int(os.environ.get("RAGMON_BENCH_RSS_EVENTS", "100000")),
        rounds=int(os.environ.get("RAGMON_BENCH_E2E_ROUNDS", "3")),
        check_processes=int(os.environ.get("RAGMON_BENCH_CHECK_PROCESSES", "1")),
        judge=os.environ.get("RAGMON_BENCH_E2E_JUDGE", "1") != "0",
    )


SECTIONS = {"e2e": _section}

if __name__ == "__main__":
    if sys.argv[1:] == ["passthrough"]:
        sys.exit(_passthrough())
    sys.exit("usage: python -m agents.bench.e2e passthrough")
