"""`ragmon bench --runs N` sets the e2e section's rounds too; RAGMON_BENCH_E2E_ROUNDS wins."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from agents.bench import e2e
from agents.commands import bench


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    bench.register(parser.add_subparsers())
    return parser.parse_args(["bench", *argv])


@pytest.mark.parametrize(
    ("argv", "env", "rounds", "runs"),
    [
        (["--runs", "4"], None, 4, 4),
        ([], None, 3, 5),
        (["--runs", "4"], "2", 2, 4),
    ],
)
def test_e2e_rounds_follow_runs(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    argv: list[str],
    env: str | None,
    rounds: int,
    runs: int,
) -> None:
    seen: dict[str, Any] = {}

    def fake_measure(events: list[bytes], **kwargs: Any) -> dict[str, Any]:
        seen.update(kwargs)
        return {}

    def fake_core(events: list[bytes], n: int, options: Any) -> dict[str, Any]:
        seen["core_runs"] = n
        return {
            "events_per_second_median": 1.0,
            "us_per_event_median": 1.0,
            "us_per_event_p99": 1.0,
        }

    if env is None:
        monkeypatch.delenv("RAGMON_BENCH_E2E_ROUNDS", raising=False)
    else:
        monkeypatch.setenv("RAGMON_BENCH_E2E_ROUNDS", env)
    monkeypatch.setattr(e2e, "measure", fake_measure)
    monkeypatch.setattr(bench, "core_throughput", fake_core)
    monkeypatch.setattr(bench, "compare_with_pure", lambda *a: {})
    monkeypatch.setattr(bench, "adversarial", lambda options: {"x": {"seconds": 0.0}})
    events = tmp_path / "events.jsonl"
    events.write_text('{"event_id": "a", "answer": "x"}\n')
    args = _parse(
        [*argv, "--events", str(events), "--section", "e2e", "-o", str(tmp_path / "o.json")]
    )
    assert bench.run(args) == 0
    assert seen["rounds"] == rounds
    assert seen["core_runs"] == runs
