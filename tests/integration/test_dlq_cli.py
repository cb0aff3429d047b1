"""`ragmon dlq`: a dead letter, fixed by a transform and replayed, is checked once; replaying it
again sends nothing; a dry run sends nothing; nothing is deleted."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agents.kafka.broker import EmbeddedBroker
from agents.kafka.reader import read_topic
from monitor.config.settings import load_settings
from tests.integration.conftest import Namespace, WorkerProcess, produce, run_ragmon, wait_until

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
FIX = (
    f'{sys.executable} -c "import json,sys; e=json.load(sys.stdin); '
    "e['answer']='Revenue grew.'; sys.stdout.write(json.dumps(e))\""
)


def cli(ns: Namespace, bootstrap: str, *args: str) -> subprocess.CompletedProcess[str]:
    return run_ragmon(ns, bootstrap, "dlq", *args)


def records(bootstrap: str, topic: str) -> list[tuple[bytes | None, list[tuple[str, bytes]]]]:
    settings = load_settings(bootstrap_servers=bootstrap)

    async def main() -> list[tuple[bytes | None, list[tuple[str, bytes]]]]:
        return [(m.key, list(m.headers)) async for m in read_topic(settings, topic)]

    return asyncio.run(main())


def test_a_fixed_letter_is_checked_once_and_a_second_replay_does_nothing(
    broker: EmbeddedBroker, start_worker: Callable[..., WorkerProcess]
) -> None:
    ns = Namespace("dlqcli")
    worker = start_worker(ns, RAGMON_CHECK_PROCESSES="0")
    worker.wait_assigned(timeout=90)
    broken = {"event_id": "fix-me", "app": "shop"}  # no answer: schema_violation
    produce(broker.bootstrap, ns.topic("answers"), [(b"fix-me", json.dumps(broken).encode())])

    def checked() -> float:
        key = ("ragmon_events_total", frozenset({("app", "shop"), ("outcome", "checked")}))
        return worker.metrics().get(key, 0.0)

    def letters() -> list[dict[str, object]]:
        out = cli(ns, broker.bootstrap, "list", "--json", "--since", "-1h")
        assert out.returncode == 0, out.stderr
        return [json.loads(line) for line in out.stdout.splitlines()]

    [letter] = wait_until(letters, 60, what="the dead letter")
    assert letter["reason"] == "schema_violation" and letter["event_id"] == "fix-me"
    assert letter["replayed"] == []
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", str(letter["dead_lettered_at"]))
    position = str(letter["letter"])
    shown = cli(ns, broker.bootstrap, "show", position)
    assert "event_id: fix-me" in shown.stdout.splitlines()
    assert '"event_id": "fix-me"' in shown.stdout and "original (text):" in shown.stdout

    dry = cli(ns, broker.bootstrap, "replay", position, "--transform", FIX)
    assert dry.returncode == 0 and "dry run: 1 letters would be replayed" in dry.stdout
    # the dry run shows the record as the fix makes it
    assert json.loads(dry.stdout.splitlines()[1]) == {**broken, "answer": "Revenue grew."}
    first = cli(ns, broker.bootstrap, "replay", position, "--transform", FIX, "--yes")
    assert first.returncode == 0, first.stdout + first.stderr
    assert "replayed 1 letters" in first.stdout
    wait_until(lambda: checked() == 1.0, 60, what="the fixed answer checked")

    second = cli(ns, broker.bootstrap, "replay", position, "--transform", FIX, "--yes")
    assert second.returncode == 0 and "already replayed" in second.stdout
    assert "nothing to replay" in second.stdout
    # the answers topic holds the original and exactly one replay, marked as such
    answers = records(broker.bootstrap, ns.topic("answers"))
    replays = [h for _, headers in answers for h in headers if h[0] == "ragmon-replay-of"]
    assert len(answers) == 2 and len(replays) == 1
    assert replays[0][1] == f"{ns.topic('dlq')}/{position.replace(':', '/')}".encode()
    # nothing deleted: the letter is still there, now marked replayed
    [again] = letters()
    assert again["letter"] == position and len(again["replayed"]) == 1  # type: ignore[arg-type]
    assert checked() == 1.0
