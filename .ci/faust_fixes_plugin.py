"""pytest plugin for Faust's own test suite: every `faust.App` the suite builds gets ragmon's
Faust fixes through the call the worker makes, `agents.kafka.faust_fixes.install` (version
check, table recovery, fetch wait, revoke order, fetch snapshot), so the suite guards them.

Loaded by .ci/faust-tests.sh with `-p faust_fixes_plugin` and the checkout on PYTHONPATH.
The client settings point at a closed loopback port: the suite runs no broker, and the
recovery's end-offset probe (recovery_fix) falls back to the reported offsets when it fails.
"""

from __future__ import annotations

from typing import Any

import pytest

#: the apps the fixes were installed on (the summary line says how many)
INSTALLED: list[Any] = []


def pytest_configure(config: pytest.Config) -> None:
    import faust

    from agents.kafka import faust_fixes

    original = faust.App.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        faust_fixes.install(
            self, client_kwargs={"bootstrap_servers": "127.0.0.1:9"}, fetch_max_wait_ms=100
        )
        INSTALLED.append(self)

    faust.App.__init__ = init  # type: ignore[method-assign]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from faust.tables.manager import TableManager
    from faust.transport.consumer import Consumer
    from faust.transport.drivers.aiokafka import AIOKafkaConsumerThread

    patched = {
        "recovery_fix": getattr(TableManager, "_ragmon_recovery", False),
        "revoke_fix": getattr(Consumer, "_ragmon_revoke", False),
        "fetch_fix": getattr(AIOKafkaConsumerThread, "_ragmon_fetch_snapshot", False),
        "fetch_wait": getattr(AIOKafkaConsumerThread, "_ragmon_fetch_wait", False),
    }
    terminalreporter.write_line(
        f"ragmon Faust fixes installed on {len(INSTALLED)} apps; patched: "
        + ", ".join(f"{k}={v}" for k, v in patched.items())
    )
