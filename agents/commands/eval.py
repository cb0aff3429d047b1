"""`ragmon eval EVENTS --labels LABELS [--json [FILE]]`: the cheap tier's agreement with human
labels; with `--rates`, the support and hallucination estimates (agents/evaluation/rates.py).

Each labelled event is one judged unit (a claim with its citations, as in shared/eval). Its
cheap verdict is that of its weakest cited claim (all claims when none is cited); an event
that yields no claim at all is reported as unscored rather than guessed. The statistics live in
monitor.output.calibration; this module loads, checks, aggregates and formats.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.evaluation import alerts_eval, semantic_eval
from agents.evaluation import extras as eval_extras
from agents.evaluation import rates as eval_rates
from agents.evaluation.judge_eval import judge_eval, report_rows
from agents.evaluation.span_eval import format_span_report, span_eval
from agents.evaluation.spans import load_span_labels
from monitor.check import check_event
from monitor.config.errors import InputError
from monitor.config.options import CheckOptions
from monitor.config.settings import load_settings
from monitor.inputs.decode import decode_event
from monitor.output.calibration import HUMAN_GRADES, agreement_report
from monitor.output.report_html import render_report
from monitor.records.models import AnswerEvent, Rejection, Verdict

Checked = list[tuple[AnswerEvent, Verdict]]


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


def load_labels(path: str) -> dict[str, str]:
    """event_id → supported / partially_supported / not_supported."""
    labels: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    event_id, label = row["event_id"], row["label"]
                except (ValueError, KeyError, TypeError):
                    raise InputError(f"{path}:{n}: not a {{event_id, label}} object") from None
                if label not in HUMAN_GRADES:
                    raise InputError(f"{path}:{n}: unknown label {label!r}")
                labels[str(event_id)] = label
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    return labels


def load_checked(path: str, options: CheckOptions) -> tuple[Checked, list[Rejection]]:
    """Decode and check every event of a JSONL file; rejected lines are returned apart."""
    checked: Checked = []
    rejected: list[Rejection] = []
    try:
        with open(path, "rb") as fh:
            for line in fh:
                if not line.strip():
                    continue
                event = decode_event(line.rstrip(b"\r\n"), options)
                if isinstance(event, Rejection):
                    rejected.append(event)
                else:
                    checked.append((event, check_event(event, options)))
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    return checked, rejected


def answer_support(verdict: Verdict) -> tuple[str, float] | None:
    """The weakest cited claim's (verdict, score); all claims when none is cited; None if none."""
    claims = [c for c in verdict.claims if c.claim.cited] or list(verdict.claims)
    if not claims:
        return None
    weakest = min(claims, key=lambda c: c.support.score)
    return weakest.support.verdict, weakest.support.score


@dataclass
class CheapEval:
    figures: dict[str, Any]
    unscored: list[str]  # labelled events without any claim
    unlabelled: int
    rejected: int


def cheap_eval(
    checked: Iterable[tuple[AnswerEvent, Verdict]],
    labels: Mapping[str, str],
    rejected: Sequence[Rejection] = (),
    threshold: float = 0.5,
) -> CheapEval:
    truth: list[str] = []
    verdicts: list[str] = []
    scores: list[float] = []
    unscored: list[str] = []
    unlabelled = 0
    for event, verdict in checked:
        label = labels.get(event.event_id)
        if label is None:
            unlabelled += 1
            continue
        support = answer_support(verdict)
        if support is None:
            unscored.append(event.event_id)
            continue
        truth.append(label)
        verdicts.append(support[0])
        scores.append(support[1])
    figures = agreement_report(truth, verdicts, scores, threshold)
    return CheapEval(figures, unscored, unlabelled, len(rejected))


def _fmt(value: object) -> str:
    return "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def format_report(result: CheapEval, title: str = "cheap tier") -> str:
    f = result.figures
    by_label = f["n_by_label"]
    lines = [
        f"{title}: {f['n']} labelled events scored "
        f"(supported={by_label['supported']}, partially_supported="
        f"{by_label['partially_supported']}, not_supported={by_label['not_supported']}); "
        f"unscored (no claim)={len(result.unscored)}, unlabelled={result.unlabelled}, "
        f"rejected={result.rejected}",
        f"  balanced accuracy (supported vs not, partial excluded): {_fmt(f['balanced_accuracy'])}",
        "  balanced accuracy (partial counted as not supported):   "
        f"{_fmt(f['balanced_accuracy_partial_negative'])}",
        f"  AUROC of score (partial excluded / as negative):       "
        f"{_fmt(f['auroc'])} / {_fmt(f['auroc_partial_negative'])}",
        f"  agreement rate (seed 001 §7.3):                         {_fmt(f['agreement_rate'])}",
        f"  Spearman(score, grade 2/1/0):                           {_fmt(f['spearman'])}",
        f"  binary rule: supported +, not_supported -, others + iff score >= {f['threshold']}",
        f"  confusion (rows human, columns {title} verdict):",
    ]
    columns = list(next(iter(f["confusion"].values())))
    lines.append("    " + " " * 20 + "".join(f"{c[:12]:>14}" for c in columns))
    for label in HUMAN_GRADES:
        row = f["confusion"][label]
        lines.append(f"    {label:<20}" + "".join(f"{row[c]:>14}" for c in columns))
    return "\n".join(lines)


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


def run_spans(args: argparse.Namespace, options: CheckOptions, spans: Mapping[str, Any]) -> int:
    """`ragmon eval` with a span-labelled LABELS file (agents/evaluation/span_eval.py)."""
    checked, rejected = load_checked(args.events, options)
    figures = span_eval(checked, spans)
    figures["rejected"] = len(rejected)
    if args.json:
        _emit_json(args.json, figures)
    else:
        print(format_span_report(figures))
    if not figures["response"]["n"]:
        print("ragmon eval: no labelled event could be scored", file=sys.stderr)
        return 1
    return 0


def _emit_json(target: str, figures: Mapping[str, Any]) -> None:
    text = json.dumps(figures, sort_keys=True, default=_plain)
    if target == "-":
        print(text)
        return
    try:
        with open(target, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
    except OSError as exc:
        raise InputError(f"cannot write {target}: {exc.strerror}") from None


def _plain(value: object) -> object:
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"not JSON: {type(value).__name__}")


def run_rates(
    args: argparse.Namespace,
    settings: Any,
    checked: Checked,
    labels: Mapping[str, str],
    spans: Mapping[str, Any] | None = None,
) -> int:
    """`ragmon eval --rates`: text report (and --json FILE, --html FILE)."""
    if not 0 < args.judge_rate <= 1:
        raise InputError("--judge-rate must be in (0, 1]")
    if args.resamples < 1:
        raise InputError("--resamples must be at least 1")
    if args.human_labels is not None and args.human_labels < 1:
        raise InputError("--human-labels must be at least 1")
    simulated = _simulated_judge(args)
    records = None
    if args.judge:
        records = judge_eval(checked, settings).records
    if spans is not None:  # span labels: one unit per claim (agents/evaluation/rates.py)
        units = eval_rates.units_of_spans(checked, spans, records)
    else:
        units = eval_rates.units_of(checked, labels, records)
    if not units:
        print("ragmon eval: no labelled event with a claim", file=sys.stderr)
        return 1
    figures = eval_rates.rates_figures(
        units,
        args.judge_rate,
        args.resamples,
        args.seed,
        oracle=records is None,
        plot=bool(args.html),
        human_labels=args.human_labels,
        sensitivity=simulated[0],
        specificity=simulated[1],
    )
    figures["unit"] = "claim" if spans is not None else "event"
    text = eval_rates.format_rates(figures)
    print(text)
    if args.json:
        _emit_json(args.json, figures)
    if args.html:
        rows = report_rows(checked, labels, records)
        eval_extras.write_text(
            args.html,
            render_report(rows, summary=text, extra=eval_rates.rates_html(figures)),
        )
    return 0


def run_alerts(args: argparse.Namespace, settings: Any) -> int:
    """`ragmon eval --alerts`: the alert simulation (agents/evaluation/alerts_eval.py)."""
    from agents.evaluation.claim_pool import labelled_claims, load_label_rows, pool_of
    from monitor.alerting.alerts import load_rules, parse_duration

    try:
        import numpy  # noqa: F401
    except ImportError:
        raise InputError("ragmon eval --alerts needs numpy: pip install 'ragmon[alerts]'") from None
    if not 0 < args.judge_rate <= 1:
        raise InputError("--judge-rate must be in (0, 1]")
    if args.rate <= 0 or args.weeks <= 0:
        raise InputError("--rate and --weeks must be positive")
    healthy = 0.09 if args.healthy is None else args.healthy
    if not 0 <= healthy <= 1:
        raise InputError("--healthy: a share between 0 and 1")
    every = int(parse_duration(args.incident_every, "--incident-every"))
    if every < alerts_eval.INCIDENT_SECONDS + 600:
        raise InputError("--incident-every must leave at least 10 minutes between incidents")
    options = settings.check_options()
    claims = {}
    for events, labels in alerts_eval.data_files(args, settings.eval_dir):
        checked, _ = load_checked(events, options)
        claims[events] = labelled_claims(checked, load_label_rows(labels))
    rules = load_rules(args.rules or settings.rules_file)
    figures = alerts_eval.run_alerts(
        pool_of(claims),
        rules,
        rate=args.rate,
        judge_rate=args.judge_rate,
        weeks=args.weeks,
        healthy=healthy,
        incident=alerts_eval.parse_incident(args.incident),
        every=every,
        target_delay=args.target_delay if args.target_delay > 0 else None,
        seed=args.seed,
        judge_delay=args.judge_delay,
    )
    if args.json:
        _emit_json(args.json, figures)
    if args.json != "-":
        print(alerts_eval.format_alerts(figures))
    return 0


def _simulated_judge(args: argparse.Namespace) -> tuple[float | None, float | None]:
    """(S, P) of `--judge-sensitivity/--judge-specificity`, checked; (None, None) without."""
    s, p = args.judge_sensitivity, args.judge_specificity
    if s is None and p is None:
        return None, None
    if s is None or p is None:
        raise InputError("--judge-sensitivity and --judge-specificity go together")
    if not (0 <= s <= 1 and 0 <= p <= 1):
        raise InputError("--judge-sensitivity and --judge-specificity must be in [0, 1]")
    if args.judge:
        raise InputError("--judge (a real judge) and a simulated judge exclude each other")
    return s, p
