"""The CLI as a first user meets it: global options anywhere, a typo'd option or variable named."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.cli import main
from agents.kafka.broker import free_port


def test_config_after_the_subcommand_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("max_citations: 0\n")  # invalid: proves the file was read
    events = tmp_path / "e.jsonl"
    events.write_text("")
    assert main(["check", "--config", str(config), str(events)]) == 1
    assert "RAGMON_MAX_CITATIONS (max_citations)" in capsys.readouterr().err
    config.write_text("max_citations: 5\n")
    assert main(["check", "--config", str(config), "-q", str(events)]) == 0


def test_an_unknown_option_prints_the_subcommands_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["check", "--bogus", "x.jsonl"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: ragmon check ")
    assert "ragmon check: error: unrecognized arguments: --bogus" in err


def test_a_typod_variable_is_reported_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGMON_BOOTSTRAP_SERVER", "k:9092")
    events = tmp_path / "e.jsonl"
    events.write_text("")
    assert main(["check", "-q", str(events)]) == 0
    assert (
        "ragmon: warning: unknown variable RAGMON_BOOTSTRAP_SERVER is ignored "
        "(did you mean RAGMON_BOOTSTRAP_SERVERS?)"
    ) in capsys.readouterr().err


def test_a_url_is_not_a_bootstrap_server(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["worker", "-b", "http://127.0.0.1:9092"]) == 1
    err = capsys.readouterr().err
    assert "malformed server 'http://127.0.0.1:9092'" in err and "unreachable" not in err


def test_bench_help_lists_its_sections(capsys: pytest.CaptureFixture[str]) -> None:
    from agents.commands.bench import sections

    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert sections(), "no bench section registered"
    for name in sections():
        assert name in out


def test_produce_to_no_broker_says_so_in_its_own_lines_only(tmp_path: Path) -> None:
    import subprocess
    import sys

    port = free_port()  # nobody listens on it
    events = tmp_path / "e.jsonl"
    events.write_text('{"event_id": "e1", "answer": "x"}\n')
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "agents.cli",
            "produce",
            str(events),
            "-b",
            f"127.0.0.1:{port}",
            "--max-wait",
            "2.5",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert f"Kafka broker at 127.0.0.1:{port} unreachable" in done.stderr
    # aiokafka's own connection lines ("Unable connect to node ...") are not interleaved
    assert "Unable connect" not in done.stderr and "aiokafka" not in done.stderr, done.stderr
