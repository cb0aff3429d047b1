"""The Grafana contract stand-in, one per session, reset and checked around every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.contract.grafana_contract_server import SPEC_PATH, ContractServer


@pytest.fixture(scope="session")
def contract_server() -> Iterator[ContractServer]:
    if not SPEC_PATH.is_file():
        pytest.skip(f"Grafana API contract not found at {SPEC_PATH} (set RAGMON_SHARED to shared/)")
    server = ContractServer(token="test-token")
    yield server
    server.close()


@pytest.fixture
def grafana_server(contract_server: ContractServer) -> Iterator[ContractServer]:
    contract_server.reset()
    yield contract_server
    for fault in contract_server.faults:
        if fault.hang is not None:
            fault.hang.set()
    assert contract_server.violations == [], "requests broke Grafana's API contract"
