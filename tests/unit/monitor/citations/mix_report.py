"""Standard-mix report for the citation core (a script, not a test).

usage: .venv/bin/python -m tests.unit.monitor.citations.mix_report [--n 10000] [--seed 7]
Prints mismatches against metadata.expect.citations and extract+resolve events/s.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from monitor.citations import extract_citations, resolve_citations
from monitor.config.options import CheckOptions
from monitor.inputs.decode import event_from_obj
from monitor.records.models import AnswerEvent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--generator", default="/work/shared/bench/make_events.py")
    a = ap.parse_args()
    cmd = [sys.executable, a.generator, "--n", str(a.n), "--seed", str(a.seed)]
    lines = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    objs = [json.loads(line) for line in lines]
    events = [event_from_obj(o) for o in objs]
    opts = CheckOptions()
    t0 = time.perf_counter()
    results = []
    for ev in events:
        assert isinstance(ev, AnswerEvent)
        found, _ = extract_citations(ev, opts)
        results.append(resolve_citations(ev, found, opts))
    dt = time.perf_counter() - t0
    bad = 0
    for obj, res in zip(objs, results, strict=True):
        got = [{"raw": r.citation.raw, "status": r.status, "error": r.error} for r in res]
        if got != obj["metadata"]["expect"]["citations"]:
            bad += 1
            print("MISMATCH", obj["event_id"], got, obj["metadata"]["expect"]["citations"])
    n_cit = sum(len(r) for r in results)
    print(f"events={a.n} citations={n_cit} mismatches={bad} {dt:.3f}s {a.n / dt:.0f} events/s")


if __name__ == "__main__":
    main()
