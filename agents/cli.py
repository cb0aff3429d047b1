"""`ragmon`: one entry point, a subcommand per job (`ragmon SUBCOMMAND --help`)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from agents.checking import fastcore
from agents.commands import COMMANDS

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    from monitor import __version__

    parser = argparse.ArgumentParser(
        prog="ragmon",
        description="Live citation and hallucination monitor for RAG answers on Kafka.",
    )
    parser.add_argument("--version", action="version", version=f"ragmon {__version__}")
    parser.add_argument(
        "--config", metavar="FILE", help="YAML settings file (also RAGMON_CONFIG_FILE)"
    )
    parser.add_argument(
        "--core",
        choices=fastcore.CHOICES,
        default="auto",
        help="checking core: the mypyc-compiled one when `make fast` built it for these sources "
        "(auto, the default), or always the pure Python one, or compiled-or-fail",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"agents.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"agents.commands.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        # before anything imports `monitor`: the compiled core replaces it only then
        fastcore.activate(fastcore.choice_from_argv(arguments))
    except (RuntimeError, ValueError) as exc:
        print(f"ragmon: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from monitor.errors import RagmonError

    parser = build_parser()
    args = parser.parse_args(arguments)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except RagmonError as exc:
        print(f"ragmon {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":
    sys.exit(main())
