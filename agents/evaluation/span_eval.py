"""`ragmon eval` on span-labelled answers (RAGTruth): response- and claim-level agreement.

Response level (the answer is hallucinated when people marked any span):
- prediction, fixed in advance and not tuned: hallucinated iff the verdict's
  `hallucination_rate > 0` (at least one claim `not_supported`);
- precision / recall / F1 of that prediction, hallucinated as the positive class;
- AUROC of the answer's hallucination score, 1 − the weakest scored claim's support score
  (claims that abstain or were left undecided past a cap carry no score; no scored claim: 0);
- `always_f1`: the F1 of calling every answer hallucinated, the baseline a detector must beat.
Claim level: each of ragmon's claims labelled by overlap with a span (spans.py), then the same
agreement figures as claim-labelled files (monitor.output.calibration.agreement_report) over the
claims that do not abstain (an abstaining claim is counted apart, as the rates leave it out). The same figures by `task_type` and
by `model`, and the share of unverifiable claims by reason.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from agents.evaluation.spans import SpanLabel, claim_span_labels
from monitor.checks.scoring import is_over_cap
from monitor.output.calibration import agreement_report, auroc
from monitor.records.models import AnswerEvent, ClaimResult, Verdict

Checked = Sequence[tuple[AnswerEvent, Verdict]]
CUT = "hallucination_rate > 0"
ABSTAIN = "abstain"


def answer_score(verdict: Verdict) -> float:
    """Hallucination score of an answer: 1 − min support score of its scored claims."""
    scored = [c.support.score for c in verdict.claims if _scored(c)]
    return 1.0 - min(scored) if scored else 0.0


def predicted_hallucinated(verdict: Verdict) -> bool:
    rate = verdict.scores.hallucination_rate
    return rate is not None and rate > 0


def _scored(c: ClaimResult) -> bool:
    return c.support.verdict != ABSTAIN and not is_over_cap(c)


def _f1(truth: Sequence[bool], predicted: Sequence[bool]) -> dict[str, float | None]:
    tp = sum(t and p for t, p in zip(truth, predicted, strict=True))
    fp = sum(p and not t for t, p in zip(truth, predicted, strict=True))
    fn = sum(t and not p for t, p in zip(truth, predicted, strict=True))
    precision = tp / (tp + fp) if tp + fp else None
    recall = tp / (tp + fn) if tp + fn else None
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
    return {"precision": precision, "recall": recall, "f1": f1}


def response_figures(rows: Sequence[tuple[bool, bool, float]]) -> dict[str, Any]:
    """rows: (truly hallucinated, predicted hallucinated, hallucination score) per answer."""
    truth = [r[0] for r in rows]
    out: dict[str, Any] = {"n": len(rows), "hallucinated": sum(truth), "cut": CUT}
    out.update(_f1(truth, [r[1] for r in rows]))
    out["auroc"] = auroc([r[2] for r in rows], truth)
    out["always_f1"] = _f1(truth, [True] * len(rows))["f1"]
    out["predicted_hallucinated"] = sum(r[1] for r in rows)
    return out


def claim_figures(rows: Sequence[tuple[str, str, float]]) -> dict[str, Any]:
    """rows: (span label, ragmon verdict, support score) per claim. A claim that abstains is
    neither supported nor not (the support and hallucination rates leave it out): it is
    counted apart, with how many of them people marked (`abstain_in_span`), and left out of
    the AUROC and balanced accuracy."""
    kept = [r for r in rows if r[1] != ABSTAIN]
    labels = [r[0] for r in kept]
    report = agreement_report(labels, [r[1] for r in kept], [r[2] for r in kept])
    return {
        "n": len(rows),
        "not_supported": sum(r[0] == "not_supported" for r in rows),
        "auroc": report["auroc"],
        "balanced_accuracy": report["balanced_accuracy"],
        "abstain": len(rows) - len(kept),
        "abstain_in_span": sum(r[1] == ABSTAIN and r[0] == "not_supported" for r in rows),
        "verdicts": dict(Counter(r[1] for r in rows)),
    }


def _unverifiable_reason(c: ClaimResult) -> str:
    reasons = [r.split("=", 1)[0] for r in c.support.reasons if r != "uncited"]
    named = [r for r in reasons if r not in ("term_coverage", "phrase_overlap")]
    return named[0] if named else "weak_overlap"


def span_eval(checked: Checked, labels: Mapping[str, SpanLabel]) -> dict[str, Any]:
    """All figures of `ragmon eval` for span-labelled events (see the module docstring)."""
    answers: list[tuple[SpanLabel, bool, bool, float]] = []
    claims: list[tuple[SpanLabel, str, str, float]] = []
    unverifiable: Counter[str] = Counter()
    unlabelled = 0
    for event, verdict in checked:
        label = labels.get(event.event_id)
        if label is None:
            unlabelled += 1
            continue
        answers.append(
            (label, label.hallucinated, predicted_hallucinated(verdict), answer_score(verdict))
        )
        results = list(verdict.claims)
        for c, human in zip(
            results, claim_span_labels([c.claim for c in results], label.spans), strict=True
        ):
            claims.append((label, human, c.support.verdict, c.support.score))
            if c.support.verdict == "unverifiable":
                unverifiable[_unverifiable_reason(c)] += 1
    out = _figures(answers, claims, lambda _: True)
    out["unlabelled"] = unlabelled
    out["unverifiable_by_reason"] = dict(unverifiable.most_common())
    for key, attr in (("by_task", "task_type"), ("by_model", "model")):
        groups = sorted({_group(a[0], attr) for a in answers})
        out[key] = {g: _figures(answers, claims, _in_group(attr, g)) for g in groups}
    return out


def _group(label: SpanLabel, attr: str) -> str:
    return str(getattr(label, attr) or "?")


def _in_group(attr: str, group: str) -> Callable[[SpanLabel], bool]:
    return lambda label: _group(label, attr) == group


def _figures(
    answers: Iterable[tuple[SpanLabel, bool, bool, float]],
    claims: Iterable[tuple[SpanLabel, str, str, float]],
    keep: Callable[[SpanLabel], bool],
) -> dict[str, Any]:
    return {
        "response": response_figures([a[1:] for a in answers if keep(a[0])]),
        "claims": claim_figures([c[1:] for c in claims if keep(c[0])]),
    }


def _fmt(value: object) -> str:
    return "n/a" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _line(name: str, f: Mapping[str, Any]) -> str:
    r, c = f["response"], f["claims"]
    return (
        f"  {name:<26}{r['n']:>6}{r['hallucinated']:>6}{_fmt(r['precision']):>7}"
        f"{_fmt(r['recall']):>7}{_fmt(r['f1']):>7}{_fmt(r['always_f1']):>8}{_fmt(r['auroc']):>7}"
        f"{c['n']:>7}{_fmt(c['auroc']):>7}{_fmt(c['balanced_accuracy']):>7}{c['abstain']:>6}"
    )


def format_span_report(f: Mapping[str, Any]) -> str:
    """The text report of `span_eval`'s figures."""
    r = f["response"]
    lines = [
        f"span labels: {r['n']} answers ({r['hallucinated']} with a marked span), "
        f"{f['claims']['n']} claims; unlabelled={f['unlabelled']}",
        f"  response: hallucinated iff {r['cut']}; AUROC of 1 - weakest claim score; "
        "always = every answer hallucinated",
        "  claims: not_supported iff the claim overlaps a span; BA at the verdict "
        "(undecided by score >= 0.5); abstaining claims counted apart (abst, in a span: "
        f"{f['claims']['abstain_in_span']})",
        f"  {'':<26}{'ans':>6}{'hal':>6}{'P':>7}{'R':>7}{'F1':>7}{'always':>8}{'AUROC':>7}"
        f"{'claims':>7}{'AUROC':>7}{'BA':>7}{'abst':>6}",
        _line("all", f),
    ]
    for key in ("by_task", "by_model"):
        for name, g in f[key].items():
            lines.append(_line(f"{key[3:]}={name}", g))
    reasons = ", ".join(f"{k}={v}" for k, v in f["unverifiable_by_reason"].items())
    lines.append(f"  unverifiable claims by reason: {reasons or 'none'}")
    return "\n".join(lines)
