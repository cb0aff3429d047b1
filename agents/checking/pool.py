"""Check processes: the cheap tier of a worker run on other cores.

The checks are CPU-bound Python and the worker's event loop holds the GIL, so a worker checks
no faster than one core allows. With RAGMON_CHECK_PROCESSES=N the worker's check agent sends
batches of raw answers to N child processes (`CheckWork.run_batch`) and keeps everything
stateful in its own process: dedup, counters, score records, the judge sampler, publishing.

The children are spawned (not forked: the worker has threads and an event loop), ignore
Ctrl-C and SIGTERM (the worker stops them) and get SIGKILL from the kernel when the worker
dies. A child that dies (OOM killer, a crash in compiled code) breaks the pool, and every batch
out at the time fails with it: the pool is started again, and each of those batches is checked
again on a process of its own, where a death can only be its own. A batch that kills its own
process is split in halves, each on a process of its own again, down to the one answer that
does it, which is dead-lettered (`check_error`) with its bytes; no other answer is lost or
rejected.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import structlog

from agents.checking.gc_tuning import tune_gc
from agents.checking.work import Checked, CheckWork, Source
from agents.output.dlq import CHECK_ERROR
from monitor.records.models import Rejection

log = structlog.get_logger("ragmon.check_pool")

Batch = list[tuple[bytes | None, Source]]
Results = list[Checked | Rejection]

T = TypeVar("T")
_PR_SET_PDEATHSIG = 1
_WORK: CheckWork | None = None  # in a check process: its copy of the work


def _child_init(work: CheckWork, parent: int) -> None:
    global _WORK
    # The worker alone decides when its check processes end: Ctrl-C (SIGINT to the whole
    # process group) and a SIGTERM sent to the group must not kill them under a batch.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # the worker died: so do we
    if os.getppid() != parent:
        os._exit(0)  # it died before the line above
    _WORK = work
    tune_gc()


def _child_run(batch: Batch, shed: str | None = None) -> Results:
    assert _WORK is not None, "check process not initialised"
    return _WORK.run_batch(batch, shed)


def _child_ping(hold: float = 0.0) -> tuple[int, str]:
    from agents.checking.fastcore import describe

    time.sleep(hold)
    return os.getpid(), describe()


class CheckPool:
    def __init__(
        self, work: CheckWork, processes: int, on_restart: Callable[[], None] | None = None
    ) -> None:
        if processes < 1:
            raise ValueError("a check pool needs at least one process")
        self.work = work
        self.processes = processes
        self.on_restart = on_restart
        self.restarts = 0
        self._generation = 0
        self._executor: ProcessPoolExecutor | None = None
        self._private: set[ProcessPoolExecutor] = set()  # batches being checked alone

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_child_init,
            initargs=(self.work, os.getpid()),
        )

    async def start(self, timeout: float = 60.0) -> str:
        """Start the processes and wait until each has answered (so each ignores Ctrl-C);
        returns which core they run."""
        if self._executor is None:
            self._executor = self._new_executor()
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        seen: dict[int, str] = {}
        deadline = started + timeout
        while len(seen) < self.processes and time.monotonic() < deadline:
            # a ping holds its process a moment, so the next ones go to the others
            pings = [
                loop.run_in_executor(self._executor, _child_ping, 0.05)
                for _ in range(self.processes)
            ]
            try:
                answers = await asyncio.wait_for(
                    asyncio.gather(*pings), max(0.1, deadline - time.monotonic())
                )
            except TimeoutError:
                break
            seen.update(answers)
        if not seen:
            raise TimeoutError(f"no check process answered within {timeout:.0f} s")
        core = next(iter(seen.values()))
        log.info(
            "check processes started",
            processes=self.processes,
            answered=len(seen),
            core=core,
            seconds=round(time.monotonic() - started, 2),
        )
        return core

    def _restart(self, generation: int) -> None:
        if generation != self._generation:
            return  # another batch saw the same death and already started new processes
        self._generation += 1
        self._count_restart()
        old, self._executor = self._executor, self._new_executor()
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)

    async def run(self, batch: Batch, shed: str | None = None) -> Results:
        """Results in the batch's order; never raises for what one answer does. `shed`: why the
        judge sheds load now (`CheckWork.check`), or None."""
        if self._executor is None:
            self._executor = self._new_executor()
        generation = self._generation
        try:
            return await asyncio.get_running_loop().run_in_executor(
                self._executor, _child_run, batch, shed
            )
        except BrokenProcessPool:
            # which batch killed it is unknown: every batch out sees the same death
            log.error("check process died; starting a new one", batch=len(batch))
            self._restart(generation)
        return await self._alone(batch, shed)

    def _count_restart(self) -> None:
        self.restarts += 1
        if self.on_restart is not None:
            self.on_restart()

    async def _on_own_process(self, fn: Callable[..., T], *args: Any) -> T:
        """`fn(*args)` on a process started for it alone (its death raises BrokenProcessPool)."""
        executor = self._new_executor()
        self._private.add(executor)
        try:
            return await asyncio.get_running_loop().run_in_executor(executor, fn, *args)
        finally:
            self._private.discard(executor)
            executor.shutdown(wait=False, cancel_futures=True)

    async def _alone(self, batch: Batch, shed: str | None = None) -> Results:
        """`batch` checked on a process of its own, halved around an answer that kills it."""
        try:
            return await self._on_own_process(_child_run, batch, shed)
        except BrokenProcessPool:
            self._count_restart()
        if len(batch) == 1:
            if not await self._healthy():
                # not this answer: no check process lives (it cannot start, say); the caller
                # checks the batch in the worker
                raise RuntimeError("check processes die even without an answer")
            log.error("check process died on one answer; dead-lettered", source=batch[0][1][:3])
            return [Rejection(CHECK_ERROR, "the check process died on this answer")]
        half = len(batch) // 2
        return await self._alone(batch[:half], shed) + await self._alone(batch[half:], shed)

    async def _healthy(self) -> bool:
        """Whether a fresh check process answers a ping."""
        try:
            await self._on_own_process(_child_ping)
        except BrokenProcessPool:
            return False
        return True

    def close(self, timeout: float = 10.0) -> None:
        """Stop the processes without waiting for queued batches (their answers are not
        committed, so they are read again). Each process is asked to end after its current
        batch and is killed only when it has not after `timeout` seconds: killing it at once
        raced with the executor's own threads, which then wrote to closed pipes."""
        executors = [*self._private, *([self._executor] if self._executor else [])]
        self._executor = None
        self._private.clear()
        processes = [p for e in executors for p in (getattr(e, "_processes", None) or {}).values()]
        for executor in executors:
            executor.shutdown(wait=False, cancel_futures=True)
        deadline = time.monotonic() + timeout
        for process in processes:
            process.join(max(0.0, deadline - time.monotonic()))
        for process in processes:
            if process.is_alive():
                log.warning("check process did not stop; killing it", pid=process.pid)
                process.kill()
                process.join(5)
        for executor in executors:
            thread = getattr(executor, "_executor_manager_thread", None)
            if thread is not None:
                thread.join(max(0.5, deadline - time.monotonic()))
