"""Typos in RAGMON_* variables, and error messages that name the variable to fix.

A misspelt variable (RAGMON_BOOTSTRAP_SERVER) is otherwise ignored in silence and the default
applies, which on a worker means the wrong brokers; so every RAGMON_* name that no setting reads
is reported at start, with the closest known name.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PREFIX = "RAGMON_"

#: Read outside the settings object, by the bench, the tests and the build scripts (.ci/), never
#: by a worker: they size a measurement or say where a test's tools are, they configure no
#: monitor, so they stay out of Settings (its fields are the documented configuration of a
#: running ragmon, each a RAGMON_* variable, a YAML key and often a flag). A test keeps this
#: list complete (tests/unit/monitor/config/test_envcheck.py).
TOOLING_PREFIXES = ("RAGMON_BENCH_", "RAGMON_SOAK", "RAGMON_FUZZ_")
TOOLING_NAMES = frozenset(
    {
        "RAGMON_SLOW",
        "RAGMON_SHARED",
        "RAGMON_FAULT_VERBOSE",
        "RAGMON_BENCH",
        "RAGMON_LLM_VENV",  # .ci/llm-server.sh and the judge's real-model test
        "RAGMON_WHEELS",  # the build scripts' wheel and sdist cache
        "RAGMON_FAUST_VENV",  # .ci/faust-tests.sh
    }
)


@dataclass(frozen=True, slots=True)
class UnknownVariable:
    name: str
    suggestion: str | None

    def message(self) -> str:
        hint = f" (did you mean {self.suggestion}?)" if self.suggestion else ""
        return f"unknown variable {self.name} is ignored{hint}"


def env_name(field: str) -> str:
    """The environment variable of a settings field (`partitions` → RAGMON_PARTITIONS)."""
    return PREFIX + field.upper()


def unknown_variables(environ: Mapping[str, str], known: Iterable[str]) -> list[UnknownVariable]:
    """The RAGMON_* names in `environ` that are neither in `known` nor tooling, sorted."""
    names = sorted(set(known))
    out = []
    for name in sorted(environ):
        if not name.startswith(PREFIX) or name in names or name in TOOLING_NAMES:
            continue
        if name.startswith(TOOLING_PREFIXES):
            continue
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
        out.append(UnknownVariable(name, close[0] if close else None))
    return out
