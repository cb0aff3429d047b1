"""`ragmon audit`'s edges, with the topic read replaced by records an AuditTrail wrote: a
missing event id or app is an error naming the range (exit 1), never a silent empty answer;
`--since -5m` parses with and without `=`. (Over the wire: tests/integration/test_audit_cli.py.)"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from agents.cli import main
from agents.evidence import source
from agents.output.audit import AuditTrail
from monitor.config.settings import load_settings
from monitor.oncall.query import AuditItem
from tests.agents.helpers import mixed_verdict


def trail_records(apps: dict[str, str]) -> list[AuditItem]:
    """The audit records a worker writes for `event id -> app` answers (every one failing)."""
    sent: list[bytes] = []
    trail = AuditTrail(load_settings(), None, send=lambda _key, data: sent.append(data))
    for event_id, app in apps.items():
        trail.offer(mixed_verdict(event_id, app), {"topic": "answers", "partition": 0})
    items = []
    for offset, data in enumerate(sent):
        record = {**json.loads(data), "audited_at": time.time() - 60}  # a minute old
        items.append(AuditItem(record, 0, offset, None, json.dumps(record).encode()))
    return items


@pytest.fixture()
def topic(monkeypatch: pytest.MonkeyPatch) -> list[AuditItem]:
    """What the audit topic holds; every read (the trail's and the ranked window's) sees it
    filtered by the asked-for range, as the broker's offsets-for-times read does."""
    items = trail_records({"e1": "shop", "e2": "shop", "e3": "search"})
    seen: list[tuple[float | None, float | None]] = []

    async def fake_items(
        settings: Any, start: float | None, end: float | None, follow: bool = False
    ) -> AsyncIterator[AuditItem]:
        seen.append((start, end))
        for item in items:
            at = item.at or 0.0
            if (start is None or at >= start) and (end is None or at <= end):
                yield item

    monkeypatch.setattr(source, "audit_items", fake_items)
    monkeypatch.setattr(source, "read_topic", None)  # nothing else may reach for the broker
    return items


def run(*args: str) -> int:
    return main(["audit", "-b", "127.0.0.1:9", *args])


def test_an_event_found_is_printed_and_exits_0(
    topic: list[AuditItem], capsys: pytest.CaptureFixture[str]
) -> None:
    assert run("--event-id", "e2", "--json") == 0
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["event_id"] == "e2"
    assert run("--app", "shop", "--event-id", "e1", "--json") == 0
    [line] = capsys.readouterr().out.splitlines()
    assert json.loads(line)["event_id"] == "e1"


@pytest.mark.parametrize("app", [None, "shop"])
def test_a_missing_event_id_is_an_error_naming_the_range(
    topic: list[AuditItem], capsys: pytest.CaptureFixture[str], app: str | None
) -> None:
    by_app = ["--app", app] if app else []
    assert run("--event-id", "nosuchid", *by_app) == 1
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.startswith("ragmon audit: error: no audit record of event 'nosuchid'")
    assert " UTC to " in out.err and "widen --since" in out.err


@pytest.mark.parametrize("follow_trail", [False, True])
def test_an_unknown_app_is_an_error_listing_the_apps_there(
    topic: list[AuditItem], capsys: pytest.CaptureFixture[str], follow_trail: bool
) -> None:
    # ranked (--app alone) and the trail (--app with a filter the ranking does not take)
    extra = ["--reason", "failure"] if follow_trail else []
    assert run("--app", "nosuchapp", *extra) == 1
    err = capsys.readouterr().err
    assert "no audit record of app 'nosuchapp' from " in err
    assert err.rstrip().endswith("apps with records then: search, shop")


def test_an_app_with_nothing_in_range_says_none(
    topic: list[AuditItem], capsys: pytest.CaptureFixture[str]
) -> None:
    # the records are a minute old: a 10 s range holds none
    assert run("--app", "shop", "--since", "10s") == 1
    assert "apps with records then: none (widen --since?)" in capsys.readouterr().err


@pytest.mark.parametrize(
    "since", [["--since", "-5m"], ["--since=-5m"], ["--since", "5m"], ["--since=5m"]]
)
def test_since_minus_5m_means_five_minutes_ago(
    topic: list[AuditItem], monkeypatch: pytest.MonkeyPatch, since: list[str]
) -> None:
    ranges: list[tuple[float | None, float | None]] = []
    original = source.audit_items

    def spy(settings: Any, start: float | None, end: float | None, follow: bool = False) -> Any:
        ranges.append((start, end))
        return original(settings, start, end, follow)

    monkeypatch.setattr(source, "audit_items", spy)
    before = time.time()
    assert run(*since, "--json") == 0
    [(start, end)] = ranges
    assert end is None and start is not None
    assert before - 300 - 1 <= start <= time.time() - 300


def test_from_and_to_take_times_ago(
    topic: list[AuditItem], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    ranges: list[tuple[float | None, float | None]] = []
    original = source.audit_items

    def spy(settings: Any, start: float | None, end: float | None, follow: bool = False) -> Any:
        ranges.append((start, end))
        return original(settings, start, end, follow)

    monkeypatch.setattr(source, "audit_items", spy)
    now = time.time()
    assert run("--from", "-2h", "--to", "-30s", "--json") == 0
    [(start, end)] = ranges
    assert start is not None and end is not None
    assert abs(start - (now - 7200)) < 5 and abs(end - (now - 30)) < 5
    assert len(capsys.readouterr().out.splitlines()) == 3  # a minute old: all in range
    assert run("--from", "-1h", "--to", "-2h") == 1
    assert "--from is after --to" in capsys.readouterr().err
    assert run("--from", "yesterday") == 1
    assert "--from: expected epoch seconds or milliseconds, or a time ago like -2h" in (
        capsys.readouterr().err
    )
