"""The compiled checking core: `monitor`'s hot modules built with mypyc, used when fresh.

`make fast` (`python -m agents.checking.fastcore build`) copies `monitor/` to `build/fastcore/monitor`,
compiles the modules of the per-event path there with mypyc, and writes a manifest of the
source files' hashes. `activate()` (called by the CLI before anything imports `monitor`) puts
that copy first on `sys.path` only when the manifest matches the sources as they are now, so an
edited source is never shadowed by an old build: a stale or missing build means the pure
Python core, and says why. The copy lives outside the source tree for the same reason: no
extension module sits next to the file it was built from.

The compiled modules are the same code; mypyc only turns typed Python into C. Tests check
that both cores give identical verdicts (tests/agents/checking/test_fastcore.py).

This module imports nothing from `monitor`: it must run before `monitor` is imported.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "monitor"
DEFAULT_BUILD = SOURCE.parent / "build" / "fastcore"
MANIFEST = "manifest.json"
# The per-event path (decode → extract → resolve → split → support → score) and what it calls.
HOT_MODULES = (
    "monitor/check.py",
    "monitor/inputs/decode.py",
    # vendor envelopes (docs/inputs.md): the adapters and the claims they hand over
    "monitor/inputs/envelope.py",
    "monitor/inputs/jsonread.py",
    "monitor/inputs/passages.py",
    "monitor/inputs/located.py",
    "monitor/inputs/anthropic_messages.py",
    "monitor/inputs/openai_api.py",
    "monitor/inputs/cohere_v2.py",
    "monitor/inputs/gemini_content.py",
    "monitor/inputs/llamaindex_response.py",
    "monitor/inputs/langchain_retrieval.py",
    "monitor/checks/given.py",
    "monitor/records/models.py",
    "monitor/config/options.py",
    "monitor/citations/extract.py",
    "monitor/citations/grammar.py",
    "monitor/citations/markdown.py",
    "monitor/citations/resolve.py",
    "monitor/text/excerpt.py",
    "monitor/citations/values.py",
    "monitor/citations/windows.py",
    "monitor/checks/claims.py",
    "monitor/text/sentences.py",
    "monitor/checks/quotes.py",
    "monitor/checks/support.py",
    "monitor/checks/evidence.py",
    "monitor/checks/contrast.py",
    "monitor/checks/contrast_sentences.py",
    "monitor/checks/contrast_negation.py",
    "monitor/checks/contrast_names.py",
    "monitor/text/opposites.py",
    "monitor/text/units.py",
    "monitor/text/dates.py",
    "monitor/checks/grounding.py",
    "monitor/text/references.py",
    # what the grounding of uncited claims calls: refusals, and data rendered as evidence
    "monitor/text/abstention.py",
    "monitor/text/refusal_gate.py",
    "monitor/checks/data_text.py",
    "monitor/checks/data_claims.py",
    "monitor/checks/data_context.py",
    "monitor/text/words.py",
    "monitor/text/numbers.py",
    "monitor/output/spans.py",
    "monitor/checks/scoring.py",
    # what the worker does with every verdict: judge sampling, audit, verdict encoding
    "monitor/output/audit.py",
    "monitor/output/verdict_io.py",
    "monitor/sampling/policy.py",
    # the audit record's words and the count vector's estimation sums (every failing answer,
    # every answer)
    "monitor/output/audit_text.py",
    "monitor/output/citation_why.py",
    "monitor/estimation/window.py",
    "monitor/estimation/vector.py",
    "monitor/judge/request.py",
    "monitor/judge/plan.py",
)
CHOICES = ("auto", "pure", "compiled")
VALUED_GLOBAL_OPTIONS = ("--config",)  # the CLI's global options that take a value


class BuildFailed(Exception):
    """mypyc or the C compiler failed; the message holds the tail of their output."""


def source_hashes(source: Path = SOURCE) -> dict[str, str]:
    """sha256 of every file of the `monitor` package (any edit makes a build stale)."""
    out: dict[str, str] = {}
    for path in sorted(source.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".so":
            rel = path.relative_to(source.parent).as_posix()
            out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def build(dest: Path = DEFAULT_BUILD, source: Path = SOURCE, quiet: bool = False) -> Path:
    """Copy `source` into `dest`, compile the hot modules there, write the manifest."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        raise BuildFailed("no C compiler found: the compiled core needs gcc (the pure core works)")
    hashes = source_hashes(source)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    shutil.copytree(source, dest / "monitor", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    started = time.monotonic()
    cmd = [sys.executable, "-m", "mypyc", *HOT_MODULES]
    if not quiet:
        print(f"compiling {len(HOT_MODULES)} modules with mypyc in {dest} ...", file=sys.stderr)
    done = subprocess.run(cmd, cwd=dest, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
        raise BuildFailed(f"mypyc exited with {done.returncode}:\n{tail}")
    shutil.rmtree(dest / "build", ignore_errors=True)  # intermediate C files and objects
    (dest / MANIFEST).write_text(json.dumps({"sources": hashes}, indent=1), encoding="utf-8")
    if not quiet:
        print(f"compiled core built in {time.monotonic() - started:.0f} s", file=sys.stderr)
    return dest


def freshness(dest: Path | None = None, source: Path = SOURCE) -> str | None:
    """None when `dest` holds a build of the sources as they are now; else why not."""
    dest = DEFAULT_BUILD if dest is None else dest
    manifest = dest / MANIFEST
    if not manifest.exists():
        return f"no compiled core in {dest} (make fast builds one)"
    try:
        built = json.loads(manifest.read_text(encoding="utf-8"))["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return f"unreadable manifest {manifest}"
    now = source_hashes(source)
    changed = sorted(k for k in built.keys() | now.keys() if built.get(k) != now.get(k))
    if changed:
        return f"compiled core is stale ({', '.join(changed[:3])} changed; make fast rebuilds)"
    return None


def activate(choice: str = "auto", dest: Path | None = None) -> str:
    """Put a fresh compiled core first on sys.path; returns "compiled" or "pure: <reason>".

    `choice`: auto (compiled when fresh), pure, compiled (an error when not available).
    """
    if choice not in CHOICES:
        raise ValueError(f"core must be one of {', '.join(CHOICES)}, not {choice!r}")
    if choice == "pure":
        return "pure: asked for"
    dest = DEFAULT_BUILD if dest is None else dest
    reason = freshness(dest)
    if reason is None and "monitor" in sys.modules:
        reason = "monitor was imported before the compiled core could be activated"
    global _why_pure
    if reason is not None:
        if choice == "compiled":
            raise RuntimeError(reason)
        _why_pure = reason
        return f"pure: {reason}"
    sys.path.insert(0, str(dest))
    return "compiled"


_why_pure: str | None = None  # what activate() found, when it chose the pure core


def core_kind() -> str:
    """Which core this process runs: "compiled" or "pure" (after `monitor` is imported)."""
    module = sys.modules.get("monitor.check")
    origin = getattr(module, "__file__", "") or ""
    return "compiled" if origin.endswith((".so", ".pyd")) else "pure"


def describe() -> str:
    """`core_kind()`, with the reason when a compiled build exists but was not used (for the
    worker's start-up line and the bench: the one place a user looks for it)."""
    kind = core_kind()
    if kind == "pure" and _why_pure is not None and "stale" in _why_pure:
        return f"pure ({_why_pure})"
    return kind


def choice_from_argv(argv: list[str]) -> str:
    """The value of the global `--core X` / `--core=X`, before or after the subcommand (pre-parse:
    the core must be chosen before the parser's modules import `monitor`); the last one wins, as
    in argparse. Nothing after `--` is an option."""
    choice = "auto"
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            break
        if arg.startswith("--core="):
            choice = arg.split("=", 1)[1]
        elif arg == "--core" and i + 1 < len(argv):
            choice = argv[i + 1]
            i += 1
        elif arg in VALUED_GLOBAL_OPTIONS:
            i += 1  # its value is not an option even if it looks like one
        i += 1
    return choice


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.checking.fastcore",
        description="Build or inspect the mypyc-compiled checking core.",
    )
    parser.add_argument("action", choices=("build", "status"))
    parser.add_argument("--dest", type=Path, default=DEFAULT_BUILD, help="build directory")
    args = parser.parse_args(argv)
    if args.action == "status":
        reason = freshness(args.dest)
        print("compiled core: fresh" if reason is None else f"compiled core: {reason}")
        return 0 if reason is None else 1
    try:
        build(args.dest)
    except BuildFailed as exc:
        print(f"fastcore: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
