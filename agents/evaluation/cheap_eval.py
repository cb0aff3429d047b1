"""The cheap tier against human labels for `ragmon eval`: load the labels and the checked
events, aggregate each event to its weakest claim, and format the agreement figures.

Each labelled event is one judged unit (a claim with its citations, as in shared/eval). Its
cheap verdict is that of its weakest cited claim (all claims when none is cited); an event
that yields no claim at all is reported as unscored rather than guessed. The statistics live in
monitor.output.calibration.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agents.evaluation.jsonl import jsonl_rows
from monitor.check import check_event
from monitor.config.errors import InputError
from monitor.config.options import CheckOptions
from monitor.inputs.decode import decode_event
from monitor.output.calibration import HUMAN_GRADES, agreement_report
from monitor.records.models import AnswerEvent, Rejection, Verdict

Checked = list[tuple[AnswerEvent, Verdict]]


def load_labels(path: str) -> dict[str, str]:
    """event_id → supported / partially_supported / not_supported."""
    labels: dict[str, str] = {}
    for where, row in jsonl_rows(path):
        try:
            event_id, label = row["event_id"], row["label"]
        except (KeyError, TypeError):
            raise InputError(f"{where}: not a {{event_id, label}} object") from None
        if label not in HUMAN_GRADES:
            raise InputError(f"{where}: unknown label {label!r}")
        labels[str(event_id)] = label
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
