"""`ragmon audit`: query and tail the audit trail by app, rule, verdict, reason, event id and time.

The topic is read from the first record at or after the range's start on every partition
(Kafka's offsets-for-times), never scanned from its beginning. With `--app`, the answers come
ranked as on the evidence page (the same report, monitor.oncall.report): the answer that moved
the app's rate most first. Without it, or with `--follow`, records come in time order as they
are found. Text for people, `--json` for one JSON object per line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
import time
from typing import Any

from monitor.alerting.alerts import AlertRule, load_rules, parse_duration
from monitor.config.errors import ConfigError, InputError
from monitor.config.settings import Settings, load_settings
from monitor.oncall.links import parse_time
from monitor.oncall.page import when
from monitor.oncall.query import CLAIM_VERDICTS, AuditFilter, AuditItem
from monitor.oncall.report import EvidenceQuery, build_report


def register(sub: Any) -> None:
    p = sub.add_parser(
        "audit",
        help="query and tail the audit trail (seeks by time, no scan)",
        description="Audit records of failing and sampled answers (and the judge's records), "
        "read from the audit topic by timestamp. With --app the answers are ranked as on the "
        "evidence page: the answer that moved the app's rate most first.",
    )
    p.add_argument("--app", help="one app (ranks its answers like the evidence page)")
    p.add_argument("--rule", help="rank by this alert rule's figure (default: hallucination)")
    p.add_argument("--since", default="15m", help="how far back (default 15m; 90s, 2h, ...)")
    p.add_argument("--from", dest="start", metavar="TIME", help="range start, epoch s or ms")
    p.add_argument("--to", dest="end", metavar="TIME", help="range end, epoch s or ms")
    p.add_argument(
        "--verdict",
        action="append",
        choices=CLAIM_VERDICTS,
        help="only answers with a claim of this verdict (repeatable)",
    )
    p.add_argument(
        "--reason",
        action="append",
        help="audit reason (failure, sample, judge), citation error code or claim reason "
        "(e.g. number_missing); repeatable",
    )
    p.add_argument("--event-id", help="one answer")
    p.add_argument(
        "--limit",
        type=int,
        help="answers listed with --app (default RAGMON_EVIDENCE_ANSWERS, as on the page)",
    )
    p.add_argument("--json", action="store_true", help="JSON lines for scripts")
    p.add_argument("-f", "--follow", action="store_true", help="keep printing new records")
    p.add_argument("-b", "--bootstrap-servers", metavar="HOST:PORT[,..]", help="Kafka brokers")
    p.set_defaults(func=run)


def time_range(args: argparse.Namespace, now: float) -> tuple[float, float | None]:
    try:
        end = parse_time(args.end) if args.end else None
        start = (
            parse_time(args.start)
            if args.start
            else (end or now) - parse_duration(args.since, "--since")
        )
    except (ValueError, ConfigError) as exc:
        raise InputError(str(exc)) from None
    if end is not None and start > end:
        raise InputError("--from is after --to")
    return start, end


def find_rule(settings: Settings, name: str | None) -> AlertRule | None:
    if not name:
        return None
    rules = {r.name: r for r in load_rules(settings.rules_file)}
    if name not in rules:
        raise InputError(f"unknown rule {name!r}; rules: {', '.join(sorted(rules))}")
    return rules[name]


def run(args: argparse.Namespace) -> int:
    settings = load_settings(
        getattr(args, "config", None), bootstrap_servers=args.bootstrap_servers
    )
    if args.limit is None:
        args.limit = settings.evidence_answers
    if args.limit < 1:
        raise InputError("--limit must be positive")
    rule = find_rule(settings, args.rule)
    start, end = time_range(args, time.time())
    selected = AuditFilter(
        app=args.app,
        start=start,
        end=end,
        event_id=args.event_id,
        verdicts=tuple(args.verdict or ()),
        reasons=tuple(args.reason or ()),
        # in the trail (no --app), a rule keeps the answers on its breaching side
        breaching=None if rule is None else (rule.figure, rule.op, rule.threshold),
    )
    with contextlib.suppress(KeyboardInterrupt):
        if args.app and not args.follow:
            return asyncio.run(ranked(settings, args, selected, rule, start, end))
        return asyncio.run(trail(settings, args, selected, start, end))
    return 0


async def ranked(
    settings: Settings,
    args: argparse.Namespace,
    selected: AuditFilter,
    rule: AlertRule | None,
    start: float,
    end: float | None,
) -> int:
    from agents.evidence.source import read_window

    stop = end if end is not None else time.time()
    # The window's other answers count towards the rate: only the app and the range narrow
    # what is read (as for the page, at most RAGMON_EVIDENCE_MAX_RECORDS, the newest); event id
    # and reason narrow what is listed.
    window = await read_window(settings, start, stop, settings.evidence_max_records, args.app)
    query = EvidenceQuery(args.app, start, stop, rule, selected.verdicts, args.limit)
    report = build_report(
        window.items,
        query,
        settings.audit_sample_rate,
        records_read=window.read,
        truncated=window.truncated,
    )
    if window.truncated:
        print(
            f"# the range held {window.read} records of {args.app}; ranked: the newest "
            f"{settings.evidence_max_records} (RAGMON_EVIDENCE_MAX_RECORDS)",
            file=sys.stderr,
        )
    listed = [
        a
        for a in report["answers"]
        if (selected.event_id is None or a["event_id"] == selected.event_id)
        and (not selected.reasons or _answer_has_reason(a, selected.reasons))
    ]
    if args.json:
        for answer in listed:
            print(json.dumps(answer, ensure_ascii=False))
    else:
        est = report["estimate"] or {}
        rate = "" if est.get("rate") is None else f", rate from the audit trail {est['rate']:.2%}"
        print(
            f"# {args.app}: {len(listed)} answers ranked by {report['figure']} "
            f"({report['op']}), {when(start)} to {when(stop)}, "
            f"{report['answers_in_range']} audited answers{rate}",
            file=sys.stderr,
        )
        for answer in listed:
            print(text_line(answer))
    return 0


def _answer_has_reason(answer: dict[str, Any], reasons: tuple[str, ...]) -> bool:
    from monitor.oncall.query import has_reason

    record = {**answer, "audit_reason": answer.get("audit_reason")}
    return any(has_reason(record, r) for r in reasons)


async def trail(
    settings: Settings,
    args: argparse.Namespace,
    selected: AuditFilter,
    start: float,
    end: float | None,
) -> int:
    from agents.evidence.source import audit_items

    found: list[AuditItem] = []
    async for item in audit_items(settings, start, end, follow=args.follow):
        if not selected.matches(item):
            continue
        if args.follow:
            emit(item, args.json)
        else:
            found.append(item)
    for item in sorted(found, key=lambda i: (i.at or 0.0, i.partition, i.offset)):
        emit(item, args.json)
    return 0


def emit(item: AuditItem, as_json: bool) -> None:
    if as_json:
        out = {**item.record, "_audit": {"partition": item.partition, "offset": item.offset}}
        print(json.dumps(out, ensure_ascii=False), flush=True)
    else:
        print(record_line(item), flush=True)


def _claims_summary(claims: list[dict[str, Any]]) -> str:
    counts: dict[str, int] = {}
    for c in claims:
        counts[str(c.get("verdict"))] = counts.get(str(c.get("verdict")), 0) + 1
    return " ".join(f"{k}={v}" for k, v in sorted(counts.items()))


def _first_failure(record: dict[str, Any]) -> str:
    for c in record.get("citations") or []:
        if c.get("error"):
            return f"citation {c.get('raw', '')} {c['error']}"
    for c in record.get("claims") or []:
        if c.get("verdict") == "not_supported":
            reasons = ", ".join(str(r) for r in c.get("reasons") or [])
            return f'"{str(c.get("text", ""))[:80]}" ({reasons})'
    return ""


def text_line(answer: dict[str, Any]) -> str:
    move = answer.get("move")
    moved = "" if move is None else f"{move * 100:+.2f}pp "
    return (
        f"#{answer['rank']} {moved}{answer['event_id']} {when(answer.get('at'))} "
        f"[{_claims_summary(answer.get('claims') or [])}] {_first_failure(answer)}"
    ).rstrip()


def record_line(item: AuditItem) -> str:
    r = item.record
    if r.get("reason") == "alert":  # a rule's transition (monitor.oncall.alert_record)
        full = item.full()
        return f"{when(item.at)} {r.get('app')} alert {full.get('kind')} {r.get('rule')}: {full.get('text')}"
    kind = "judge" if item.is_judge else str(r.get("audit_reason"))
    return (
        f"{when(item.at)} {r.get('app')} {r.get('event_id')} {kind} "
        f"[{_claims_summary(r.get('claims') or [])}] {_first_failure(r)}"
    ).rstrip()
