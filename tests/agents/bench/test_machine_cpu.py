"""What the e2e bench reports beside each rate (agents/bench/e2e_procs.py): the machine's CPU
share in use and the busiest process's share of a core."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agents.bench.e2e_procs import busiest_share, cpu_seconds, machine_cpu, process_cpu


def test_busy_and_total_ticks_from_the_first_line_of_proc_stat(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    # user nice system idle iowait irq softirq steal guest guest_nice
    stat.write_text("cpu  10 1 5 100 4 1 2 3 7 0\ncpu0 5 0 2 50 2 0 1 1 3 0\n")
    # idle + iowait = 104 of 10+1+5+100+4+1+2+3 = 126 (guest is counted inside user)
    assert machine_cpu(stat) == (22, 126)


def test_a_busy_loop_shows_as_busy_ticks_on_this_machine() -> None:
    before = machine_cpu()
    deadline = time.process_time() + 0.3
    while time.process_time() < deadline:  # bounded by this process's own CPU time
        pass
    after = machine_cpu()
    busy, total = (b - a for a, b in zip(before, after, strict=True))
    assert total > 0 and 0 < busy <= total


def test_the_busiest_process_share_of_a_core() -> None:
    before = {10: 5.0, 11: 2.0}
    # the check process 11 used 1.8 s of CPU in 2 s, the worker 10 0.6 s; 12 started meanwhile
    after = {10: 5.6, 11: 3.8, 12: 0.1}
    assert busiest_share(before, after, 2.0) == pytest.approx(0.9)
    assert busiest_share(before, after, 0.0) == 0.0


def test_process_cpu_names_this_process_and_adds_up() -> None:
    me = os.getpid()
    cpu = process_cpu(me)
    assert me in cpu and cpu[me] > 0
    assert cpu_seconds(me) == pytest.approx(sum(process_cpu(me).values()), abs=0.05)
