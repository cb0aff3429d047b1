"""`ragmon`: one entry point, a subcommand per job (`ragmon SUBCOMMAND --help`)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

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
    add_global_options(parser, default_config=None, default_core="auto")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"agents.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"agents.commands.{name}":
                continue
            raise
        module.register(sub)
    for command in sub.choices.values():
        # after the subcommand too (`ragmon check --config x.yaml f`); SUPPRESS keeps a value
        # given before the subcommand when none is given after it
        add_global_options(
            command, default_config=argparse.SUPPRESS, default_core=argparse.SUPPRESS
        )
    return parser


def add_global_options(
    parser: argparse.ArgumentParser, *, default_config: Any, default_core: Any
) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        default=default_config,
        help="YAML settings file (also RAGMON_CONFIG_FILE)",
    )
    parser.add_argument(
        "--core",
        choices=fastcore.CHOICES,
        default=default_core,
        help="checking core: the mypyc-compiled one when `make fast` built it for these sources "
        "(auto, the default), or always the pure Python one, or compiled-or-fail",
    )


def parse(parser: argparse.ArgumentParser, arguments: list[str]) -> argparse.Namespace:
    """Parse; an option the subcommand does not know is reported with the subcommand's usage
    (argparse itself would print the top-level usage, which lists no option of the subcommand)."""
    args, extra = parser.parse_known_args(arguments)
    if extra:
        command = getattr(args, "command", None)
        chosen = _subparsers(parser).get(command) if command else None
        (chosen or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def report_unknown_variables(environ: Mapping[str, str]) -> None:
    """One warning line per RAGMON_* variable no setting reads (a typo keeps the default)."""
    from monitor.config.envcheck import unknown_variables
    from monitor.config.settings import known_variables

    for unknown in unknown_variables(environ, known_variables()):
        print(f"ragmon: warning: {unknown.message()}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:
        # before anything imports `monitor`: the compiled core replaces it only then
        fastcore.activate(fastcore.choice_from_argv(arguments))
    except (RuntimeError, ValueError) as exc:
        print(f"ragmon: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from monitor.config.errors import RagmonError

    parser = build_parser()
    args = parse(parser, arguments)
    report_unknown_variables(os.environ)
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
