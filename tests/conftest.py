"""Shared fixtures: where ../shared is, and small event builders."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
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


def dev_sentences() -> Iterator[str]:
    """Every sentence of the three dev sets' answers (ragtruth, expertqa, wice), as
    split_sentences cuts them: real text for the tests that hold a fast path to the one it
    replaces."""
    from monitor.text.sentences import split_sentences  # not at import: the core is chosen first

    for name in ("ragtruth", "expertqa", "wice"):
        with open(SHARED / "eval" / "dev" / f"{name}-dev.events.jsonl", encoding="utf-8") as fh:
            for line in fh:
                answer = json.loads(line)["answer"]
                for s in split_sentences(answer, []):
                    yield answer[s.start : s.end]


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


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """The shuffled order's seed at the end of every run, `-q` too (pytest-random-order writes it
    in the header, which `-q` hides): a failure that depends on the order is replayed with it."""
    try:
        from random_order.config import Config
    except ImportError:  # the plugin is in the dev extra; without it the order is the file order
        return
    shuffled = Config(config)
    if shuffled.is_enabled:
        terminalreporter.write_line(
            f"random order: --random-order-bucket={shuffled.bucket_type} "
            f"--random-order-seed={shuffled.seed} replays it"
        )
