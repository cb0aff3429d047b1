"""monitor's checking modules import only the standard library and small pure libraries."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

MONITOR = Path(__file__).resolve().parents[3] / "monitor"
FORBIDDEN = {
    "faust",
    "mode",
    "aiokafka",
    "kafka",
    "prometheus_client",
    "openai",
    "grafana_client",
    "httpx",
    "structlog",
}
# Modules of monitor/ that are allowed to talk to the outside world (the shell's adapters).
IMPURE = {"settings.py", "judge/call.py", "judge/client.py"}


def _pure_modules() -> list[Path]:
    return sorted(p for p in MONITOR.rglob("*.py") if str(p.relative_to(MONITOR)) not in IMPURE)


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def test_there_are_pure_modules() -> None:
    names = {p.name for p in _pure_modules()}
    assert {"check.py", "decode.py", "spans.py", "scoring.py"} <= names


@pytest.mark.parametrize("path", _pure_modules(), ids=lambda p: str(p.relative_to(MONITOR)))
def test_pure_module_imports(path: Path) -> None:
    bad = _imports(path) & FORBIDDEN
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_the_check_does_not_pull_in_io_libraries() -> None:
    # Importing the checking entry point in a clean interpreter loads none of the I/O stacks.
    import subprocess
    import sys

    code = (
        "import sys, monitor.check, monitor.inputs.decode, monitor.output.verdict_io;"
        f"bad = sorted(m for m in {sorted(FORBIDDEN)!r} if m in sys.modules);"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
