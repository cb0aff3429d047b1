"""One module per `ragmon` subcommand, each exposing `register(subparsers)`.

`register` adds a parser and sets `func=run` where `run(args) -> int` is the exit code.
"""

from __future__ import annotations

# Order is the order of `ragmon --help`. A module that does not exist yet is skipped.
COMMANDS: tuple[str, ...] = (
    "demo",
    "broker",
    "worker",
    "produce",
    "check",
    "eval",
    "grafana",
    "audit",
    "dlq",
    "label",
    "bench",
)
