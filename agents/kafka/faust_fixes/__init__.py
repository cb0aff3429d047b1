"""Patches of faust-streaming internals, applied as one unit by `install(app, ...)`.

Each module fixes one failure seen with faust-streaming 0.15.3 on aiokafka 0.14 (its docstring
says which, and which test shows it); docs/faust-fixes.md lists them for upstream. They reach
into private methods, so `install` refuses to run on a faust-streaming version they were not
written for rather than patch code that may have moved: a clear error at start beats a silent
loss under a rebalance.

May import: telemetry (and third-party libraries).
"""

from __future__ import annotations

import importlib.metadata
from typing import Any

from monitor.config.errors import DependencyVersionError

#: the faust-streaming releases these patches were written for and tested against
SUPPORTED_FAUST = ("0.15.3",)


def installed_faust_version() -> str:
    try:
        return importlib.metadata.version("faust-streaming")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def check_version(found: str | None = None) -> None:
    """Raise DependencyVersionError unless faust-streaming is a version the fixes were written for."""
    found = installed_faust_version() if found is None else found
    if found not in SUPPORTED_FAUST:
        supported = ", ".join(SUPPORTED_FAUST)
        raise DependencyVersionError(
            f"faust-streaming {found} is installed; ragmon's Faust fixes "
            f"(agents/kafka/faust_fixes, docs/faust-fixes.md) were written for {supported}. "
            f"Install faust-streaming=={SUPPORTED_FAUST[-1]}, or check each fix against the new "
            "version and add it to SUPPORTED_FAUST.",
            package="faust-streaming",
            found=found,
            supported=supported,
        )


def install(app: Any, *, client_kwargs: dict[str, Any], fetch_max_wait_ms: int) -> None:
    """Apply every fix to `app` (before its worker starts); refuses an unsupported Faust."""
    check_version()
    # imported here: each module patches Faust classes at install time, never at import
    from agents.kafka.faust_fixes import fetch_fix, fetch_wait, recovery_fix, revoke_fix

    recovery_fix.install(app, client_kwargs)  # also brings resume_fix's ordered resume
    fetch_wait.install(app, fetch_max_wait_ms)
    revoke_fix.install(app)
    fetch_fix.install(app)
