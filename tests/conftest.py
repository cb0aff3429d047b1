"""Shared fixtures: where ../shared is, and small event builders."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def shared_path(*parts: str) -> Path:
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} not present (tests that use ../shared need it beside the checkout)")
    return path


def standard_mix(n: int, seed: int = 7, fmt: str = "mix") -> list[dict[str, Any]]:
    """Events of the shared standard-mix generator (skips the test when it is absent)."""
    script = shared_path("bench", "make_events.py")
    out = subprocess.run(
        [sys.executable, str(script), "--n", str(n), "--seed", str(seed), "--format", fmt],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


@pytest.fixture(scope="session")
def mix_300() -> list[dict[str, Any]]:
    return standard_mix(300, seed=11)
