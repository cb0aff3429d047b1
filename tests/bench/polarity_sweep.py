"""How the polarity gate of monitor/checks/contrast.py (POLARITY_ALIGNED) moves the cheap tier.

usage: .venv/bin/python -m tests.bench.polarity_sweep [--grid 0.5,0.6,...] [--seed 16] [--json]

POLARITY_ALIGNED is the share of a claim's content stems its aligned evidence sentence must hold
before that sentence's polarity (negation) and predicate (antonym) are compared with the claim's.
For each value of the grid (and "off": no polarity or antonym reading at all) every labelled
event of the dev sets is checked again by the real pipeline, and per set this reports: how many
cited claims get `negation_mismatch` / `antonym`, the human labels of the events where negation
fired (precision of the cue), and the event-level AUROC and balanced accuracy exactly as
`ragmon eval` computes them (weakest cited claim; undecided verdicts split at 0.5).

Sets: WiCE dev whole (never read to choose the value), and ExpertQA dev in two seeded random
halves (the value was first chosen on ~23 ExpertQA rows, so each half checks the other). Nothing
is fitted here: it reports the grid, the reader judges whether it is flat.
"""

from __future__ import annotations

import argparse
import json
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import monitor.checks.contrast as contrast
from agents.evaluation.cheap_eval import answer_support, load_labels
from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.output.calibration import auroc, balanced_accuracy, binary_prediction
from monitor.records.models import AnswerEvent, Rejection

DEV = "/work/shared/eval/dev"
BOOTSTRAP = 1000
OFF = 9.0  # a gate no share reaches: neither negation nor antonym is read


@dataclass
class Row:
    n: int = 0
    negation: int = 0  # cited claims with negation_mismatch
    antonym: int = 0
    negation_labels: Counter[str] = field(default_factory=Counter)  # their events' labels
    antonym_labels: Counter[str] = field(default_factory=Counter)
    auc_strict: float | None = None
    auc_partial_neg: float | None = None
    ba_strict: float | None = None
    ba_partial_neg: float | None = None
    units: list[tuple[str, str, float]] = field(default_factory=list, repr=False)


def load(events: str) -> list[AnswerEvent]:
    options = CheckOptions()
    out = []
    with open(events, "rb") as fh:
        for line in fh:
            if line.strip():
                event = decode_event(line.rstrip(b"\r\n"), options)
                if not isinstance(event, Rejection):
                    out.append(event)
    return out


def measure(events: Sequence[AnswerEvent], labels: dict[str, str]) -> Row:
    options = CheckOptions()
    row = Row()
    units: list[tuple[str, str, float]] = []
    for event in events:
        label = labels.get(event.event_id)
        if label is None:
            continue
        verdict = check_event(event, options)
        for c in verdict.claims:
            if not c.claim.cited:
                continue
            kinds = {r.split(":")[0] for r in c.support.reasons}
            if "negation_mismatch" in kinds:
                row.negation += 1
                row.negation_labels[label] += 1
            if "antonym" in kinds:
                row.antonym += 1
                row.antonym_labels[label] += 1
        weakest = answer_support(verdict)
        if weakest is not None:
            units.append((label, weakest[0], weakest[1]))
    row.n = len(units)
    row.units = units
    for strict in (True, False):
        kept = [u for u in units if not strict or u[0] != "partially_supported"]
        truth = [u[0] == "supported" for u in kept]
        auc = auroc([u[2] for u in kept], truth)
        ba = balanced_accuracy(truth, [binary_prediction(u[1], u[2]) for u in kept])
        if strict:
            row.auc_strict, row.ba_strict = auc, ba
        else:
            row.auc_partial_neg, row.ba_partial_neg = auc, ba
    return row


def bootstrap_delta(
    ours: Sequence[tuple[str, str, float]], off: Sequence[tuple[str, str, float]], seed: int = 7
) -> tuple[float, float, float]:
    """AUROC(ours) − AUROC(off), partial excluded, with a paired bootstrap 95% interval
    (the same events resampled for both)."""
    pairs = [(a, b) for a, b in zip(ours, off, strict=True) if a[0] != "partially_supported"]
    truth = [a[0] == "supported" for a, _ in pairs]
    x, y = [a[2] for a, _ in pairs], [b[2] for _, b in pairs]
    point = (auroc(x, truth) or 0.0) - (auroc(y, truth) or 0.0)
    rng = random.Random(seed)
    deltas = []
    for _ in range(BOOTSTRAP):
        idx = [rng.randrange(len(pairs)) for _ in pairs]
        t = [truth[i] for i in idx]
        a, b = auroc([x[i] for i in idx], t), auroc([y[i] for i in idx], t)
        if a is not None and b is not None:
            deltas.append(a - b)
    deltas.sort()
    return point, deltas[int(0.025 * len(deltas))], deltas[int(0.975 * len(deltas)) - 1]


def _f(x: float | None) -> str:
    return "  n/a" if x is None else f"{x:.3f}"


def _labels(c: Counter[str]) -> str:
    return f"{c['supported']}/{c['partially_supported']}/{c['not_supported']}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--grid", default="0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,1.0")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    wice = load(f"{DEV}/wice-dev.events.jsonl")
    wice_labels = load_labels(f"{DEV}/wice-dev.labels.jsonl")
    expertqa = load(f"{DEV}/expertqa-dev.events.jsonl")
    expertqa_labels = load_labels(f"{DEV}/expertqa-dev.labels.jsonl")
    ids = sorted(e.event_id for e in expertqa)
    random.Random(args.seed).shuffle(ids)
    half = set(ids[: len(ids) // 2])
    sets = {
        "wice": wice,
        "expertqa/A": [e for e in expertqa if e.event_id in half],
        "expertqa/B": [e for e in expertqa if e.event_id not in half],
        "expertqa": expertqa,
    }
    grid = [float(x) for x in args.grid.split(",")] + [OFF]
    shipped = contrast.POLARITY_ALIGNED
    result: dict[str, dict[str, Row]] = {name: {} for name in sets}
    try:
        for value in grid:
            contrast.POLARITY_ALIGNED = value
            for name, events in sets.items():
                labels = wice_labels if name == "wice" else expertqa_labels
                result[name]["off" if value == OFF else f"{value:.2f}"] = measure(events, labels)
    finally:
        contrast.POLARITY_ALIGNED = shipped
    if args.json:
        print(
            json.dumps(
                {
                    s: {
                        k: {a: b for a, b in vars(r).items() if a != "units"}
                        for k, r in rows.items()
                    }
                    for s, rows in result.items()
                }
            )
        )
        return
    print(
        f"{'set':<11}{'gate':>5}{'n':>5} | {'neg':>4} {'labels s/p/n':>13} | {'ant':>4} "
        f"{'labels s/p/n':>13} | {'AUC strict':>10}{'AUC p-neg':>10} | {'BA strict':>9}"
        f"{'BA p-neg':>9}"
    )
    for name, rows in result.items():
        for key, r in rows.items():
            print(
                f"{name:<11}{key:>5}{r.n:>5} | {r.negation:>4} {_labels(r.negation_labels):>13} | "
                f"{r.antonym:>4} {_labels(r.antonym_labels):>13} | {_f(r.auc_strict):>10}"
                f"{_f(r.auc_partial_neg):>10} | {_f(r.ba_strict):>9}{_f(r.ba_partial_neg):>9}"
            )
    print("ΔAUROC (partial excluded) of each gate against off, paired bootstrap 95% interval:")
    for name, rows in result.items():
        cells = []
        for key, r in rows.items():
            if key != "off":
                d, lo, hi = bootstrap_delta(r.units, rows["off"].units)
                cells.append(f"{key} {d:+.3f} [{lo:+.3f}, {hi:+.3f}]")
        print(f"  {name:<11}" + "; ".join(cells))
    print(
        "neg/ant: cited claims with negation_mismatch / antonym; labels: their events' human "
        "labels supported/partially/not; AUC and BA as `ragmon eval` (weakest cited claim, cut 0.5)"
    )


if __name__ == "__main__":
    main()
