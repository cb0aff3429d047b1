"""`ragmon dlq`'s edges, with the topic read replaced by letters `dlq_record` wrote: the event id
found in the bytes, ISO-8601 UTC times, time order across partitions, the dry run showing the
transformed record, options after the action. (Over the wire: tests/integration/test_dlq_cli.py.)"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agents.cli import main
from agents.commands import dlq as dlq_command
from agents.commands import dlq_letters
from agents.kafka import reader
from agents.kafka.reader import Message
from agents.output.dlq import dlq_record

#: 2026-11-27T10:00:00Z and a minute, two minutes later
T0 = datetime(2026, 11, 27, 10, 0, tzinfo=UTC).timestamp()
#: the command's clock, an hour after the letters: its default `--since 24h` reads back from
#: here, not from the day the tests run (they failed once the letters were a day old)
NOW = T0 + 3600


def letter(partition: int, offset: int, at: float, value: bytes, **kw: Any) -> Message:
    record = dlq_record(
        reason=kw.pop("reason", "schema_violation"),
        error="answer: missing",
        topic="ragmon.answers",
        partition=partition,
        offset=offset * 10,
        timestamp=at - 1.5,
        key=b"k",
        value=value,
        max_value_bytes=kw.pop("max_value_bytes", 10_000),
        now=at,
        **kw,
    )
    return Message(partition, offset, at, None, json.dumps(record).encode())


@pytest.fixture()
def letters(monkeypatch: pytest.MonkeyPatch) -> list[Message]:
    held = [
        # partition 0 holds the newest letter, partition 1 the two older ones
        letter(0, 0, T0 + 120, b'{"event_id": "p0-newest", "app": "shop"}'),
        letter(1, 0, T0, b'{"event_id": "p1-oldest", "app": "shop"}'),
        letter(1, 1, T0 + 60, b"\xff\xfe not text"),
        # cut to 40 bytes: not JSON any more, the event id still readable
        letter(
            2,
            0,
            T0 + 90,
            b'{"app": "s", "event_id": "cut-\\"q\\"", "answer": "x"}',
            max_value_bytes=40,
        ),
        letter(
            2,
            1,
            T0 + 100,
            b'{"event_id": "known"}',
            event_id="recorded",
            app="shop",
            reason="check_error",
        ),
    ]

    async def fake_read(settings: Any, topic: str, start: float | None = None, *a: Any,
                        **kw: Any) -> AsyncIterator[Message]:  # fmt: skip
        for m in held:  # by time, as the broker's offsets-for-times read
            if start is None or (m.timestamp or 0) >= start:
                yield m

    monkeypatch.setattr(reader, "read_topic", fake_read)
    monkeypatch.setattr(dlq_command, "time", SimpleNamespace(time=lambda: NOW))
    return held


def run(*args: str) -> int:
    return main(["dlq", "-b", "127.0.0.1:9", *args])


def listed(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_list_is_in_time_order_with_event_ids_from_the_bytes_and_iso_times(
    letters: list[Message], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--json", "list") == 0
    out = listed(capsys)
    assert [x["letter"] for x in out] == ["1:0", "1:1", "2:0", "2:1", "0:0"]
    assert [x["event_id"] for x in out] == ["p1-oldest", None, 'cut-"q"', "recorded", "p0-newest"]
    assert out[0]["dead_lettered_at"] == "2026-11-27T10:00:00Z"
    assert out[0]["timestamp"] == "2026-11-27T09:59:58.500000Z"
    assert out[-1]["dead_lettered_at"] == "2026-11-27T10:02:00Z"
    assert run("list") == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("1:0 2026-11-27T10:00:00Z schema_violation ragmon.answers 1:0 ")
    assert "event p1-oldest:" in lines[0] and "event -:" in lines[1]


def test_show_prints_the_event_id_in_the_bytes_and_iso_time(
    letters: list[Message], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("show", "0:0") == 0
    shown = capsys.readouterr().out.splitlines()
    assert "event_id: p0-newest" in shown
    assert "dead_lettered_at: 2026-11-27T10:02:00Z" in shown
    assert shown[-2:] == ["original (text):", '{"event_id": "p0-newest", "app": "shop"}']


def test_options_go_before_or_after_the_action(
    letters: list[Message], capsys: pytest.CaptureFixture[str]
) -> None:
    for args in (
        ("--json", "--reason", "check_error", "list"),
        ("list", "--json", "--reason", "check_error"),
        ("--json", "list", "--reason", "check_error"),
        ("--reason", "schema_violation", "list", "--json", "--reason", "check_error"),
    ):
        assert run(*args) == 0
        assert [x["letter"] for x in listed(capsys)] == ["2:1"]
    assert run("show", "1:0", "--json") == 0
    [shown] = listed(capsys)
    assert shown["event_id"] == "p1-oldest" and shown["text"].startswith("{")
    assert run("list", "--since", "-5m", "--json") == 0  # T0 is in the past: none that recent
    assert listed(capsys) == []
    assert run("list", "--since=-5m") == 0
    assert capsys.readouterr().out == ""
    assert run("--since", "-100000h", "list", "--json") == 0
    assert len(listed(capsys)) == 5


def test_the_config_file_is_read_after_the_action_too(
    letters: list[Message], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("max_citations: 0\n")  # invalid: proves the file was read
    for args in (("--config", str(config), "list"), ("list", "--config", str(config))):
        assert run(*args) == 1
        assert "RAGMON_MAX_CITATIONS (max_citations)" in capsys.readouterr().err


def test_a_dry_run_prints_the_transformed_record(
    letters: list[Message], capsys: pytest.CaptureFixture[str]
) -> None:
    fix = (
        f'{sys.executable} -c "import json,sys; e=json.load(sys.stdin); '
        "e['answer']='Revenue grew.'; sys.stdout.write(json.dumps(e))\""
    )
    assert run("replay", "1:0", "--transform", fix, "--since", "-100000h") == 0
    out = capsys.readouterr().out.splitlines()
    fixed = json.dumps({"event_id": "p1-oldest", "app": "shop", "answer": "Revenue grew."})
    assert out[0] == f"1:0: would send {len(fixed)} bytes to ragmon.answers (dry run):"
    assert out[1] == fixed
    assert out[2] == "dry run: 1 letters would be replayed; add --yes to send them"
    # without --transform the original bytes, and bytes that are not text as base64
    assert run("replay", "1:1", "--since", "-100000h") == 0
    assert capsys.readouterr().out.splitlines()[1] == "(not UTF-8, base64) //4gbm90IHRleHQ="


def test_a_missing_letter_names_the_letters_there(
    letters: list[Message], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("show", "7:7", "--since", "-100000h") == 1
    err = capsys.readouterr().err
    assert (
        "no dead letter at 7:7 in the last 100000h (letters then: 1:0, 1:1, 2:0, 2:1, 0:0)" in err
    )


@pytest.mark.parametrize(
    ("data", "found"),
    [
        (b'{"event_id": 42}', "42"),
        (b'{"event_id": true}', None),
        (b'{"event_id": ""}', None),
        (b"[1, 2]", None),
        (b'{"a": 1, "event_id": "e\\u00e9", "ans', "e\u00e9"),  # cut after the id
        (b'{"a": 1, "event_id": "e\\u00e9', None),  # cut inside it
        (b'garbage "event_id":"x\\', None),
    ],
)
def test_event_id_in_bytes(data: bytes, found: str | None) -> None:
    assert dlq_letters.event_id_in(data) == found
