"""The cheap support tier against a plain word-overlap baseline on human labels, side by side.

usage: .venv/bin/python -m tests.bench.support_baseline [--set NAME=EVENTS:LABELS ...] [--json]
(default: the ExpertQA and WiCE dev sets of /work/shared/eval/dev)

Both scorers see the same units: each labelled event is checked by the real pipeline
(extract, resolve, split, quotes), the event's claims are its cited claims (all claims when none
is cited), and the event's score is its weakest claim's, as in `ragmon eval`. Baseline, per
claim: the share of the claim's lowercase word types (`\\w+`, citation markers removed) found in
the union of its valid cited evidence texts; 0 without valid evidence. It needs a cut, so it is
reported at its best cut on the same set (optimistic), at the best cut of the other set
(honest) and by AUROC (no cut). The tier is reported by the shipping rule (its verdicts, with
undecided verdicts split at 0.5) and by AUROC; nothing is tuned here. As a check of the shipping
cut, the tier's score is also cut where it is best on the other rows (other set, other fold):
a fitted cut near 0.5 with a balanced accuracy near the shipping rule's says 0.5 is not tuned
to one set.

Stability: each set is split in two by a hash of the event id; a fold's baseline cut is the best
cut of the other fold. ΔAUROC (tier − baseline) gets a paired bootstrap 95% interval.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass

from agents.evaluation.cheap_eval import answer_support, load_labels
from monitor.check import check_event
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.output.calibration import auroc, balanced_accuracy, binary_prediction
from monitor.records.models import Rejection, Verdict
from monitor.text.words import remove_spans

DEV = "/work/shared/eval/dev"
DEFAULT_SETS = (
    f"expertqa={DEV}/expertqa-dev.events.jsonl:{DEV}/expertqa-dev.labels.jsonl",
    f"wice={DEV}/wice-dev.events.jsonl:{DEV}/wice-dev.labels.jsonl",
)
_WORD = re.compile(r"\w+")
BOOTSTRAP = 1000


@dataclass
class Unit:
    event_id: str
    label: str  # supported / partially_supported / not_supported
    verdict: str  # the tier's verdict of the weakest claim
    score: float  # the tier's score
    baseline: float  # plain word overlap of the weakest claim

    @property
    def fold(self) -> int:
        return hashlib.sha1(self.event_id.encode()).digest()[0] & 1


def word_overlap(claim: str, evidence: Sequence[str]) -> float:
    words = set(_WORD.findall(claim.lower()))
    if not words or not evidence:
        return 0.0
    found = set(_WORD.findall(" ".join(evidence).lower()))
    return len(words & found) / len(words)


def _baseline(verdict: Verdict) -> float | None:
    claims = [c for c in verdict.claims if c.claim.cited] or list(verdict.claims)
    if not claims:
        return None
    by_index = {r.citation.index: r for r in verdict.citations}
    scores = []
    for c in claims:
        results = [by_index[i] for i in c.claim.citation_indexes]
        marks = [
            (r.citation.start, r.citation.end) for r in results if r.citation.format != "segment"
        ]
        text = remove_spans(c.claim.text, c.claim.start, marks)
        evidence = [r.cited_text for r in results if r.valid and r.cited_text]
        scores.append(word_overlap(text, evidence))
    return min(scores)


def load_units(events: str, labels_path: str) -> list[Unit]:
    options = CheckOptions()
    labels = load_labels(labels_path)
    units = []
    with open(events, "rb") as fh:
        for line in fh:
            if not line.strip():
                continue
            event = decode_event(line.rstrip(b"\r\n"), options)
            if isinstance(event, Rejection) or event.event_id not in labels:
                continue
            verdict = check_event(event, options)
            ours, base = answer_support(verdict), _baseline(verdict)
            if ours is None or base is None:
                continue  # no claim: unscored by both, as `ragmon eval` reports it
            units.append(Unit(event.event_id, labels[event.event_id], ours[0], ours[1], base))
    return units


def _positive(units: Sequence[Unit], strict: bool) -> tuple[list[Unit], list[bool]]:
    kept = [u for u in units if not strict or u.label != "partially_supported"]
    return kept, [u.label == "supported" for u in kept]


def _auc(units: Sequence[Unit], strict: bool, baseline: bool) -> float | None:
    kept, truth = _positive(units, strict)
    return auroc([u.baseline if baseline else u.score for u in kept], truth)


def _ba_tier(units: Sequence[Unit], strict: bool) -> float | None:
    kept, truth = _positive(units, strict)
    return balanced_accuracy(truth, [binary_prediction(u.verdict, u.score) for u in kept])


def _ba_cut(units: Sequence[Unit], strict: bool, cut: float, tier: bool = False) -> float | None:
    kept, truth = _positive(units, strict)
    return balanced_accuracy(truth, [(u.score if tier else u.baseline) >= cut for u in kept])


def best_cut(units: Sequence[Unit], strict: bool, tier: bool = False) -> float:
    """The cut (of the baseline, or of the tier's score) with the best balanced accuracy
    (the lowest such cut on ties)."""
    cuts = sorted({u.score if tier else u.baseline for u in units})
    return max(cuts, key=lambda c: (_ba_cut(units, strict, c, tier) or 0.0, -c))


def bootstrap_delta(units: Sequence[Unit], seed: int = 7) -> tuple[float, float, float]:
    """AUROC(tier) − AUROC(baseline), partial excluded, with a paired bootstrap 95% interval."""
    kept, truth = _positive(units, True)
    ours = [u.score for u in kept]
    base = [u.baseline for u in kept]
    point = (auroc(ours, truth) or 0.0) - (auroc(base, truth) or 0.0)
    rng = random.Random(seed)
    deltas = []
    n = len(kept)
    for _ in range(BOOTSTRAP):
        idx = [rng.randrange(n) for _ in range(n)]
        t = [truth[i] for i in idx]
        a, b = auroc([ours[i] for i in idx], t), auroc([base[i] for i in idx], t)
        if a is not None and b is not None:
            deltas.append(a - b)
    deltas.sort()
    return point, deltas[int(0.025 * len(deltas))], deltas[int(0.975 * len(deltas)) - 1]


def figures(units: Sequence[Unit], other: Sequence[Unit]) -> dict[str, float | None]:
    """Tier and baseline on `units`; the baseline's honest cut comes from `other`."""
    out: dict[str, float | None] = {"n": float(len(units))}
    for strict, tag in ((True, "strict"), (False, "partial_neg")):
        own, foreign = best_cut(units, strict), best_cut(other, strict)
        out[f"tier_ba_{tag}"] = _ba_tier(units, strict)
        out[f"tier_auc_{tag}"] = _auc(units, strict, baseline=False)
        out[f"base_auc_{tag}"] = _auc(units, strict, baseline=True)
        out[f"base_ba_{tag}_own_cut"] = _ba_cut(units, strict, own)
        out[f"base_ba_{tag}_other_cut"] = _ba_cut(units, strict, foreign)
        out[f"base_cut_{tag}_own"] = own
        out[f"base_cut_{tag}_other"] = foreign
        # is the shipping cut 0.5 where the tier's own best cut lies? (fitted on the other rows)
        tier_cut = best_cut(other, strict, tier=True)
        out[f"tier_cut_{tag}_other"] = tier_cut
        out[f"tier_ba_{tag}_other_cut"] = _ba_cut(units, strict, tier_cut, tier=True)
    return out


def _f(x: float | None) -> str:
    return "  n/a" if x is None else f"{x:.3f}"


def report(sets: dict[str, list[Unit]]) -> dict[str, object]:
    names = list(sets)
    out: dict[str, object] = {}
    for i, name in enumerate(names):
        units = sets[name]
        other = sets[names[(i + 1) % len(names)]] if len(names) > 1 else units
        whole = figures(units, other)
        folds = []
        for k in (0, 1):
            mine = [u for u in units if u.fold == k]
            rest = [u for u in units if u.fold != k]
            folds.append(figures(mine, rest))
        delta = bootstrap_delta(units)
        out[name] = {"all": whole, "folds": folds, "delta_auc_strict": delta}
    return out


def print_table(result: dict[str, object]) -> None:
    head = (
        f"{'set':<16}{'n':>5} | {'tier BA':>8}{'base BA*':>9}{'base BA→':>9} | "
        f"{'tier AUC':>9}{'base AUC':>9} | {'tier BA':>8}{'base BA*':>9}{'base BA→':>9} | "
        f"{'tier AUC':>9}{'base AUC':>9}"
    )
    print(f"{'':<22}{'partial excluded':^55}|{'partial counted as not supported':^46}")
    print(head)
    for name, r in result.items():
        assert isinstance(r, dict)
        rows = [(name, r["all"])] + [(f"{name}/fold{k}", f) for k, f in enumerate(r["folds"])]
        for label, f in rows:
            print(
                f"{label:<16}{int(f['n']):>5} | {_f(f['tier_ba_strict']):>8}"
                f"{_f(f['base_ba_strict_own_cut']):>9}{_f(f['base_ba_strict_other_cut']):>9} | "
                f"{_f(f['tier_auc_strict']):>9}{_f(f['base_auc_strict']):>9} | "
                f"{_f(f['tier_ba_partial_neg']):>8}{_f(f['base_ba_partial_neg_own_cut']):>9}"
                f"{_f(f['base_ba_partial_neg_other_cut']):>9} | "
                f"{_f(f['tier_auc_partial_neg']):>9}{_f(f['base_auc_partial_neg']):>9}"
            )
        cuts = ", ".join(
            f"{lab} {f['tier_cut_strict_other']:.2f}→{_f(f['tier_ba_strict_other_cut'])}"
            for lab, f in rows
        )
        print(
            f"{'':<16}  tier score cut fitted on the other rows → BA here (partial excluded): {cuts}"
        )
        d, lo, hi = r["delta_auc_strict"]
        print(
            f"{'':<16}  ΔAUROC tier−baseline (partial excluded) {d:+.3f}, 95% CI [{lo:+.3f}, {hi:+.3f}]"
        )
    print(
        "tier BA: shipping verdict rule; base BA*: baseline at its best cut on the same rows "
        "(optimistic); base BA→: at the best cut of the other set (whole rows) or other fold"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", action="append", metavar="NAME=EVENTS:LABELS")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sets = {}
    for spec in args.set or DEFAULT_SETS:
        name, _, paths = spec.partition("=")
        events, _, labels = paths.partition(":")
        sets[name] = load_units(events, labels)
    result = report(sets)
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        print_table(result)


if __name__ == "__main__":
    main()
