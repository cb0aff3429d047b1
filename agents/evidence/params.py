"""The evidence page's query string, checked: what a request may ask for, and why not (400), or
that it names something that does not exist (404, with the names that do).

Nothing is silently changed: a time past now or before 2001 (a seconds/milliseconds mix-up, or
a typo), a range longer than RAGMON_EVIDENCE_MAX_HOURS, a limit out of range are refused with
what was understood, so a mistyped link never looks like an all-clear.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from monitor.alerting.alerts import AlertRule, parse_duration
from monitor.config.errors import ConfigError, RagmonError
from monitor.config.settings import Settings
from monitor.oncall.links import parse_time
from monitor.oncall.page import when
from monitor.oncall.query import CLAIM_VERDICTS
from monitor.oncall.report import EvidenceQuery

DEFAULT_SINCE = "15m"
#: a link's `to` may run ahead of this worker's clock by this much (clock skew between hosts)
FUTURE_SKEW_SECONDS = 300.0
#: 2001-09-09: no audit record is older; a smaller number is seconds given as milliseconds' kin
EARLIEST = 1e9
MAX_LIMIT = 500


class BadQuery(RagmonError):
    """A request the page cannot answer (400)."""


class NotFound(RagmonError):
    """An app or rule the page does not know (404); `known` lists those it does."""

    def __init__(self, message: str, *, what: str, known: Iterable[str]) -> None:
        super().__init__(message)
        self.what = what
        self.known = sorted(known)


def read_time(params: Any, name: str, now: float) -> float | None:
    raw = str(params.get(name) or "").strip()
    if not raw:
        return None
    try:
        at = parse_time(raw)
    except ValueError:
        raise BadQuery(
            f"{name}={raw!r} is not a time: give epoch seconds or milliseconds"
        ) from None
    unit = "milliseconds" if float(raw) > 1e11 else "seconds"
    if at > now + FUTURE_SKEW_SECONDS:
        raise BadQuery(f"{name}={raw} read as epoch {unit} is {when(at)}: in the future")
    if at < EARLIEST:
        raise BadQuery(
            f"{name}={raw} read as epoch {unit} is {when(at)}: give epoch seconds (10 digits) "
            "or milliseconds (13 digits)"
        )
    return at


def read_limit(params: Any, default: int) -> int:
    raw = str(params.get("limit") or "").strip()
    if not raw:
        return default
    try:
        limit = int(raw)
    except ValueError:
        raise BadQuery(f"limit={raw!r} is not a number") from None
    if not 1 <= limit <= MAX_LIMIT:
        raise BadQuery(f"limit={limit}: give 1 to {MAX_LIMIT}")
    return limit


def parse_query(
    params: Any, settings: Settings, rules: dict[str, AlertRule], now: float
) -> EvidenceQuery:
    app = str(params.get("app") or "").strip()
    if not app:
        raise BadQuery("give an app: /evidence?app=APP&rule=RULE&since=15m (or from=&to=)")
    rule = None
    name = str(params.get("rule") or "").strip()
    if name:
        if name not in rules:
            raise NotFound(f"no rule {name!r}", what="rule", known=rules)
        rule = rules[name]
    longest = settings.evidence_max_hours * 3600
    end = read_time(params, "to", now)
    end = now if end is None else end
    start = read_time(params, "from", now)
    if start is None:
        given = str(params.get("since") or "").strip()
        try:
            since = parse_duration(given, "since") if given else None
        except ConfigError as exc:
            raise BadQuery(str(exc)) from None
        if since is not None and since > longest:
            raise BadQuery(
                f"since={given} is longer than RAGMON_EVIDENCE_MAX_HOURS "
                f"({settings.evidence_max_hours:g} h): narrow it or give from= and to="
            )
        if since is None:
            # a rule's link looks back over its window and `for`, at most the longest range
            since = min(longest, rule.window_seconds + rule.for_seconds) if rule else 900.0
        start = end - since
    if start > end:
        raise BadQuery(f"from ({when(start)}) is after to ({when(end)})")
    if end - start > longest:
        raise BadQuery(
            f"the range {when(start)} to {when(end)} is longer than RAGMON_EVIDENCE_MAX_HOURS "
            f"({settings.evidence_max_hours:g} h)"
        )
    verdicts = tuple(v for v in str(params.get("verdict") or "").split(",") if v)
    if set(verdicts) - set(CLAIM_VERDICTS):
        raise BadQuery(f"verdict must be among {', '.join(CLAIM_VERDICTS)}")
    limit = read_limit(params, settings.evidence_answers)
    return EvidenceQuery(app, start, end, rule, verdicts, limit)


def unknown_app(app: str, seen: Iterable[str], allowed: Iterable[str], start: float,
                end: float) -> NotFound | None:  # fmt: skip
    """A 404 when `app` has no audit record in the range and is not in RAGMON_APPS."""
    seen, allowed = set(seen), set(allowed)
    if app in seen or app in allowed:
        return None
    return NotFound(
        f"no app {app!r}: no audit record of it from {when(start)} to {when(end)}"
        + (" and it is not in RAGMON_APPS" if allowed else ""),
        what="app",
        known=seen | allowed,
    )
