from __future__ import annotations

import json

from agents.commands.audit import record_line
from monitor.oncall.query import slimmed


def test_an_alert_record_in_the_trail_reads_as_the_alert() -> None:
    record = {
        "reason": "alert",
        "kind": "firing",
        "rule": "hallucination_high",
        "app": "shop",
        "audited_at": 1_800_000_000.0,
        "text": "hallucination 0.174 (95% interval 0.162-0.192, 353 judged claims)",
    }
    item = slimmed(record, json.dumps(record).encode(), 0, 7, 1_800_000_000.0)
    assert record_line(item) == (
        "2027-01-15 08:00:00 UTC shop alert firing hallucination_high: "
        "hallucination 0.174 (95% interval 0.162-0.192, 353 judged claims)"
    )
