"""What the audit trail writes per answer: `python -m agents.bench.audit_bytes FILE`.

Checks every answer of FILE (JSON Lines events) as the worker does, with the settings of the
environment (RAGMON_AUDIT_PASSAGES, RAGMON_AUDIT_TEXT, ...), and prints how many answers were
audited, the bytes per record and per answer, and the bytes each field takes in a record
(JSON-encoded, the record's top level and the fields of its claims and citations)."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any


def audit_bytes(events: list[bytes]) -> dict[str, Any]:
    from prometheus_client import CollectorRegistry

    from agents.output.audit import AuditTrail
    from agents.output.outbox import Outbox
    from agents.stream.check_agent import CheckProcessor, RecordMeta
    from agents.telemetry.metrics import build_metrics
    from monitor.config.settings import load_settings

    settings = load_settings(audit_log="")  # log lines would mix with the figures on stdout
    metrics = build_metrics(CollectorRegistry())
    outbox = Outbox()
    trail = AuditTrail(
        settings, metrics, send=lambda key, value: outbox.add("audit", key.encode(), value)
    )
    processor = CheckProcessor(settings, metrics, outbox.add, audit=trail)
    for i, raw in enumerate(events):
        processor.handle(raw, RecordMeta("answers", i % 4, i, 0.0))
    processor.flush()
    fields: Counter[str] = Counter()
    records = total = 0
    for role, _key, value in outbox.take():
        if role != "audit":
            continue
        records += 1
        total += len(value)
        record = json.loads(value)
        for name, item in record.items():
            fields[name] += _size(item)
        for part in ("claims", "citations"):
            for entry in record.get(part) or []:
                for name, item in entry.items():
                    fields[f"{part}.{name}"] += _size(item)
    return {
        "answers": len(events),
        "audited": records,
        "bytes_per_record": total / records if records else 0.0,
        "bytes_per_answer": total / len(events) if events else 0.0,
        "field_bytes_per_record": {k: v / records for k, v in fields.most_common()},
    }


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.bench.audit_bytes", description=__doc__.split("\n\n")[1]
    )
    parser.add_argument("file", type=Path, help="JSON Lines answer events")
    args = parser.parse_args(argv)
    if not args.file.is_file():
        parser.error(f"no such file: {args.file}")
    out = audit_bytes([line for line in args.file.read_bytes().splitlines() if line.strip()])
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
