"""A digest of everything the check path writes for a file of answers: to compare two trees.

`python -m agents.bench.digest FILE...` runs each file's answers through the worker's objects
(`CheckProcessor` with its audit trail, a judge sampling hook, the aggregate agent's
`WindowAggregator`) twice, with the checks in this process and as with a check process (the
batch pickled there and back, `CheckWork.run_batch`, `CheckProcessor.apply`), on a fixed clock,
and prints per file and path the SHA-256 of the output records (role, key, value, in order), of
the window sums and of the Prometheus counters. Audit and judge-request records are compared as
JSON values; only wall-clock fields are left out of them: `audited_at` (audit) and `duration`
(not in any record). Two trees giving the same digests wrote the same records.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import sys
from pathlib import Path
from typing import Any

CLOCK = 1_800_000_000.0  # a fixed "now": counted_at, buckets and judge created_at
JUDGE_RATE = 0.1


def _normalised(role: str, value: bytes) -> bytes:
    """JSON records compared by value (one encoder's spacing is not another's)."""
    if role not in ("audit", "judge-requests"):
        return value
    record = json.loads(value)
    record.pop("audited_at", None)
    return json.dumps(record, sort_keys=True, ensure_ascii=False).encode()


def _never() -> None:
    return None  # the judge takes every request


def digest(events: list[bytes], pooled: bool, batch: int = 256) -> dict[str, Any]:
    from dataclasses import replace

    from prometheus_client import CollectorRegistry

    from agents.output.audit import AuditTrail
    from agents.output.outbox import Outbox
    from agents.stream.aggregate import WindowAggregator
    from agents.stream.check_agent import CheckProcessor, RecordMeta
    from agents.stream.judge_wiring import judge_hooks
    from agents.stream.window_store import CountedRecords
    from agents.telemetry.metrics import AppLabels, build_metrics
    from monitor.config.settings import load_settings
    from monitor.sampling.policy import Sampler, SamplingPolicy

    settings = load_settings(
        judge_enabled=True, judge_sample_rate=JUDGE_RATE, judge_oversample_rate=JUDGE_RATE
    )
    metrics = build_metrics(CollectorRegistry())
    outbox = Outbox()
    audit = AuditTrail(
        settings, metrics, send=lambda key, value: outbox.add("audit", key.encode(), value)
    )
    labels = AppLabels(settings.app_allowlist, settings.max_apps)
    processor = CheckProcessor(
        settings, metrics, outbox.add, app_labels=labels, audit=audit, clock=lambda: CLOCK
    )
    # the worker's own judge hook (agents/stream/judge_wiring.py), on a sampler without budgets
    # and a judge that never sheds: every answer its sample takes gets a request
    sampler = Sampler(
        SamplingPolicy(
            base_rate=JUDGE_RATE,
            oversample_rate=JUDGE_RATE,
            calls_per_minute=0,
            tokens_per_hour=0,
            batch_size=settings.judge_batch_size,
        )
    )
    sample, admit = judge_hooks(settings, metrics, processor, labels, sampler, _never)
    processor.hooks.append(sample)
    processor.request_hook = admit
    if pooled:
        # a check process's clock is `CheckWork.check`'s default (time.time): fixed here too
        from agents.checking.work import CheckWork, RequestShape

        defaults = CheckWork.check.__defaults__ or ()
        CheckWork.check.__defaults__ = ((lambda: CLOCK), *defaults[1:])
        # as with the judge installed: its requests are built in the check process
        shape = RequestShape(settings.judge_max_evidence_chars, settings.judge_batch_size)
        processor.work = replace(
            processor.work,
            hook_rate=0.0,
            judge_rates=(JUDGE_RATE, JUDGE_RATE),
            judge_requests=shape,
        )
    store = CountedRecords(
        {}, settings.window_step_seconds, settings.dedup_horizon_seconds, settings.dedup_max_ids
    )
    aggregator = WindowAggregator(settings, metrics, store, partitions=4, clock=lambda: CLOCK)
    records = hashlib.sha256()
    counts: dict[str, int] = {}
    offset = 0
    for start in range(0, len(events), batch):
        metas = [
            (raw, RecordMeta("answers", i % 4, i, CLOCK - 1.0))
            for i, raw in enumerate(events[start : start + batch], start)
        ]
        if pooled:
            sent = pickle.loads(pickle.dumps([(raw, meta.where()) for raw, meta in metas]))
            results = pickle.loads(pickle.dumps(processor.work.run_batch(sent)))
            for (raw, meta), result in zip(metas, results, strict=True):
                processor.apply(result, raw, meta)
        else:
            for raw, meta in metas:
                processor.handle(raw, meta)
        processor.flush()
        for role, key, value in outbox.take():
            counts[role] = counts.get(role, 0) + 1
            records.update(role.encode() + b"\0" + (key or b"") + b"\0")
            records.update(_normalised(role, value) + b"\n")
            if role == "scores":
                offset += 1
                aggregator.handle(json.loads(value), key, f"0:{offset}")
    counters = sorted(
        (sample.name, sorted(sample.labels.items()), sample.value)
        for family in metrics.registry.collect()
        if family.type == "counter"
        for sample in family.samples
        if sample.name.endswith("_total")
    )
    sums = json.dumps(sorted((app, b, v) for (app, b), v in store.sums.items())).encode()
    return {
        "records": records.hexdigest(),
        "windows": hashlib.sha256(sums).hexdigest(),
        "counters": hashlib.sha256(json.dumps(counters).encode()).hexdigest(),
        "counts": dict(sorted(counts.items())),
        "checked": processor.processed.get("checked", 0),
    }


def main(argv: list[str]) -> int:
    from agents.checking import fastcore

    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip() if __doc__ else "usage: python -m agents.bench.digest FILE...")
        return 0 if argv else 2
    fastcore.activate()
    for path in argv:
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            print(f"digest: cannot read {path}: {exc.strerror}", file=sys.stderr)
            return 1
        events = [ln for ln in raw.splitlines() if ln.strip()]
        for pooled in (False, True):
            found = digest(events, pooled)
            where = "check process" if pooled else "in process"
            print(json.dumps({"file": Path(path).name, "path": where, **found}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
