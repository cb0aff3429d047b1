"""Running one worker process: wait for the broker, create topics, run Faust until a signal."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
from typing import Any

import faust
import structlog

from agents.checking import fastcore
from agents.checking.gc_tuning import tune_gc
from agents.kafka.broker import free_port
from agents.kafka.connection import client_kwargs, wait_for_broker
from agents.kafka.topics import TopicSpec, ensure_topics
from agents.stream.app import AppDeps, create_app
from agents.stream.ragmon_app import RagmonApp
from agents.telemetry.logs import configure_logging
from monitor.config.errors import BrokerUnavailable, ConfigError
from monitor.config.settings import Settings
from monitor.oncall.links import EVIDENCE_PATH, base_url

log = structlog.get_logger("ragmon.worker")

# Loggers of the Kafka client stack that repeat one error per retry while a broker is away.
_NOISY_LOGGERS = ("aiokafka", "faust", "mode", "kafka")


class RepeatFilter(logging.Filter):
    """Lets a given message through at most once per `interval` seconds (per logger+text)."""

    def __init__(self, interval: float = 30.0) -> None:
        super().__init__()
        self.interval = interval
        self._last: dict[tuple[str, str], float] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:  # a malformed log call is not ours to crash on
            return True
        key = (record.name, text[:200])
        now = time.monotonic()
        last = self._last.get(key)
        if last is not None and now - last < self.interval:
            return False
        if len(self._last) > 1000:
            self._last.clear()
        self._last[key] = now
        if record.exc_info and record.levelno < logging.CRITICAL:
            # One line per failure is enough; the traceback of a connection error helps nobody.
            record.exc_info = None
            record.exc_text = None
        return True


def quiet_client_logs(interval: float = 30.0) -> None:
    repeat = RepeatFilter(interval)
    for name in _NOISY_LOGGERS:
        logging.getLogger(name).addFilter(repeat)
    for handler in logging.getLogger().handlers:
        handler.addFilter(repeat)


SHUTDOWN_TIMEOUT = 20.0  # seconds a graceful stop may take before the process exits anyway
SHUTDOWN_TIMEOUT_BROKER_DOWN = 5.0  # nothing can be committed anyway: do not wait long


class RagmonWorker(faust.Worker):
    """A Faust worker whose stop cannot hang: a graceful shutdown that needs an absent broker
    (commits, leaving the group) is cut short after SHUTDOWN_TIMEOUT, and a second signal
    exits at once."""

    shutdown_timeout = SHUTDOWN_TIMEOUT
    _watchdog: threading.Timer | None = None
    rapp: RagmonApp | None = None

    def _schedule_shutdown(self, signum: signal.Signals) -> None:
        if self._watchdog is not None:
            log.warning("second signal, exiting now", signal=signum.name)
            os._exit(1)
        if self.rapp is not None and self.rapp.broker_up is False:
            self.shutdown_timeout = SHUTDOWN_TIMEOUT_BROKER_DOWN
        log.info("stopping", signal=signum.name, timeout_s=self.shutdown_timeout)
        self._watchdog = threading.Timer(self.shutdown_timeout, self._force_exit)
        self._watchdog.daemon = True
        self._watchdog.start()
        super()._schedule_shutdown(signum)

    def _force_exit(self) -> None:
        log.error(
            "graceful stop timed out (broker unreachable?), exiting",
            timeout_s=self.shutdown_timeout,
        )
        logging.shutdown()
        os._exit(1)


async def prepare(settings: Settings, max_wait: float | None) -> dict[str, TopicSpec]:
    await wait_for_broker(settings, max_wait=max_wait)
    return await ensure_topics(settings, client_kwargs(settings))


def build_worker(
    settings: Settings, deps: AppDeps | None = None, loop: Any = None
) -> tuple[RagmonApp, RagmonWorker]:
    rapp = create_app(settings, deps)
    worker = RagmonWorker(
        rapp.faust,
        loop=loop,
        loglevel=settings.log_level.upper() if settings.log_level.upper() != "INFO" else "WARNING",
        quiet=True,
        override_logging=False,
        redirect_stdouts=False,
    )
    worker.spinner = None
    worker.rapp = rapp
    return rapp, worker


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    """The Kafka client thread dies cancelled when it stops without a broker: one line."""
    if isinstance(args.exc_value, asyncio.CancelledError):
        log.warning(
            "client thread cancelled while stopping", thread=getattr(args.thread, "name", "?")
        )
        return
    _default_excepthook(args)


_default_excepthook = threading.excepthook


def run_worker(settings: Settings, *, max_wait: float | None = None) -> int:
    """Blocks until SIGINT/SIGTERM; returns the exit code. Broker down at start: retried with
    backoff (one log line per attempt) for `max_wait` seconds, then a one-line error."""
    from agents.evidence.auth import startup_problem

    problem = startup_problem(settings)
    if problem:  # before the broker: nothing starts that would serve answers to anyone
        raise ConfigError(problem)
    configure_logging(settings.log_level, settings.log_format)
    quiet_client_logs()
    threading.excepthook = _thread_excepthook
    if settings.metrics_port == 0:
        settings = settings.model_copy(update={"metrics_port": free_port(settings.metrics_host)})
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        specs = loop.run_until_complete(prepare(settings, max_wait))
    except BrokerUnavailable:
        loop.close()
        raise
    except KeyboardInterrupt:
        loop.close()
        return 130
    log.info(
        "worker starting",
        app_id=settings.app_id,
        servers=settings.bootstrap_servers,
        metrics=f"http://{settings.metrics_host}:{settings.metrics_port}/metrics",
        evidence=base_url(settings.public_url, settings.metrics_host, settings.metrics_port)
        + EVIDENCE_PATH,
        topics={role: f"{s.name}/{s.partitions}" for role, s in specs.items()},
        core=fastcore.describe(),
    )
    rapp, worker = build_worker(settings, AppDeps(topics=specs), loop=loop)
    tune_gc()
    try:
        worker.execute_from_commandline()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0
        log.info("worker stopped", exit_code=code)
        return code
    finally:
        rapp.close()
    return 0
