"""The judge, TREC and HTML parts of `ragmon eval` (`--judge`, `--html`, `--qrels`,
`--leaderboard`). The cheap-tier figures are in agents/evaluation/cheap_eval.py;
agents/commands/eval.py calls `add_arguments(parser)` and `run_extras(...)`."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from monitor.config.errors import InputError
from monitor.output.calibration import agreement_report
from monitor.output.report_html import render_report

if TYPE_CHECKING:
    from agents.evaluation.judge_eval import Checked, JudgeEvalResult

# judge_eval imports the openai client (~2 s on a busy machine): only when a command uses it,
# not when `ragmon` registers `eval` next to every other command.


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--judge",
        action="store_true",
        help="also judge every claim with the LLM judge (OPENAI_BASE_URL, OPENAI_API_KEY, "
        "RAGMON_JUDGE_MODEL) and report its agreement and its disagreement with the cheap tier",
    )
    p.add_argument("--html", metavar="FILE", help="write a self-contained HTML report")
    p.add_argument("--qrels", metavar="FILE", help="write TREC qrels: topic run doc_id grade")
    p.add_argument(
        "--leaderboard", metavar="FILE", help="write the TREC citation leaderboard (seed 003)"
    )


def judge_figures(
    checked: Checked,
    labels: Mapping[str, str],
    records: Mapping[str, Mapping[str, Any]],
    threshold: float,
) -> dict[str, Any]:
    from agents.evaluation.judge_eval import weakest_cheap, weakest_judged

    truth: list[str] = []
    verdicts: list[str] = []
    scores: list[float] = []
    both = differ = unjudged = 0
    for event, verdict in checked:
        label = labels.get(event.event_id)
        if label is None:
            continue
        judged = weakest_judged(records.get(event.event_id))
        if judged is None:
            unjudged += 1
            continue
        truth.append(label)
        verdicts.append(judged[0])
        scores.append(judged[1])
        cheap = weakest_cheap(verdict)
        if cheap is not None:
            both += 1
            differ += cheap[0] != judged[0]
    figures = agreement_report(truth, verdicts, scores, threshold)
    figures["unjudged"] = unjudged
    figures["judge_vs_cheap_disagreement"] = differ / both if both else None
    return figures


def judge_run_figures(result: JudgeEvalResult) -> dict[str, Any]:
    """How the run went on the wire: response format in use, attempts, mean latency per
    attempt, tokens, replies rejected by reason, the server's error texts, and the one-line
    failure (None unless nothing was judged because every call failed)."""
    attempts, seconds = result.latency()
    tokens_in, tokens_out = result.tokens()
    return {
        "url": result.url,
        "response_format": result.form,
        "attempts": attempts,
        "latency_mean_seconds": seconds / attempts if attempts else None,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "invalid_replies": result.invalid(),
        "problems": dict(result.problems),
        "failure": result.failure(),
    }


def judge_summary(figures: Mapping[str, Any], calls: Mapping[str, int]) -> str:
    """The judge's part of the report, in lines (the HTML summary and the text output)."""
    mean = figures.get("latency_mean_seconds")
    lines = [
        f"judge at {figures['url']} (response format {figures['response_format']}): calls by "
        f"outcome {dict(sorted(calls.items()))}; {figures['attempts']} HTTP attempts"
        + (f", {mean:.1f} s each on average" if mean is not None else "")
        + f"; tokens in {figures['tokens_in']}, out {figures['tokens_out']}",
    ]
    if figures.get("invalid_replies"):
        lines.append(f"  replies rejected, by reason: {figures['invalid_replies']}")
    for what, detail in sorted(figures.get("problems", {}).items()):
        lines.append(f"  {what}: {detail}")
    return "\n".join(lines)


def write_text(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror}") from None


def run_extras(
    args: argparse.Namespace,
    settings: Any,
    checked: Checked,
    labels: Mapping[str, str],
    summary: str,
    judge_report: Callable[[dict[str, Any]], str] | None = None,
) -> tuple[dict[str, Any] | None, dict[str, int]]:
    """Judge (with --judge), then write the requested files. Returns the judge's figures (or
    None) and its call outcomes. `judge_report` formats the judge's agreement figures for the
    HTML summary, which then covers both tiers."""
    from agents.evaluation.judge_eval import judge_eval, report_rows, trec_outputs

    records: dict[str, dict[str, Any]] | None = None
    figures: dict[str, Any] | None = None
    outcomes: dict[str, int] = {}
    if getattr(args, "judge", False):
        result = judge_eval(checked, settings)
        records = result.records
        outcomes = dict(result.outcomes())
        figures = judge_figures(checked, labels, records, getattr(args, "threshold", 0.5))
        figures.update(judge_run_figures(result))
        agreement = judge_report(figures) + "\n" if judge_report is not None else ""
        summary = summary + "\n" + agreement + judge_summary(figures, outcomes)
    if getattr(args, "html", None):
        write_text(args.html, render_report(report_rows(checked, labels, records), summary=summary))
    if getattr(args, "qrels", None) or getattr(args, "leaderboard", None):
        qrels_text, board_text = trec_outputs(checked, records)
        if args.qrels:
            write_text(args.qrels, qrels_text)
        if args.leaderboard:
            write_text(args.leaderboard, board_text)
    return figures, outcomes
