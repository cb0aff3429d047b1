"""The other modes of `ragmon eval`: span labels (RAGTruth), `--rates` and `--alerts`, and the
`--json` writer they share with the cheap report (agents/commands/eval.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from agents.evaluation import alerts_eval
from agents.evaluation import extras as eval_extras
from agents.evaluation import rates as eval_rates
from agents.evaluation.cheap_eval import Checked, load_checked
from agents.evaluation.span_eval import format_span_report, span_eval
from monitor.config.errors import InputError
from monitor.config.options import CheckOptions
from monitor.output.report_html import render_report


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
    # imported here: the judge's client (openai) is ~0.6 s of CPU that every other ragmon
    # command, `ragmon check` included, would pay at start-up (the CLI registers every command)
    from agents.evaluation.judge_eval import judge_eval, report_rows

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
