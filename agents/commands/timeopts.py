"""Time options shared by `ragmon audit` and `ragmon dlq`: `--since 5m` and `--since -5m` alike.

argparse reads any word that starts with '-' and is not a plain negative number as an option,
so `--since -5m` ("five minutes ago", as people write it) failed with "expected one argument"
while `--since=-5m` parsed. `accept_negative_durations` widens the parser's pattern for
"a negative number, not an option" to durations; the commands have no option that looks like
one (`-5m` can never be a flag), so nothing else changes meaning.
"""

from __future__ import annotations

import argparse
import re

from monitor.alerting.alerts import parse_duration
from monitor.config.errors import ConfigError, InputError
from monitor.oncall.links import parse_time

#: a negative number (argparse's own case) or a negative duration: -5, -1.5, -90s, -5m, -250ms
NEGATIVE = re.compile(r"^-(\d+\.?\d*|\.\d+)(ms|s|m|h|d|w)?$")


def accept_negative_durations(parser: argparse.ArgumentParser) -> None:
    # argparse keeps the pattern on the parser (CPython 3.11-3.13); without the attribute a
    # value like -5m is still accepted in the `--since=-5m` form
    if hasattr(parser, "_negative_number_matcher"):
        parser._negative_number_matcher = NEGATIVE


def duration(text: str, option: str) -> float:
    """Seconds back from now: `5m` and `-5m` both mean five minutes ago."""
    value = text.strip()
    try:
        return parse_duration(value[1:] if value.startswith("-") else value, option)
    except ConfigError as exc:
        raise InputError(str(exc)) from None


def point(text: str, option: str, now: float) -> float:
    """Epoch seconds from epoch seconds or milliseconds, or `-2h` for two hours before now."""
    value = text.strip()
    if value.startswith("-"):
        return now - duration(value, option)
    try:
        return parse_time(value)
    except ValueError:
        raise InputError(
            f"{option}: expected epoch seconds or milliseconds, or a time ago like -2h; "
            f"got {text!r}"
        ) from None
