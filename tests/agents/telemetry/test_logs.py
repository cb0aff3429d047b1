"""Library log lines (aiokafka, Faust) come out in ragmon's own format, not raw between ours."""

from __future__ import annotations

import io
import json
import logging

import structlog

from agents.telemetry.logs import configure_logging


class NotATerminal(io.StringIO):
    def isatty(self) -> bool:
        return False


def test_stdlib_and_structlog_lines_are_both_json_lines_off_a_terminal() -> None:
    out = NotATerminal()
    configure_logging("INFO", "auto", stream=out)
    try:
        structlog.get_logger("ragmon.test").warning("ours", n=1)
        logging.getLogger("aiokafka.conn").error("Unable connect to node with id 1")
        logging.getLogger("aiokafka.conn").info("below the libraries' floor: not shown")
    finally:
        configure_logging("INFO", "auto")  # back to the process's stderr
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["event"], r["level"]) for r in lines] == [
        ("ours", "warning"),
        ("Unable connect to node with id 1", "error"),
    ]
    assert lines[1]["logger"] == "aiokafka.conn" and "timestamp" in lines[1]


def test_configuring_twice_leaves_one_handler() -> None:
    configure_logging("INFO", "json", stream=NotATerminal())
    configure_logging("INFO", "json", stream=NotATerminal())
    ours = [h for h in logging.getLogger().handlers if getattr(h, "_ragmon", False)]
    assert len(ours) == 1
