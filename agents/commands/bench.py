"""`ragmon bench`: performance figures on the standard mix, printed and written as JSON.

Sections are independent so the cheap ones run without a broker. Each figure is the median of
several runs measured in this one process, side by side where a ratio is reported.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.checking import fastcore
from monitor.check import check_bytes, clear_caches
from monitor.config.errors import InputError, RagmonError
from monitor.config.options import CheckOptions

Section = Callable[[argparse.Namespace, list[bytes]], dict[str, Any]]
# Modules defining `SECTIONS: dict[str, Section]` (name -> function(args, events) -> figures);
# a module that does not exist is skipped.
SECTION_MODULES = (
    "agents.bench.e2e",
    "agents.bench.judge",
    "agents.bench.instructions",
    "agents.bench.stages",
)


def sections() -> dict[str, Section]:
    found: dict[str, Section] = {}
    for name in SECTION_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        found.update(module.SECTIONS)
    return found


DEFAULT_GENERATOR = (
    Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "make_events.py"
)


def section_summaries() -> dict[str, str]:
    """Section name → the first line of its function's docstring, read from the modules'
    source: importing them at every `ragmon` start would import the judge and openai (~1 s)."""
    found: dict[str, str] = {}
    for name in SECTION_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
        docs = {
            node.name: ast.get_docstring(node) or ""
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        }
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Name) and t.id == "SECTIONS" for t in targets):
                assert isinstance(node, ast.Assign)
                value = node.value
                if isinstance(value, ast.Dict):
                    for key, fn in zip(value.keys, value.values, strict=True):
                        if isinstance(key, ast.Constant) and isinstance(fn, ast.Name):
                            doc = docs.get(fn.id, "").strip()
                            # the first sentence, across the docstring's line breaks
                            para = " ".join(doc.split("\n\n")[0].split())
                            line = para.split(". ")[0].rstrip(".") if para else "no description"
                            found[str(key.value)] = line.replace("%", "%%")
    return found


def register(sub: Any) -> None:
    p = sub.add_parser(
        "bench",
        help="throughput and latency figures on the standard mix",
        description="Measure ragmon on the standard mix (shared/bench/make_events.py). "
        "Sections: core (pure checks, no broker) and adversarial always run; the others "
        "need the embedded broker and run when asked for with --section.",
    )
    p.add_argument("--events", metavar="FILE", help="JSONL events (default: generate the mix)")
    p.add_argument("--n", type=int, default=10_000, help="events to generate (default 10000)")
    p.add_argument(
        "--runs",
        type=int,
        default=None,
        help="repetitions for medians (default 5; the e2e section's rounds: default 3, "
        "RAGMON_BENCH_E2E_ROUNDS wins)",
    )
    p.add_argument("--generator", default=str(DEFAULT_GENERATOR), help="make_events.py path")
    p.add_argument(
        "--section",
        action="append",
        default=[],
        metavar="SECTION",
        help="extra section to run (repeatable), one of: "
        + "; ".join(f"{name}: {summary}" for name, summary in section_summaries().items())
        + "; or 'all' for every one",
    )
    p.add_argument(
        "--core-only",
        action="store_true",
        help="only the core throughput (no adversarial inputs, no pure-core comparison)",
    )
    p.add_argument("-o", "--output", default="bench-results.json", help="JSON results file")
    p.set_defaults(func=run)


def load_events(args: argparse.Namespace) -> list[bytes]:
    if args.events:
        try:
            return [ln for ln in Path(args.events).read_bytes().splitlines() if ln.strip()]
        except OSError as exc:
            raise InputError(f"cannot read {args.events}: {exc.strerror}") from None
    generator = Path(args.generator)
    if not generator.exists():
        raise InputError(f"standard-mix generator not found at {generator}; pass --events FILE")
    out = subprocess.run(
        [sys.executable, str(generator), "--n", str(args.n)],
        check=True,
        capture_output=True,
    ).stdout
    return out.splitlines()


def core_throughput(events: list[bytes], runs: int, options: CheckOptions) -> dict[str, Any]:
    """Pure checking core, single process: per-run events/s, median µs/event."""
    rates: list[float] = []
    per_event_us: list[float] = []
    for _ in range(runs):
        clear_caches()  # every run cold, as new answers over new documents are
        started = time.perf_counter()
        for raw in events:
            t0 = time.perf_counter()
            check_bytes(raw, options)
            per_event_us.append((time.perf_counter() - t0) * 1e6)
        rates.append(len(events) / (time.perf_counter() - started))
    per_event_us.sort()
    return {
        "events": len(events),
        "runs": runs,
        "events_per_second_median": statistics.median(rates),
        "events_per_second_runs": rates,
        "us_per_event_median": statistics.median(per_event_us),
        "us_per_event_p99": per_event_us[int(len(per_event_us) * 0.99) - 1],
    }


def pure_core_throughput(events: list[bytes], runs: int) -> dict[str, Any]:
    """The same measurement by the pure Python core, in a child process (one process cannot
    hold both versions of `monitor`)."""
    with tempfile.TemporaryDirectory(prefix="ragmon-bench-") as tmp:
        path, out = Path(tmp) / "events.jsonl", Path(tmp) / "pure.json"
        path.write_bytes(b"\n".join(events) + b"\n")
        cmd = [sys.executable, "-m", "agents.cli", "--core", "pure", "bench", "--core-only"]
        cmd += ["--events", str(path), "--runs", str(runs), "-o", str(out)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RagmonError(f"the pure-core run failed: {done.stderr.strip()[-500:]}")
        figures: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))["core_throughput"]
        return figures


def adversarial_inputs() -> dict[str, bytes]:
    mb = 1_000_000
    docs = [{"id": "a.pdf", "text": "x" * 1000}, {"id": "1", "text": "y"}]

    def event(answer: str) -> bytes:
        return json.dumps({"event_id": "adv", "answer": answer, "documents": docs}).encode()

    return {
        "open_brackets": event("[" * mb),
        "unclosed_span_prefixes": event("[a.pdf:1:" * (mb // 9)),
        "numeric_list_prefix": event("[1," * (mb // 3)),
        "many_valid_citations": event("Claim text here [1]. " * (mb // 21)),
        "unclosed_fence": event("```\n" + "[1] " * (mb // 4)),
        "dots_and_digits": event("1." * (mb // 2)),
        "no_spaces": event("a" * mb),
    }


def adversarial(options: CheckOptions) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, raw in adversarial_inputs().items():
        t0 = time.perf_counter()
        check_bytes(raw, options)
        out[name] = {"bytes": len(raw), "seconds": time.perf_counter() - t0}
    return out


def run(args: argparse.Namespace) -> int:
    # --runs given: the e2e section's rounds too (each round is a whole backlog through the
    # broker, so its own default is lower)
    args.e2e_rounds = args.runs if args.runs is not None else 3
    args.runs = args.runs if args.runs is not None else 5
    events = load_events(args)
    options = CheckOptions()
    results: dict[str, Any] = {"python": sys.version.split()[0], "core": fastcore.core_kind()}
    print(f"standard mix: {len(events)} events", file=sys.stderr)
    core = core_throughput(events, args.runs, options)
    results["core_throughput"] = core
    print(
        f"core ({fastcore.describe()}): {core['events_per_second_median']:,.0f} events/s "
        f"(median of {args.runs}), {core['us_per_event_median']:.0f} µs/event median, "
        f"p99 {core['us_per_event_p99']:.0f} µs"
    )
    if not args.core_only:
        if results["core"] == "compiled":
            results.update(compare_with_pure(events, args.runs, core))
        results.update(further_sections(args, events, options))
    Path(args.output).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"results written to {args.output}", file=sys.stderr)
    return 0


def compare_with_pure(events: list[bytes], runs: int, core: dict[str, Any]) -> dict[str, Any]:
    pure = pure_core_throughput(events, runs)
    ratio = core["events_per_second_median"] / pure["events_per_second_median"]
    print(
        f"core (pure, same events, next process): {pure['events_per_second_median']:,.0f} "
        f"events/s, {pure['us_per_event_median']:.0f} µs/event median; compiled/pure {ratio:.2f}"
    )
    return {"core_throughput_pure": pure, "compiled_over_pure": ratio}


def further_sections(
    args: argparse.Namespace, events: list[bytes], options: CheckOptions
) -> dict[str, Any]:
    results: dict[str, Any] = {}
    adv = adversarial(options)
    results["adversarial"] = adv
    worst = max(adv.items(), key=lambda kv: kv[1]["seconds"])
    print(f"adversarial 1 MB answers: worst {worst[0]} {worst[1]['seconds']:.3f} s")
    known = sections()
    wanted = list(known) if "all" in args.section else args.section
    for name in wanted:
        if name not in known:
            raise InputError(f"unknown bench section {name!r}; known: {', '.join(known) or 'none'}")
        print(f"section {name} ...", file=sys.stderr)
        results[name] = known[name](args, events)
        print(f"{name}: {json.dumps(results[name])}")
    return results
