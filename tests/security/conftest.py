"""The integration fixtures (a session tansu broker, worker processes) for the security tests."""

from __future__ import annotations

from tests.integration.conftest import broker, start_worker

__all__ = ["broker", "start_worker"]
