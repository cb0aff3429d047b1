"""End-to-end benchmark on the embedded broker (`ragmon bench --section e2e`).

In one run, with the same Faust settings and partitions (but for the producer's batch: the bare
pass-through keeps Faust's own 16 KiB, agents/bench/e2e_workers.py, where the monitors have
RAGMON_PRODUCER_BATCH_BYTES); each throughput round with new workers,
each on a new broker of its own, and the paced phases (2-4) likewise (`measure`'s `fresh`):

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
2. each monitor is fed at 50% of its median rate; and, with new workers on a new broker (phase
   "lag"), at 50% of the pass-through's (the issue's yardstick; `<monitor>_lag_passthrough_half`,
   None for a monitor slower than that); the event lag of an answer is the timestamp of the
   score record that carries it (when the check agent published it) minus the answer's record
   timestamp on `answers`;
3. each monitor keeps consuming until it has checked `rss_events` events in all; the RSS of its
   processes together is read from /proc;
4. the pass-through gets the in-process monitor's paced rate (its lag shows the broker's and
   Faust's floor).

Workers are separate processes (`ragmon worker`, `python -m agents.bench.e2e passthrough`).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from agents.bench.e2e_phases import run_phases
from agents.bench.e2e_procs import _stop
from agents.bench.e2e_workers import _passthrough
from agents.kafka.broker import EmbeddedBroker


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
    fresh: bool = True,
) -> dict[str, Any]:
    """`fresh`: each throughput round, and then the paced phases, with new workers, each on a
    new broker of its own. The embedded broker's CPU per record grows with what it holds (its
    memory storage: 166 -> 273 µs per pass-through answer over five rounds of 10,000 on one
    broker), so on one shared broker a later round's rates are partly the broker's and the
    worker measured last in a round pays most; `fresh=False` keeps one broker for everything."""
    work = Path(workdir or tempfile.mkdtemp(prefix="ragmon-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    judge_proc, judge_url = None, None
    if judge and check_processes > 0:
        from agents.bench.judge import _start_fake_judge

        judge_proc, judge_url = _start_fake_judge()
    args = (throughput_events, lag_seconds, rss_events, check_processes, judge_url)
    try:
        if not fresh:
            return _on_broker(events, work, args, rounds, "all")
        parts = []
        for r in range(rounds):
            said = f"round {r + 1}/{rounds} (a new broker)"
            part = _on_broker(events, work / f"round{r + 1}", args, 1, "rounds", name=said)
            parts.append(part)
        out = merge_rounds(parts)
        paced = _on_broker(events, work / "paced", args, 0, "paced", rates=out)
        paced.pop("rounds")
        out.update(paced)
        lag = _on_broker(events, work / "paced-half-pt", args, 0, "lag", rates=out)
        out.update({k: v for k, v in lag.items() if "_lag_passthrough_half" in k})
        out["fresh_broker_per_round"] = True
        return out
    finally:
        if judge_proc is not None:
            _stop(judge_proc)


def _on_broker(
    events: list[bytes],
    work: Path,
    args: tuple[int, float, int, int, str | None],
    rounds: int,
    phase: str,
    *,
    rates: dict[str, Any] | None = None,
    name: str = "",
) -> dict[str, Any]:
    """The workers for `phase`: all (one broker for everything), rounds (the throughput rounds),
    paced (lag, RSS and the pass-through's lag at `rates`) or lag (each monitor's lag at half the
    pass-through's rate in `rates`). Except for all, each worker has
    a broker of its own: the one measured last in a round would otherwise meet a broker
    holding every earlier worker's records."""
    n, lag_seconds, rss_events, check_processes, judge_url = args
    work.mkdir(parents=True, exist_ok=True)
    brokers: list[EmbeddedBroker] = []
    ends: list[tuple[str, int | None]] = []

    def broker() -> tuple[str, int | None]:
        if phase == "all" and ends:
            return ends[0]
        one = EmbeddedBroker(log=work / f"broker{len(brokers)}.log")
        brokers.append(one)
        ends.append((one.start(), one.process.pid if one.process is not None else None))
        return ends[-1]

    procs: list[subprocess.Popen[bytes]] = []
    try:
        return run_phases(
            events,
            broker,
            work,
            procs,
            n,
            lag_seconds,
            rss_events,
            rounds,
            check_processes,
            judge_url,
            phase=phase,
            rates=rates,
            name=name,
        )
    finally:
        for proc in procs:
            _stop(proc)
        for one in brokers:
            one.stop()


def merge_rounds(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One-round results as one result of `len(parts)` rounds: the per-round lists joined in
    order, every other figure (a one-round median) the median over the parts, and what does
    not vary (settings, counts of processes) taken from the first."""
    out: dict[str, Any] = {}
    for key in parts[0]:
        values = [part[key] for part in parts]
        if isinstance(values[0], list):
            out[key] = [v for value in values for v in value]
        elif key.endswith(("_per_s", "_per_event", "_vs_passthrough", "_vs_off")) and all(
            isinstance(v, int | float) for v in values
        ):
            out[key] = statistics.median(values)
        else:
            out[key] = values[0]
    out["rounds"] = len(parts)
    return out


def _section(args: Any, events: list[bytes]) -> dict[str, Any]:
    """End to end through the embedded broker, against a bare Faust pass-through.

    With one check process and without; lag at half rate; worker RSS."""
    return measure(
        events,
        throughput_events=int(os.environ.get("RAGMON_BENCH_E2E_EVENTS", "10000")),
        rss_events=int(os.environ.get("RAGMON_BENCH_RSS_EVENTS", "100000")),
        rounds=int(os.environ.get("RAGMON_BENCH_E2E_ROUNDS", getattr(args, "e2e_rounds", 3))),
        check_processes=_check_processes(os.environ.get("RAGMON_BENCH_CHECK_PROCESSES", "auto")),
        judge=os.environ.get("RAGMON_BENCH_E2E_JUDGE", "1") != "0",
        fresh=os.environ.get("RAGMON_BENCH_E2E_FRESH", "1") != "0",
    )


def _check_processes(value: str) -> int:
    """The pooled monitor's check processes: a number, or "auto" for what a worker on this
    machine gets by default (RAGMON_CHECK_PROCESSES' own rule)."""
    if value.strip().lower() != "auto":
        return int(value)
    from monitor.config.settings import load_settings

    return load_settings(check_processes="auto").check_processes


SECTIONS = {"e2e": _section}

if __name__ == "__main__":
    if sys.argv[1:] == ["passthrough"]:
        sys.exit(_passthrough())
    sys.exit("usage: python -m agents.bench.e2e passthrough")
