"""Figures of issue 24 that `ragmon eval` does not print (docs/uncited.md).

usage:
  .venv/bin/python -m tests.bench.uncited_figures refusals EVENTS LABELS
      refusal sentences by an independent, deliberately simple phrase test (not ragmon's
      detector): ragmon's claims about the passages / information / question that say it is
      missing or cannot be answered; how many end not_supported (counted as hallucinations)
  .venv/bin/python -m tests.bench.uncited_figures bootstrap LABELS OLD_VERDICTS NEW_VERDICTS
      paired bootstrap (2,000 resamples of events, seed 0) of the difference in AUROC and BA
      (partial excluded) between two `ragmon check` outputs of the same claim-labelled events
  .venv/bin/python -m tests.bench.uncited_figures cputime EVENTS
      CPU seconds of check_bytes over EVENTS in this process (median of 3 passes after one
      warm-up): run it from two trees alternately for a paired before/after
"""

from __future__ import annotations

import json
import random
import re
import statistics
import sys
import time

from monitor.check import check_bytes
from monitor.config.settings import load_settings
from monitor.output.calibration import auroc, balanced_accuracy, binary_prediction

PHRASE = re.compile(
    r"unable to (?:answer|provide|determine)|(?:cannot|can't|could not) (?:answer|provide|"
    r"determine|be determined)|(?:do|does|did) not (?:provide|mention|contain|include|specify|"
    r"state|say|give)|doesn't (?:provide|mention|say|specify)|no (?:specific |further |"
    r"additional )?(?:information|mention|details)|not (?:mentioned|specified|provided|stated|"
    r"explicitly stated) in|(?:not enough|insufficient) (?:information|context)"
    r"|\bi (?:am unable|cannot|can't|don't have)",
    re.I,
)
TOPIC = re.compile(
    r"passage|context|document|article|information|data|question|answer|provided|given", re.I
)


def refusals(events: str, labels: str) -> None:
    from agents.evaluation.cheap_eval import load_checked
    from agents.evaluation.spans import claim_span_labels, load_span_labels

    spans = load_span_labels(labels) or {}
    checked, _ = load_checked(events, load_settings(None).check_options())
    found = counted = abstained = marked = 0
    for event, verdict in checked:
        label = spans.get(event.event_id)
        humans = claim_span_labels([c.claim for c in verdict.claims], label.spans if label else ())
        for c, human in zip(verdict.claims, humans, strict=True):
            if PHRASE.search(c.claim.text) and TOPIC.search(c.claim.text):
                found += 1
                counted += c.support.verdict == "not_supported"
                abstained += c.support.verdict == "abstain"
                marked += human == "not_supported"
    share = counted / found if found else 0.0
    print(
        f"refusal sentences {found}: counted as hallucinations {counted} ({share:.1%}), "
        f"abstain {abstained}, inside a span people marked {marked}"
    )


def _weakest(path: str) -> dict[str, tuple[str, float]]:
    out = {}
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    for v in rows:
        claims = [c for c in v["claims"] if c["citation_indexes"]] or v["claims"]
        if claims:
            w = min(claims, key=lambda c: c["score"])
            out[v["event_id"]] = (w["verdict"], w["score"])
    return out


def bootstrap(labels_path: str, old_path: str, new_path: str) -> None:
    with open(labels_path, encoding="utf-8") as fh:
        labels = {row["event_id"]: row["label"] for row in map(json.loads, fh)}
    old, new = _weakest(old_path), _weakest(new_path)
    ids = [i for i in labels if i in old and i in new and labels[i] != "partially_supported"]

    def figures(
        sample: list[str], src: dict[str, tuple[str, float]]
    ) -> tuple[float | None, float | None]:
        pos = [labels[i] == "supported" for i in sample]
        return (
            auroc([src[i][1] for i in sample], pos),
            balanced_accuracy(pos, [binary_prediction(*src[i]) for i in sample]),
        )

    o, n = figures(ids, old), figures(ids, new)
    rng = random.Random(0)
    da: list[float] = []
    db: list[float] = []
    for _ in range(2000):
        s = [rng.choice(ids) for _ in ids]
        a, b = figures(s, old), figures(s, new)
        if None not in a and None not in b:
            da.append(b[0] - a[0])  # type: ignore[operator]
            db.append(b[1] - a[1])  # type: ignore[operator]
    da.sort()
    db.sort()

    def q(x: list[float], p: float) -> float:
        return x[int(p * (len(x) - 1))]

    print(
        f"n={len(ids)}: AUROC {o[0]:.3f} -> {n[0]:.3f} (95% [{q(da, 0.025):+.3f}, {q(da, 0.975):+.3f}]); "
        f"BA {o[1]:.3f} -> {n[1]:.3f} (95% [{q(db, 0.025):+.3f}, {q(db, 0.975):+.3f}])"
    )


def cputime(events: str) -> None:
    options = load_settings(None).check_options()
    with open(events, "rb") as fh:
        lines = [line for line in fh if line.strip()]
    for line in lines:
        check_bytes(line, options)
    passes = []
    for _ in range(3):
        started = time.process_time()
        for line in lines:
            check_bytes(line, options)
        passes.append(time.process_time() - started)
    print(f"{statistics.median(passes):.3f}")


if __name__ == "__main__":
    command, *args = sys.argv[1:] or ["--help"]
    commands = {"refusals": refusals, "bootstrap": bootstrap, "cputime": cputime}
    if command not in commands:
        print(__doc__)
        sys.exit(0 if command == "--help" else 2)
    commands[command](*args)
