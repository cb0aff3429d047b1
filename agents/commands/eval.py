"""`ragmon eval EVENTS --labels LABELS [--json [FILE]]`: the cheap tier's agreement with human
labels; with `--rates`, the support and hallucination estimates (agents/evaluation/rates.py).

Each labelled event is one judged unit (a claim with its citations, as in shared/eval). Its
cheap verdict is that of its weakest cited claim (all claims when none is cited); an event
that yields no claim at all is reported as unscored rather than guessed. The statistics live in
monitor.output.calibration; agents/evaluation/cheap_eval.py loads, checks, aggregates and
formats; the span, `--rates` and `--alerts` modes are in agents/commands/eval_modes.py.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agents.commands.eval_modes import _emit_json, run_alerts, run_rates, run_spans
from agents.evaluation import alerts_eval, semantic_eval
from agents.evaluation import extras as eval_extras
from agents.evaluation.cheap_eval import (
    CheapEval,
    _fmt,
    cheap_eval,
    format_report,
    load_checked,
    load_labels,
)
from agents.evaluation.spans import load_span_labels
from monitor.config.errors import InputError
from monitor.config.settings import load_settings


def register(sub: Any) -> None:
    p = sub.add_parser(
        "eval",
        help="agreement of the checks with human labels (balanced accuracy, AUROC, Spearman)",
        description="Check labelled answer events offline and compare the cheap tier's "
        "verdicts and scores with the human labels. Binary decision: supported is positive, "
        "not_supported negative, partially_supported/unverifiable positive iff score >= "
        "--threshold.",
    )
    p.add_argument("events", metavar="EVENTS", nargs="?", help="JSONL answer events")
    p.add_argument(
        "--labels",
        metavar="LABELS",
        help="JSONL {event_id, label} per line, or {event_id, spans: [{start, end}], task_type, "
        "model} (RAGTruth: each claim labelled by overlap with a marked span)",
    )
    p.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="the figures as one JSON object: printed, or written to FILE",
    )
    p.add_argument(
        "--rates",
        action="store_true",
        help="support and hallucination rates: the truth from the labels, the cheap figure, "
        "today's corrections and the PPI++ estimate with its 95%% interval over resampled "
        "uniform judge samples (the judge's answer is the human label, an oracle judge; with "
        "--judge, the LLM judge's verdicts)",
    )
    p.add_argument(
        "--judge-rate",
        type=float,
        default=0.1,
        help="with --rates: share of answers the judge sample draws (default 0.1)",
    )
    p.add_argument(
        "--resamples", type=int, default=200, help="with --rates: judge samples drawn (200)"
    )
    p.add_argument("--seed", type=int, default=0, help="with --rates: first random seed (0)")
    p.add_argument(
        "--human-labels",
        type=int,
        metavar="N",
        help="with --rates: a uniform sample of N judged claims keeps its human label as the "
        "calibration sample; adds the human-scale (Rogan-Gladen corrected) figures",
    )
    p.add_argument(
        "--judge-sensitivity",
        type=float,
        metavar="S",
        help="with --rates: simulate a judge that keeps a not-supported claim's human label with "
        "probability S (else reads supported); needs --judge-specificity",
    )
    p.add_argument(
        "--judge-specificity",
        type=float,
        metavar="P",
        help="with --rates: ... and reads a supported or partially supported claim as not "
        "supported with probability 1-P (seeded per resample)",
    )
    p.add_argument(
        "--threshold",
        type=float,
        default=0.5,
        help="score at or above which an undecided verdict counts as supported (default 0.5)",
    )
    eval_extras.add_arguments(p)  # --judge, --html, --qrels, --leaderboard
    semantic_eval.add_arguments(p)  # --semantic, --semantic-fit, --split-seed, --semantic-cache
    alerts_eval.add_arguments(p)  # --alerts, --rate, --weeks, --healthy, --incident, ...
    p.set_defaults(func=run)


def _judge_report(figures: dict[str, Any], cheap: CheapEval) -> str:
    return format_report(CheapEval(figures, [], cheap.unlabelled, 0), title="judge")


def run(args: argparse.Namespace) -> int:
    settings = load_settings(getattr(args, "config", None))
    if args.alerts:
        return run_alerts(args, settings)
    if not args.events or not args.labels:
        raise InputError("give EVENTS and --labels LABELS (or --alerts)")
    options = settings.check_options()
    spans = None if args.semantic else load_span_labels(args.labels)
    if spans is not None and not args.rates:  # span-labelled (RAGTruth): per claim by overlap
        return run_spans(args, options, spans)
    if spans is not None:  # --rates on span labels: the answer's label, for the cheap figures
        labels = {k: v.label for k, v in spans.items()}
    else:
        labels = load_labels(args.labels)
    checked, rejected = load_checked(args.events, options)
    result = cheap_eval(checked, labels, rejected, args.threshold)
    if args.semantic:
        return semantic_eval.run(args, checked, labels)
    if args.rates:
        return run_rates(args, settings, checked, labels, spans)
    judge, calls = eval_extras.run_extras(
        args, settings, checked, labels, format_report(result), lambda f: _judge_report(f, result)
    )
    if args.json:
        out = dict(result.figures)
        out.update(
            unscored=len(result.unscored), unlabelled=result.unlabelled, rejected=result.rejected
        )
        if judge is not None:
            out.update(judge=judge, judge_calls=calls)
        _emit_json(args.json, out)
    else:
        print(format_report(result))
        if judge is not None:
            print(_judge_report(judge, result))
            print(
                f"  judge vs cheap disagreement: {_fmt(judge['judge_vs_cheap_disagreement'])}; "
                f"unjudged events: {judge['unjudged']}; judge calls by outcome: {calls}"
            )
            print(eval_extras.judge_summary(judge, calls))
    if judge is not None and judge.get("failure"):
        print(judge["failure"], file=sys.stderr)  # nothing judged: not a result to trust
        return 1
    if not result.figures["n"]:
        print("ragmon eval: no labelled event could be scored", file=sys.stderr)
        return 1
    return 0
