"""`ragmon bench --section judge-instructions`: the judge's cost on the check path in instructions.

Wall-clock and CPU-time ratios on a shared machine move by ±10% from one run to the next, more
than the judge costs; instruction counts do not. This runs the judge section's check loop
(agents.bench.judge.check_loop) under valgrind's callgrind, judge off and on, each with two event
counts, and reports instructions per answer as the difference between the two runs divided by
the extra answers (start-up, imports and the client's construction cancel out). The fake judge
replies after 100 s here: under callgrind the loop runs ~50x slower, so a 2 s judge would answer
~50x more calls than in the timed section; with 100 s it answers none, as the timed section's
queue-bound judge nearly does (12 calls of 10,000 answers). Needs `valgrind` on PATH. Takes
minutes: the four runs go two at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

# nothing of monitor/ at import: the callgrind target activates the compiled core first

SUMMARY = re.compile(r"^summary:\s*(\d+)\s*$", re.MULTILINE)
JUDGE_MODEL = "ok@100"


def read_summary(text: str) -> int:
    """The total instruction count of a callgrind output file."""
    found = SUMMARY.search(text)
    if found is None:
        raise ValueError("no 'summary:' line in the callgrind output")
    return int(found.group(1))


def per_answer(small: tuple[int, int], large: tuple[int, int]) -> float:
    """Instructions per answer from two runs (answers, instructions): the slope between them."""
    (n1, i1), (n2, i2) = small, large
    if n2 <= n1:
        raise ValueError("the second run needs more answers than the first")
    return (i2 - i1) / (n2 - n1)


async def _target(mode: str, events: list[bytes], url: str) -> None:
    from prometheus_client import CollectorRegistry

    from agents.bench.judge import check_loop
    from agents.judging.agent import JudgeRunner
    from agents.judging.observer import MetricsObserver
    from agents.telemetry.metrics import build_metrics
    from monitor.config.options import CheckOptions
    from monitor.judge.client import JudgeClient
    from monitor.judge.config import JudgeConfig
    from monitor.sampling.policy import Sampler, SamplingPolicy

    metrics = build_metrics(CollectorRegistry())
    if mode == "off":
        await check_loop(events, CheckOptions(), metrics, None, None)
        return
    config = JudgeConfig(
        base_url=url, model=JUDGE_MODEL, escalation_model=None, timeout=600.0, max_in_flight=4
    )
    runner = JudgeRunner(
        JudgeClient(config, observer=MetricsObserver(metrics)), metrics, concurrency=4
    )
    policy = SamplingPolicy(
        base_rate=0.1, oversample_rate=0.1, calls_per_minute=0, tokens_per_hour=0
    )
    await check_loop(events, CheckOptions(), metrics, Sampler(policy), runner)


def _run(mode: str, n: int, events_file: Path, url: str, out: Path, core: str) -> Any:
    cmd = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        "-m",
        "agents.bench.instructions",
        mode,
        str(n),
        str(events_file),
        url,
        core,
    ]
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same string hashing in every run
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)


def measure(events: list[bytes], counts: tuple[int, int], core: str) -> dict[str, Any]:
    from monitor.config.errors import InputError

    if shutil.which("valgrind") is None:
        raise InputError("the judge-instructions section needs valgrind (apt-get install valgrind)")
    if len(events) < counts[1]:
        raise InputError(f"the judge-instructions section needs {counts[1]} events (--n)")
    from agents.bench.judge import _start_fake_judge

    proc, url = _start_fake_judge()
    figures: dict[str, dict[int, int]] = {"off": {}, "on": {}}
    try:
        with tempfile.TemporaryDirectory(prefix="ragmon-instr-") as tmp:
            events_file = Path(tmp) / "events.jsonl"
            events_file.write_bytes(b"\n".join(events[: counts[1]]) + b"\n")
            for mode in figures:
                runs = {n: Path(tmp) / f"{mode}.{n}.out" for n in counts}
                procs = {n: _run(mode, n, events_file, url, path, core) for n, path in runs.items()}
                for n, p in procs.items():
                    _, err = p.communicate()
                    if p.returncode != 0:
                        raise RuntimeError(
                            f"callgrind run {mode}/{n} failed: {err.decode()[-500:]}"
                        )
                    figures[mode][n] = read_summary(runs[n].read_text(errors="replace"))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    lo, hi = counts
    off = per_answer((lo, figures["off"][lo]), (hi, figures["off"][hi]))
    on = per_answer((lo, figures["on"][lo]), (hi, figures["on"][hi]))
    return {
        "answers": list(counts),
        "core": core,
        "instructions_per_answer": {"off": off, "on": on},
        "on_vs_off": off / on,  # as a throughput ratio: answers per instruction, on over off
        "totals": {m: {str(n): v for n, v in f.items()} for m, f in figures.items()},
    }


def instructions_section(args: argparse.Namespace, events: list[bytes]) -> dict[str, Any]:
    """The judge's cost per answer in instructions (callgrind), on vs off: a figure that does
    not move with the machine's load."""
    from agents.checking import fastcore

    n = min(len(events), 2000)
    return measure(
        events, (n // 2, n), "compiled" if fastcore.core_kind() == "compiled" else "pure"
    )


SECTIONS = {"judge-instructions": instructions_section}


def main(argv: list[str]) -> int:
    """The callgrind target: `mode n events_file url core`."""
    mode, n, events_file, url, core = argv
    if core == "compiled":
        from agents.checking import fastcore

        fastcore.activate("compiled")
    events = [line for line in Path(events_file).read_bytes().splitlines() if line.strip()]
    asyncio.run(_target(mode, events[: int(n)], url))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
