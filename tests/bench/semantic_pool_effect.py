"""What making the live opinion use the eval's window pool changed (a measurement, not a test).

usage: .venv/bin/python -m tests.bench.semantic_pool_effect [--per-set 200] [--sets wice ...]

For the first `per-set` answers of each dev set (../shared/eval/dev: ExpertQA, WiCE, RAGTruth),
the judge items the worker would send (monitor.judge.request.judge_items) are scored by the
live opinion twice: with the pool it used before (windows of the whole request text, source
lines removed, cut at 128: a window could span two cited texts) and with the pool it uses
now (agents.semantic.score.window_pool over the request's texts, as `ragmon eval` does).
Prints, per set: items, items whose pool differs, mean and largest |Δ cosine|, and how many
cosine-rule and combined-rule opinions flip. Needs the `[semantic]` extra.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agents.semantic import rules
from agents.semantic.model import load_embedder
from agents.semantic.opinion import _SOURCE_LINE, opinion_of, request_texts
from agents.semantic.score import MAX_WINDOWS, best_match, window_pool
from monitor.check import check_event
from monitor.config.settings import load_settings
from monitor.inputs.decode import decode_event
from monitor.judge.request import Item, judge_items
from monitor.records.models import AnswerEvent
from monitor.semantic.fit import linear_score
from monitor.semantic.windows import windows

DEV = Path(__file__).resolve().parents[3] / "shared" / "eval" / "dev"
SETS = ("expertqa", "wice", "ragtruth")


def before_pool(item: Item) -> list[str]:
    return windows(_SOURCE_LINE.sub("", item.evidence))[:MAX_WINDOWS]


def opinions(cosine: float, cheap: float | None) -> tuple[bool, bool | None]:
    alone = linear_score(rules.COSINE, (cosine,)) >= 0
    combined = None if cheap is None else linear_score(rules.COMBINED, (cheap, cosine)) >= 0
    return alone, combined


def measure(name: str, per_set: int, embedder: Any) -> dict[str, Any]:
    settings = load_settings()
    options = settings.check_options()
    items: list[Item] = []
    with (DEV / f"{name}-dev.events.jsonl").open(encoding="utf-8") as lines:
        for n, line in enumerate(lines):
            if n >= per_set:
                break
            event = decode_event(line.encode(), options)
            if not isinstance(event, AnswerEvent):
                continue
            verdict = check_event(event, options)
            items += judge_items(verdict, settings.judge_max_evidence_chars, event)
    differ = flips = combined_flips = 0
    deltas: list[float] = []
    for item in items:
        old = before_pool(item)
        new, _ = window_pool(request_texts(item.evidence))
        if old == new:
            continue
        differ += 1
        entry = opinion_of(embedder, item)
        old_cos = round(best_match(embedder, item.claim, old)[1], 4) if old else None
        new_cos = entry["cosine"]
        if old_cos is None or new_cos is None:
            flips += (old_cos is None) != (new_cos is None)
            continue
        deltas.append(abs(new_cos - old_cos))
        a_old, c_old = opinions(old_cos, item.cheap_score)
        a_new, c_new = opinions(new_cos, item.cheap_score)
        flips += a_old != a_new
        combined_flips += c_old != c_new
    return {
        "set": name,
        "items": len(items),
        "pool_differs": differ,
        "mean_abs_delta_cosine": round(sum(deltas) / len(deltas), 4) if deltas else 0.0,
        "max_abs_delta_cosine": round(max(deltas), 4) if deltas else 0.0,
        "cosine_rule_flips": flips,
        "combined_rule_flips": combined_flips,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-set", type=int, default=200)
    parser.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    args = parser.parse_args()
    embedder = load_embedder(threads=1)
    for name in args.sets:
        print(json.dumps(measure(name, args.per_set, embedder)), flush=True)


if __name__ == "__main__":
    main()
