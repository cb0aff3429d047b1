"""The machine's CPU share the e2e bench reports beside each rate (agents/bench/e2e_procs.py)."""

from __future__ import annotations

import time
from pathlib import Path

from agents.bench.e2e_procs import machine_cpu


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
