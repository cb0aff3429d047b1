"""`ragmon eval --alerts`: what a team's traffic and judge rate buy in pages.

Runs the alert simulator (agents/evaluation/alert_sim.py) on labelled claims and reports per rule
on an estimated figure: false pages per week on a healthy stream held at `--healthy P` (with a
95% interval), pages per 30-minute incident and the detection delay of a step `--incident P0:P1`,
the median 95% half-width of the rule's figure, and the judge rate at which the median
detection delay meets `--target-delay`.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from monitor.alerting.alerts import ESTIMATED, AlertRule
from monitor.config.errors import InputError

WEEK = 7 * 86400
INCIDENT_SECONDS = 1800
JUDGE_RATES = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0)
DEV_SETS = ("wice", "ragtruth")


def add_arguments(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("--alerts (alert simulation; docs/alerting.md)")
    g.add_argument(
        "--alerts",
        action="store_true",
        help="simulate the alert rules on a stream of labelled claims: false pages per week, "
        "pages per incident, detection delay, interval half-width, judge rate for a target delay",
    )
    g.add_argument(
        "--alerts-data",
        nargs=2,
        action="append",
        metavar=("EVENTS", "LABELS"),
        help="labelled events to draw claims from (repeatable; default: EVENTS/--labels if "
        "given, else the WiCE and RAGTruth dev sets under $RAGMON_EVAL_DIR or ../shared/eval/dev)",
    )
    g.add_argument("--rate", type=float, default=2.0, help="answers per second (2)")
    g.add_argument("--weeks", type=float, default=12.0, help="simulated weeks per stream (12)")
    g.add_argument(
        "--healthy",
        type=float,
        metavar="P",
        help="true not-supported share of the healthy stream (false pages); default 0.09",
    )
    g.add_argument(
        "--incident",
        metavar="P0:P1",
        help="a 30-minute step from P0 to P1, every --incident-every; default 0.05:0.20",
    )
    g.add_argument(
        "--incident-every", default="3h", help="time from one incident's start to the next (3h)"
    )
    g.add_argument("--rules", metavar="FILE", help="rules file (default: RAGMON_RULES_FILE)")
    g.add_argument(
        "--target-delay",
        type=float,
        default=300.0,
        help="median detection delay (s) the judge rate is searched for (300)",
    )
    g.add_argument("--judge-delay", type=int, default=2, help="seconds until a label arrives (2)")


def parse_incident(text: str | None) -> tuple[float, float]:
    if text is None:
        return 0.05, 0.20
    try:
        p0, p1 = (float(x) for x in text.split(":"))
    except ValueError:
        raise InputError(f"--incident: expected P0:P1 like 0.05:0.20, got {text!r}") from None
    for p in (p0, p1):
        if not 0 <= p <= 1:
            raise InputError("--incident: shares are between 0 and 1")
    return p0, p1


def data_files(args: argparse.Namespace, eval_dir: str | None = None) -> list[tuple[str, str]]:
    pairs = [tuple(x) for x in (args.alerts_data or [])]
    if args.events and args.labels:
        pairs.insert(0, (args.events, args.labels))
    if pairs:
        return [(str(a), str(b)) for a, b in pairs]
    root = Path(eval_dir or Path("..") / "shared" / "eval" / "dev")
    found = [
        (str(root / f"{n}-dev.events.jsonl"), str(root / f"{n}-dev.labels.jsonl")) for n in DEV_SETS
    ]
    if not all(Path(e).is_file() and Path(lab).is_file() for e, lab in found):
        raise InputError(
            f"no labelled claims: give EVENTS --labels LABELS or --alerts-data EVENTS LABELS, or "
            f"set RAGMON_EVAL_DIR to the folder of {DEV_SETS[0]}-dev.events.jsonl"
        )
    return found


def poisson_interval(count: int, level: float = 0.95) -> tuple[float, float]:
    """Garwood's exact interval for a Poisson mean from one count (by bisection on its CDF)."""
    alpha = (1 - level) / 2

    def cdf(k: int, mean: float) -> float:  # P(X <= k), summed in logs (e^-mean underflows)
        if mean <= 0:
            return 1.0
        logs = [i * math.log(mean) - mean - math.lgamma(i + 1) for i in range(k + 1)]
        top = max(logs)
        return min(1.0, math.exp(top) * math.fsum(math.exp(x - top) for x in logs))

    def solve(target: Any, lo: float, hi: float) -> float:
        for _ in range(100):
            mid = (lo + hi) / 2
            if target(mid):
                hi = mid
            else:
                lo = mid
        return (lo + hi) / 2

    top = count + 10 * math.sqrt(count + 1) + 10
    lower = 0.0 if count == 0 else solve(lambda m: 1 - cdf(count - 1, m) >= alpha, 0.0, top)
    upper = solve(lambda m: cdf(count, m) <= alpha, 0.0, top)
    return lower, upper


def quantile(values: Sequence[float], q: float) -> float | None:
    """The order statistic ceil(q·n) (undetected incidents are +inf); None if it is inf."""
    if not values:
        return None
    ordered = sorted(values)
    x = ordered[max(0, math.ceil(q * len(ordered)) - 1)]
    return None if math.isinf(x) else x


def incident_figures(
    fired: Sequence[float], seconds: int, every: int
) -> tuple[float | None, list[float], int]:
    """(pages per incident, detection delays with inf for a missed incident, incidents)."""
    onsets = list(range(every // 2, seconds - every + 1, every)) or [0]
    pages, delays = 0, []
    for onset in onsets:
        inside = [t for t in fired if onset <= t < onset + every]
        pages += len(inside)
        delays.append(inside[0] - onset if inside else math.inf)
    return pages / len(onsets), delays, len(onsets)


def incident_schedule(p0: float, p1: float, every: int) -> Any:
    import numpy as np

    def schedule(seconds: Any) -> Any:
        phase = (seconds - every // 2) % every
        on = (seconds >= every // 2) & (phase < INCIDENT_SECONDS)
        return np.where(on, p1, p0)

    return schedule


def constant(p: float) -> Any:
    import numpy as np

    return lambda seconds: np.full(np.shape(seconds), p, dtype=np.float64)


def _median(xs: Sequence[float]) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    k = len(s)
    return s[k // 2] if k % 2 else (s[k // 2 - 1] + s[k // 2]) / 2


def run_alerts(
    pool: Any,
    rules: Sequence[AlertRule],
    *,
    rate: float,
    judge_rate: float,
    weeks: float,
    healthy: float,
    incident: tuple[float, float],
    every: int,
    target_delay: float | None,
    seed: int = 0,
    judge_delay: int = 2,
) -> dict[str, Any]:
    from agents.evaluation.alert_sim import Stream, simulate

    seconds = int(weeks * WEEK)
    base: dict[str, Any] = {"rate": rate, "judge_delay": judge_delay}
    quiet = simulate(
        Stream(
            judge_rate=judge_rate, seconds=seconds, schedule=constant(healthy), seed=seed, **base
        ),
        pool,
        rules,
    )
    storm = simulate(
        Stream(
            judge_rate=judge_rate,
            seconds=seconds,
            schedule=incident_schedule(*incident, every),
            seed=seed + 1,
            **base,
        ),
        pool,
        rules,
    )
    out: dict[str, Any] = {
        "rate": rate,
        "judge_rate": judge_rate,
        "weeks": weeks,
        "healthy": healthy,
        "incident": list(incident),
        "incident_every_s": every,
        "claims": {
            "supported": len(pool.supported),
            "not_supported": len(pool.not_supported),
            "by_file": dict(pool.sources),
        },
        "answers": quiet.answers + storm.answers,
        "rules": {},
    }
    storm_runs = {r.rule.name: r for r in storm.runs}
    for run in quiet.runs:
        name = run.rule.name
        pages = len(run.fired)
        lo, hi = poisson_interval(pages)
        per_incident, delays, incidents = incident_figures(storm_runs[name].fired, seconds, every)
        detected = [d for d in delays if not math.isinf(d)]
        out["rules"][name] = {
            "figure": run.rule.figure,
            "false_pages": pages,
            "false_pages_per_week": pages / weeks,
            "false_pages_per_week_interval": [lo / weeks, hi / weeks],
            "incidents": incidents,
            "pages_per_incident": per_incident,
            "detected_share": len(detected) / len(delays) if delays else None,
            "detection_delay_p50_s": quantile(delays, 0.5),
            "detection_delay_p90_s": quantile(delays, 0.9),
            "halfwidth_median": _median(quiet.halfwidths[run.rule.figure]),
            "real_evaluations": run.real_evaluations + storm_runs[name].real_evaluations,
        }
    if target_delay is not None:
        needed = judge_rate_for(pool, rules, rate, incident, every, target_delay, seed, judge_delay)
        for name, value in needed.items():
            out["rules"][name]["judge_rate_for_target_delay"] = value
        out["target_delay_s"] = target_delay
    return out


def judge_rate_for(
    pool: Any,
    rules: Sequence[AlertRule],
    rate: float,
    incident: tuple[float, float],
    every: int,
    target: float,
    seed: int,
    judge_delay: int,
) -> dict[str, float | None]:
    """Per rule, the smallest judge rate of JUDGE_RATES whose median detection delay (one
    simulated week of incidents) is at most `target`; None if even judging everything is slower."""
    from agents.evaluation.alert_sim import Stream, simulate

    found: dict[str, float | None] = {}
    pending = {r.name for r in rules if r.figure in ESTIMATED}
    for judge_rate in JUDGE_RATES:
        stream = Stream(
            rate=rate,
            judge_rate=judge_rate,
            seconds=WEEK,
            judge_delay=judge_delay,
            schedule=incident_schedule(*incident, every),
            seed=seed + 2,
        )
        result = simulate(stream, pool, [r for r in rules if r.name in pending])
        for run in result.runs:
            p50 = quantile(incident_figures(run.fired, WEEK, every)[1], 0.5)
            if p50 is not None and p50 <= target:
                found[run.rule.name] = judge_rate
                pending.discard(run.rule.name)
        if not pending:
            break
    for name in pending:
        found.setdefault(name, None)
    return found


def _f(x: Any, fmt: str = ".3f") -> str:
    return "n/a" if x is None else format(x, fmt)


def format_alerts(fig: Mapping[str, Any]) -> str:
    p0, p1 = fig["incident"]
    lines = [
        f"alerts: {fig['rate']:g} answers/s, judge rate {fig['judge_rate']:g}, "
        f"{fig['weeks']:g} weeks per stream; claims {fig['claims']['supported']} supported / "
        f"{fig['claims']['not_supported']} not supported ({fig['claims']['by_file']})",
        f"  healthy stream at P={fig['healthy']:g} (support {1 - fig['healthy']:g}); incidents: "
        f"{p0:g} -> {p1:g} for 30 min every {fig['incident_every_s']}s",
        f"  {'rule':<22}{'false pages/week [95%]':>28}{'pages/incident':>16}"
        f"{'detect p50/p90 s':>18}{'detected':>10}{'half-width':>12}{'judge rate@':>12}",
    ]
    for name, r in fig["rules"].items():
        lo, hi = r["false_pages_per_week_interval"]
        fp = f"{r['false_pages_per_week']:.2f} [{lo:.2f}, {hi:.2f}]"
        delay = f"{_f(r['detection_delay_p50_s'], '.0f')}/{_f(r['detection_delay_p90_s'], '.0f')}"
        lines.append(
            f"  {name:<22}{fp:>28}{r['pages_per_incident']:>16.2f}{delay:>18}"
            f"{_f(r['detected_share'], '.2f'):>10}{_f(r['halfwidth_median']):>12}"
            f"{_f(r.get('judge_rate_for_target_delay'), 'g'):>12}"
        )
    if "target_delay_s" in fig:
        lines.append(
            f"  judge rate@: smallest judge rate with a median detection delay <= "
            f"{fig['target_delay_s']:g}s (n/a: none up to 1)"
        )
    lines.append(
        "  false pages: firings on the healthy stream, Garwood 95% interval; detection: first "
        "firing after an incident's start (missed: counted as never); half-width: the 95% "
        "interval's, median over the healthy stream"
    )
    return "\n".join(lines)
