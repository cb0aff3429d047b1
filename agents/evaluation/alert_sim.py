"""The alert simulator behind `ragmon eval --alerts`: weeks of one app's stream in minutes.

What it simulates, second by second: answers arriving (Poisson, `rate` per second) of 1-5 claims
each (uniform), every claim drawn with its real cheap score from labelled claims
(agents/evaluation/claim_pool.py): not supported with probability P(t), the schedule's true rate
at that second, supported otherwise. A share `judge_rate` of answers is judged; the judge answers
the human labels of the answer's claims `judge_delay` seconds later, into the answer's bucket, as
the aggregate agent places a judge record. The window is the aggregate agent's: `step`-second
buckets, the last ceil(window/step) of them (agents/stream/aggregate.py WindowAggregator.rolling).

What decides: the real code. Each rule of the rules file on an estimated figure is run by
monitor.alerting.alerts.evaluate on WindowFigures.from_counts of the window's sums, so the
estimator, the rule's bound and its state machine are the product's.

How it is fast: the window sums of every second come from cumulative sums (exact integers, as in
the window table), and the rule's bound of every second from agents/evaluation/window_vec.py
(the estimator on arrays). A second is handed to the real code unless (a) the rule is inactive
and the vectorised bound is on the healthy side of the threshold by more than MARGIN: there the
real evaluate provably returns "inactive, no transition" (nothing else moves an inactive rule);
or (b) the rule fires and the second can change nothing: the bound clearly not back past
resolve_at while the quiet clock (keep_firing_for) is stopped, clearly back while it runs and
has not run out, or a hold. Skipping changes no transition. Wherever the real code runs, its bound is checked against the
vectorised one (a disagreement beyond MARGIN is an error). tests/agents/evaluation/test_alert_sim.py
replays streams through the real code every second and through WindowAggregator and compares.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.evaluation.claim_pool import ClaimPool
from agents.evaluation.window_vec import rate_bounds
from monitor.alerting.alerts import ESTIMATED, AlertRule, AlertState, WindowFigures, evaluate
from monitor.estimation.window import SCALE

MARGIN = 1e-9
WEEK = 7 * 86400
CHUNK = 6 * 3600  # seconds simulated per vectorised block (memory: ~30 arrays of this length)

#: the sums the simulator keeps per second (the rest of ESTIMATION_FIELDS stay 0: every claim
#: of a simulated answer is judgeable, none is decided by rule)
ANSWER_SUMS = ("all_n", "all_m", "all_mm", "all_f", "all_ff", "all_mf")
LABEL_SUMS = (
    "lab_n", "lab_m", "lab_mm", "lab_f", "lab_ff", "lab_mf", "lab_s", "lab_ss", "lab_sf",
    "lab_sm", "lab_h", "lab_hh", "lab_hf", "lab_hm",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Stream:
    rate: float  # answers per second
    judge_rate: float
    seconds: int
    schedule: Callable[[Any], Any]  # array of seconds → array of true not-supported shares
    judge_delay: int = 2
    min_claims: int = 1
    max_claims: int = 5
    step: int = 60
    window: int = 300
    seed: int = 0

    @property
    def buckets(self) -> int:
        return max(1, math.ceil(self.window / self.step - 1e-9))


@dataclass
class Answers:
    """One block's answers: arrival second, claim count, scaled score sum, labels, judged."""

    second: Any
    m: Any
    f: Any
    s: Any
    h: Any
    judged: Any
    scores: Any = None  # per claim (scaled), with `owner` the answer index: replay tests only
    owner: Any = None


def draw_answers(
    stream: Stream, pool: ClaimPool, start: int, end: int, rng: Any, keep_claims: bool = False
) -> Answers:
    """The answers arriving in seconds [start, end)."""
    seconds = np.arange(start, end)
    per_second = rng.poisson(stream.rate, size=seconds.size)
    second = np.repeat(seconds, per_second)
    m = rng.integers(stream.min_claims, stream.max_claims + 1, size=second.size)
    owner = np.repeat(np.arange(second.size), m)
    p_bad = np.asarray(stream.schedule(second), dtype=np.float64)[owner]
    bad = rng.random(owner.size) < p_bad
    good_scores = np.round(np.asarray(pool.supported) * SCALE).astype(np.int64)
    bad_scores = np.round(np.asarray(pool.not_supported) * SCALE).astype(np.int64)
    scores = np.where(
        bad,
        bad_scores[rng.integers(0, bad_scores.size, size=owner.size)],
        good_scores[rng.integers(0, good_scores.size, size=owner.size)],
    )
    n = second.size
    f = np.bincount(owner, weights=scores, minlength=n).astype(np.int64)
    h = np.bincount(owner, weights=bad, minlength=n).astype(np.int64)
    judged = rng.random(n) < stream.judge_rate
    out = Answers(second, m.astype(np.int64), f, m - h, h, judged)
    if keep_claims:
        out.scores, out.owner = scores, owner
    return out


def per_second(answers: Answers, start: int, end: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Sums of the answers' window counts and of the judged answers' label sums, per arrival
    second in [start, end) (integers, as the window table adds them)."""
    idx = answers.second - start
    size = end - start
    m, f, s, h = answers.m, answers.f, answers.s, answers.h
    one = np.ones_like(m)
    terms = {
        "n": one, "m": m, "mm": m * m, "f": f, "ff": f * f, "mf": m * f,
    }  # fmt: skip

    def add(values: Any, mask: Any = None) -> Any:
        if mask is None:
            return np.bincount(idx, weights=values, minlength=size).astype(np.int64)
        return np.bincount(idx[mask], weights=values[mask], minlength=size).astype(np.int64)

    all_sums = {f"all_{k}": add(v) for k, v in terms.items()}
    j = answers.judged
    lab_terms = {
        **terms, "s": s, "ss": s * s, "sf": s * f, "sm": s * m,
        "h": h, "hh": h * h, "hf": h * f, "hm": h * m,
    }  # fmt: skip
    lab_sums = {f"lab_{k}": add(v, j) for k, v in lab_terms.items()}
    return all_sums, lab_sums


class Windows:
    """Window sums at every second of a block, from per-second sums with the history before it."""

    def __init__(self, stream: Stream) -> None:
        self.stream = stream
        self.history = stream.buckets * stream.step + stream.judge_delay + stream.step
        self.carry: dict[str, Any] = {}

    def block(self, start: int, end: int, answers: Answers) -> dict[str, Any]:
        """name → array over seconds [start, end) of the window sums at that second (the window
        of an evaluation at second s holds the answers counted at seconds ≤ s of the last
        `buckets` buckets, and the labels of those answered by s)."""
        st = self.stream
        all_sums, lab_sums = per_second(answers, start, end)
        base = start - self.history
        out: dict[str, Any] = {}
        s = np.arange(start, end)
        first = (s // st.step - (st.buckets - 1)) * st.step  # first second of the window
        for name, arr in {**all_sums, **lab_sums}.items():
            before = self.carry.get(name, np.zeros(self.history, dtype=np.int64))
            full = np.concatenate([before, arr])
            self.carry[name] = full[-self.history :]
            cum = np.concatenate([[0], np.cumsum(full)])  # cum[i] = sum of full[:i]
            lo = np.maximum(first - base, 0)
            last = s if name.startswith("all_") else s - st.judge_delay
            hi = np.maximum(last - base + 1, lo)
            out[name] = cum[hi] - cum[lo]
        out["events"] = out["all_n"]
        out["claims"] = out["all_m"]
        return out


def window_counts(windows: dict[str, Any], i: int) -> dict[str, int]:
    """The counts of one second's window, as WindowAggregator.rolling hands them on."""
    return {k: int(v[i]) for k, v in windows.items() if v[i]}


@dataclass
class RuleRun:
    rule: AlertRule
    state: AlertState = field(default_factory=AlertState)
    fired: list[float] = field(default_factory=list)
    resolved: list[float] = field(default_factory=list)
    real_evaluations: int = 0


def rule_bound(rule: AlertRule, windows: dict[str, Any]) -> Any:
    """The vectorised rule.observed: its bound where it decides, NaN where it holds."""
    _, lower, upper, judged = rate_bounds(windows, rule.figure, rule.level)
    bound = upper if rule.op == "below" else lower
    holds = (judged < rule.min_judged) | (windows["events"] < rule.min_events)
    return np.where(holds, np.nan, bound)


def decided(rule: AlertRule, figures: WindowFigures) -> float | None:
    """What evaluate compares with the thresholds; None where it holds the state."""
    value = rule.observed(figures)
    if value is None or figures.sample_size(rule.figure) < rule.min_events:
        return None
    return value


def step_rules(runs: Sequence[RuleRun], windows: dict[str, Any], start: int, app: str) -> None:
    """Advance every rule through the block's seconds (the real evaluate where it could matter)."""
    size = len(windows["events"])
    for run in runs:
        rule = run.rule
        bound = rule_bound(rule, windows)
        if rule.op == "above":
            maybe = bound > rule.threshold - MARGIN
        else:
            maybe = bound < rule.threshold + MARGIN
        candidates = np.flatnonzero(maybe)  # NaN compares False: holds never breach
        # firing: a second where the bound is clearly not back past resolve_at ("hot") keeps it
        # firing and stops the quiet clock; a hold changes nothing; one clearly back starts the
        # clock or, once it ran keep_firing_for, resolves. Only the seconds where one of those
        # changes the state, or where the vectorised bound is too close to resolve_at to tell,
        # or whose window is empty (no-data resolve), go to the real code.
        r = rule.resolve_threshold
        if rule.op == "above":
            hot, back = bound > r + MARGIN, bound <= r - MARGIN
        else:
            hot, back = bound < r - MARGIN, bound >= r + MARGIN
        hold = np.isnan(bound) & (windows["events"] > 0)
        not_hot = np.flatnonzero(~(hot | hold))  # where an unquiet firing rule may change
        not_quiet = np.flatnonzero(~(back | hold))  # where a quiet one may change before its time
        ci = 0
        i = 0
        while i < size:
            if run.state.status == "inactive":
                while ci < candidates.size and candidates[ci] < i:
                    ci += 1
                if ci == candidates.size:
                    break
                i = int(candidates[ci])
            elif run.state.status == "firing":
                quiet = run.state.quiet_since
                if quiet is None:
                    k = int(np.searchsorted(not_hot, i))
                    j = int(not_hot[k]) if k < not_hot.size else size
                else:
                    due = max(i, math.ceil(quiet + rule.keep_firing_for - start))
                    k = int(np.searchsorted(not_quiet, i))
                    j = min(int(not_quiet[k]) if k < not_quiet.size else size, due)
                i = j
                if i >= size:
                    break
            counts = window_counts(windows, i)
            figures = WindowFigures.from_counts(app, float(start + i), **counts)
            value = decided(rule, figures)
            fast = bound[i]
            if (value is None) != bool(np.isnan(fast)) or (
                value is not None and abs(value - fast) > MARGIN
            ):
                raise AssertionError(
                    f"{rule.name} at {start + i}s: the vectorised bound {fast} is not the real {value}"
                )
            run.state, change = evaluate(rule, run.state, figures)
            run.real_evaluations += 1
            if change is not None:
                (run.fired if change.kind == "firing" else run.resolved).append(change.at)
            i += 1


@dataclass
class SimResult:
    runs: list[RuleRun]
    seconds: int
    halfwidths: dict[str, list[float]]  # figure → sampled 95% half-widths of the window
    answers: int


def simulate(
    stream: Stream,
    pool: ClaimPool,
    rules: Sequence[AlertRule],
    app: str = "sim",
    halfwidth_every: int = 60,
) -> SimResult:
    rng = np.random.default_rng(stream.seed)
    runs = [RuleRun(r) for r in rules if r.figure in ESTIMATED and r.applies_to(app)]
    windows = Windows(stream)
    halfwidths: dict[str, list[float]] = {f: [] for f in ESTIMATED}
    answers = 0
    for start, end in blocks(stream.seconds):
        drawn = draw_answers(stream, pool, start, end, rng)
        answers += int(drawn.second.size)
        w = windows.block(start, end, drawn)
        sampled = {k: v[::halfwidth_every] for k, v in w.items()}
        for figure in ESTIMATED:
            _, lo, hi, _ = rate_bounds(sampled, figure)
            half = (hi - lo) / 2
            halfwidths[figure].extend(float(x) for x in half[~np.isnan(half)])
        step_rules(runs, w, start, app)
    return SimResult(runs, stream.seconds, halfwidths, answers)


def blocks(seconds: int, size: int = CHUNK) -> Iterator[tuple[int, int]]:
    for start in range(0, seconds, size):
        yield start, min(seconds, start + size)
