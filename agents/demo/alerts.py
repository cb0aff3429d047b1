"""The demo's alerts as the worker stated them: its `alert firing` / `alert resolved` log lines
(RAGMON_LOG_FORMAT=json), read as they are written, so the screen shows each firing alert with
its figure and the link to the answers behind it, not only its name."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monitor.oncall.page import when


@dataclass
class AlertLog:
    path: Path
    #: rule[app] → the log line of its latest firing, while it fires
    firing: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: rule[app] → the log line of its first firing in this run (for the summary)
    fired: dict[str, dict[str, Any]] = field(default_factory=dict)
    _offset: int = 0
    _partial: bytes = b""

    def read(self) -> None:
        """Take in the lines written since the last read."""
        try:
            with open(self.path, "rb") as log:
                log.seek(self._offset)
                chunk = log.read()
        except OSError:
            return
        self._offset += len(chunk)
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        for line in lines:
            self.take(line)

    def take(self, line: bytes | str) -> None:
        try:
            entry = json.loads(line)
        except ValueError:
            return
        if not isinstance(entry, dict) or entry.get("event") not in (
            "alert firing",
            "alert resolved",
        ):
            return
        key = f"{entry.get('rule')}[{entry.get('app')}]"
        if entry["event"] == "alert firing":
            self.firing[key] = entry
            self.fired.setdefault(key, entry)
        else:
            self.firing.pop(key, None)


def alert_lines(key: str, entry: dict[str, Any] | None) -> list[str]:
    """`  rule[app]: fired HH:MM:SS UTC at <figure as the alert said it> (threshold 0.1)` and the
    link to the answers behind it. The figure is the one the alert fired on, not the window's
    figure now (the table above it): the two differ while an incident grows."""
    if entry is None:
        return [f"  {key}: (its log line not read yet)"]
    since = when(entry.get("since")).split(" ")[1] if entry.get("since") else "?"
    return [
        f"  {key}: fired {since} UTC at {entry.get('figures')} (threshold {entry.get('threshold')})",
        f"    evidence: {entry.get('evidence')}",
    ]
