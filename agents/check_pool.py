"""Check processes: the cheap tier of a worker run on other cores.

The checks are CPU-bound Python and the worker's event loop holds the GIL, so a worker checks
no faster than one core allows. With RAGMON_CHECK_PROCESSES=N the worker's check agent sends
batches of raw answers to N child processes (`CheckWork.run_batch`) and keeps everything
stateful in its own process: dedup, counters, score records, the judge sampler, publishing.

The children are spawned (not forked: the worker has threads and an event loop), ignore
Ctrl-C (the worker stops them) and get SIGTERM from the kernel when the worker dies. A child
that dies (OOM killer, a crash in compiled code) breaks the pool: it is started again and the
batch is sent again; a batch that kills a fresh child too is split in halves down to the one
answer that does it, which is dead-lettered (`check_error`) with its bytes.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import signal
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import structlog

from agents.check_work import Checked, CheckWork, Source
from agents.dlq import CHECK_ERROR
from monitor.models import Rejection

log = structlog.get_logger("ragmon.check_pool")

Batch = list[tuple[bytes | None, Source]]
Results = list[Checked | Rejection]

_WORK: CheckWork | None = None  # in a check process: its copy of the work


def _child_init(work: CheckWork) -> None:
    global _WORK
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from agents.broker import die_with_parent

    die_with_parent()
    _WORK = work


def _child_run(batch: Batch) -> Results:
    assert _WORK is not None, "check process not initialised"
    return _WORK.run_batch(batch)


def _child_ping() -> str:
    from agents.fastcore import describe

    return describe()


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

    def _new_executor(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_child_init,
            initargs=(self.work,),
        )

    async def start(self) -> str:
        """Start the processes and wait until they answer; returns which core they run."""
        if self._executor is None:
            self._executor = self._new_executor()
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        pings = [loop.run_in_executor(self._executor, _child_ping) for _ in range(self.processes)]
        cores = await asyncio.gather(*pings)
        log.info(
            "check processes started",
            processes=self.processes,
            core=cores[0],
            seconds=round(time.monotonic() - started, 2),
        )
        return str(cores[0])

    def _restart(self, generation: int) -> None:
        if generation != self._generation:
            return  # another batch saw the same death and already started new processes
        self._generation += 1
        self.restarts += 1
        if self.on_restart is not None:
            self.on_restart()
        old, self._executor = self._executor, self._new_executor()
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)

    async def run(self, batch: Batch) -> Results:
        """Results in the batch's order; never raises for what one answer does."""
        if self._executor is None:
            self._executor = self._new_executor()
        loop = asyncio.get_running_loop()
        for attempt in (1, 2):
            generation = self._generation
            try:
                assert self._executor is not None
                return await loop.run_in_executor(self._executor, _child_run, batch)
            except BrokenProcessPool:
                log.error(
                    "check process died; starting a new one",
                    batch=len(batch),
                    attempt=attempt,
                    restarts=self.restarts + 1,
                )
                self._restart(generation)
        if len(batch) == 1:
            return [Rejection(CHECK_ERROR, "the check process died on this answer")]
        half = len(batch) // 2
        return await self.run(batch[:half]) + await self.run(batch[half:])

    def close(self) -> None:
        """Stop the processes without waiting for queued batches (their answers are not
        committed, so they are read again)."""
        executor, self._executor = self._executor, None
        if executor is not None:
            processes = list(getattr(executor, "_processes", {}).values())
            executor.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            for process in processes:
                process.join(5)
