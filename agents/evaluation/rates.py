"""`ragmon eval --rates`: the support and hallucination estimates against human labels.

Loads nothing itself: `ragmon eval` hands over the checked events and labels (and, with
`--judge`, the judge's records). Each labelled event with a claim becomes one unit
(monitor.estimation.evaluate): its cheap score is that of its weakest judgeable claim, its
reference label the human label (the oracle judge) or the judge's weakest verdict (`--judge`).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from agents.evaluation.spans import SpanLabel, claim_span_labels
from agents.output.records import verdict_vector
from monitor.estimation.evaluate import EvalUnit, bands, resample
from monitor.estimation.evaluate_human import judge_for, resample_human
from monitor.estimation.plot import band_svg
from monitor.estimation.window import RATES, judgeable_split
from monitor.judge.request import judge_items
from monitor.records.models import AnswerEvent, Verdict

PLOT_RATES = (0.02, 0.05, 0.1, 0.2, 0.4)


def ruled_label(verdict: Verdict) -> str | None:
    """How the stream counts the claims of `verdict` the judge cannot see (the weakest of them:
    monitor.estimation.window.judgeable_split), or None when they count in no rate (refusals,
    claims past the claim cap)."""
    _, supported, unsupported, other = judgeable_split(verdict)
    if unsupported:
        return "not_supported"
    if other:
        return "partially_supported"
    return "supported" if supported else None


def units_of(
    checked: Sequence[tuple[AnswerEvent, Verdict]],
    labels: Mapping[str, str],
    records: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[EvalUnit]:
    units = []
    for event, verdict in checked:
        human = labels.get(event.event_id)
        if human is None or not verdict.claims:
            continue  # no claim: the stream counts nothing for it either
        judgeable = {i.claim_index for i in judge_items(verdict, event=event)}
        claims = [c for c in verdict.claims if c.claim.index in judgeable]
        vector = verdict_vector(verdict)
        label: str | None = human
        if records is not None:  # --judge: the judge's weakest verdict is the reference
            label = _judge_label(records.get(event.event_id))
        units.append(
            EvalUnit(
                label=label,
                truth=human,
                score=min(c.support.score for c in claims) if claims else None,
                claims=len(verdict.claims),
                cheap_supported=vector[7],
                cheap_unsupported=vector[8],
                judgeable=len(claims),
                judgeable_supported=sum(c.support.verdict == "supported" for c in claims),
                judgeable_unsupported=sum(c.support.verdict == "not_supported" for c in claims),
                ruled=ruled_label(verdict) if not claims else "not_supported",
            )
        )
    return units


def units_of_spans(
    checked: Sequence[tuple[AnswerEvent, Verdict]],
    spans: Mapping[str, SpanLabel],
    records: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[EvalUnit]:
    """Span-labelled answers (RAGTruth): one unit per claim, its human label from the marked
    spans (agents/evaluation/spans.claim_span_labels, the mapping `ragmon eval` uses), its
    score its own cheap score when the judge would see it (else decided by rule, as in the
    stream). With `records` the reference is the judge's verdict on that claim (by index).
    Simplification: the judge sample then draws claims, where the stream draws answers."""
    units = []
    for event, verdict in checked:
        label = spans.get(event.event_id)
        if label is None or not verdict.claims:
            continue
        judgeable = {i.claim_index for i in judge_items(verdict, event=event)}
        results = list(verdict.claims)
        humans = claim_span_labels([c.claim for c in results], label.spans)
        judged = _judge_by_index(records.get(event.event_id)) if records is not None else None
        for c, human in zip(results, humans, strict=True):
            seen = c.claim.index in judgeable
            sup, unsup = (
                int(c.support.verdict == "supported"),
                int(c.support.verdict == "not_supported"),
            )
            units.append(
                EvalUnit(
                    label=human if judged is None else judged.get(c.claim.index),
                    truth=human,
                    score=c.support.score if seen else None,
                    claims=1,
                    cheap_supported=sup,
                    cheap_unsupported=unsup,
                    judgeable=int(seen),
                    judgeable_supported=sup if seen else 0,
                    judgeable_unsupported=unsup if seen else 0,
                    ruled="not_supported" if seen else ruled_label(replace(verdict, claims=(c,))),
                )
            )
    return units


def _judge_by_index(record: Mapping[str, Any] | None) -> dict[int, str]:
    return {
        c["index"]: c["verdict"]
        for c in (record or {}).get("claims", [])
        if c.get("verdict") in _ORDER and isinstance(c.get("index"), int)
    }


_ORDER = {"not_supported": 0, "partially_supported": 1, "supported": 2}


def _judge_label(record: Mapping[str, Any] | None) -> str | None:
    """The weakest verdict the judge gave the event's claims; None when it gave none (an
    `unverifiable` after a timeout is no verdict)."""
    got = [c.get("verdict") for c in (record or {}).get("claims", []) if c.get("verdict") in _ORDER]
    return min(got, key=lambda v: _ORDER[v]) if got else None


def rates_figures(
    units: Sequence[EvalUnit],
    judge_rate: float,
    resamples: int,
    seed: int,
    oracle: bool,
    plot: bool = False,
    human_labels: int | None = None,
    sensitivity: float | None = None,
    specificity: float | None = None,
) -> dict[str, Any]:
    """The figures; with `human_labels`, the human-scale correction's too (per rate, beside
    the existing keys); with `sensitivity` and `specificity`, a simulated judge instead of the
    units' labels."""
    relabel = judge_for(units, seed, sensitivity, specificity)
    out = resample(units, judge_rate, resamples, seed, relabel=relabel)
    if relabel is not None:
        out["judge"] = f"simulated (sensitivity {sensitivity:g}, specificity {specificity:g})"
    else:
        out["judge"] = "oracle (the human label)" if oracle else "LLM judge"
    out["judge_sensitivity"], out["judge_specificity"] = sensitivity, specificity
    out["human_labels"] = human_labels
    if human_labels:
        human = resample_human(
            units, judge_rate, resamples, seed, human_labels, sensitivity, specificity
        )
        for rate in RATES:
            out[rate].update(human[rate])
    if plot:
        out["bands"] = bands(units, PLOT_RATES, min(resamples, 200), seed)
    return out


def _f(x: Any) -> str:
    return "n/a" if x is None else f"{x:.3f}" if isinstance(x, float) else str(x)


def _count(x: float | None) -> str:
    """A median of counts: 34, or 34.5 between two."""
    return "n/a" if x is None else f"{x:g}"


def _uncounted(fig: Mapping[str, Any]) -> str:
    n = fig.get("uncounted_events") or 0
    return f"; {n} counted in no rate, as the stream counts refusals" if n else ""


def format_rates(fig: Mapping[str, Any]) -> str:
    lines = [
        f"rates: {fig['events']} labelled {fig.get('unit', 'event')}s with a claim "
        f"({fig['judgeable_events']} the judge can see{_uncounted(fig)}); judge: {fig['judge']};"
        f" judge rate {fig['judge_rate']:g}, "
        f"{fig['resamples']} resamples (seed {fig['seed']}), median {_count(fig['judged_events_median'])}"
        " events judged per resample",
        f"  {'':<14}{'truth':>8}{'cheap':>8}{'|corr-t|':>10}{'|est-t|':>9}{'CI half':>9}"
        f"{'coverage':>10}{'judge-only half':>17}",
    ]
    for rate in RATES:
        r = fig[rate]
        lines.append(
            f"  {rate:<14}{_f(r['truth']):>8}{_f(r['cheap']):>8}"
            f"{_f(r['correction_abs_error_median']):>10}{_f(r['estimate_abs_error_median']):>9}"
            f"{_f(r['ci_halfwidth_median']):>9}{_f(r['ci_coverage']):>10}"
            f"{_f(r['judge_only_ci_halfwidth_median']):>17}"
        )
    if fig.get("human_labels"):
        lines += _human_lines(fig)
    spans = [
        f"{rate} [{_f(iv[0])}, {_f(iv[1])}]"
        for rate in RATES
        if (iv := fig[rate].get("estimate_abs_error_median_interval"))
    ]
    if spans:
        lines.append(
            f"  |est-t| is a median over {fig['resamples']} resamples; its own 95% interval (order"
            f" statistics): {'; '.join(spans)}"
        )
    lines += [
        "  truth: share of events with the human label (support: supported; hallucination:",
        "  not_supported). cheap: what today's gauge reads from cheap verdicts (supported or not",
        "  supported claims / claims). |corr-t|: median error of today's judge corrections (the",
        "  judged events' cheap verdicts replaced). |est-t|, CI half, coverage: the PPI++ estimate,",
        "  the half-width of its 95% interval (Agresti-Coull adjusted, finite-population",
        "  corrected: docs/estimation.md) and the share of intervals holding the truth.",
    ]
    return "\n".join(lines)


def _human_lines(fig: Mapping[str, Any]) -> list[str]:
    lines = [
        f"  human scale ({fig['human_labels']} calibration labels per resample, drawn apart from"
        " the judge sample):",
        f"  {'':<14}{'truth':>8}{'|judge-t|':>11}{'|corr-t|':>10}{'CI half':>9}{'coverage':>10}"
        f"{'human-only half':>17}{'judge Se':>10}{'judge Sp':>10}",
    ]
    for rate in RATES:
        r = fig[rate]
        lines.append(
            f"  {rate:<14}{_f(r['truth']):>8}{_f(r['judge_scale_abs_error_median']):>11}"
            f"{_f(r['corrected_abs_error_median']):>10}{_f(r['corrected_ci_halfwidth_median']):>9}"
            f"{_f(r['corrected_ci_coverage']):>10}{_f(r['human_only_ci_halfwidth_median']):>17}"
            f"{_f(r['judge_sensitivity_median']):>10}{_f(r['judge_specificity_median']):>10}"
        )
        above, below = r["corrected_ci_miss_above"], r["corrected_ci_miss_below"]
        if above is not None and below is not None:
            lines.append(f"    misses: {above:.3f} above the truth, {below:.3f} below")
        if r["resamples_without_correction"]:
            lines.append(
                f"    no correction in some resamples: {r['resamples_without_correction']}"
            )
    lines += [
        "  |judge-t|: the judge-scale estimate against the human truth; |corr-t|, CI half,",
        "  coverage: the Rogan-Gladen corrected estimate and its 95% interval (docs/estimation.md);",
        "  misses: intervals wholly above / below the truth (an alert on a lower bound pages on",
        "  the first);",
        "  human-only half: the calibration labels alone; judge Se/Sp: measured on them (medians).",
    ]
    return lines


def rates_html(fig: Mapping[str, Any]) -> str:
    parts = [
        "<h2>Support and hallucination rates: estimate and interval</h2>",
        f"<pre>{html.escape(format_rates(fig))}</pre>",
    ]
    for rate in RATES:
        if fig.get("bands"):
            parts.append(band_svg(fig["bands"], rate, fig[rate]["truth"]))
    return "".join(parts)
