"""Child process of test_fastcore: pytest with the compiled core imported first.

argv: BUILD_DIR PYTEST_ARGS... . pytest puts the checkout on sys.path ahead of everything, so
the compiled modules are imported before pytest starts; the last line names the file that
`monitor.check` came from.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path


def main(build: str, args: list[str]) -> int:
    sys.path.insert(0, build)
    sys.path.insert(1, str(Path(__file__).resolve().parents[3]))
    from agents.checking.fastcore import HOT_MODULES

    for module in HOT_MODULES:
        importlib.import_module(module.removesuffix(".py").replace("/", "."))
    import pytest

    code = int(pytest.main(args))
    print(f"core file: {sys.modules['monitor.check'].__file__}")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
