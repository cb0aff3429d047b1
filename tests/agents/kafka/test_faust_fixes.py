"""The Faust fixes install as one unit, and refuse a faust-streaming they were not written for."""

from __future__ import annotations

import pytest

from agents.kafka import faust_fixes
from monitor.config.errors import DependencyVersionError, RagmonError
from monitor.config.settings import Settings


def test_the_installed_faust_is_one_the_fixes_were_written_for() -> None:
    assert faust_fixes.installed_faust_version() in faust_fixes.SUPPORTED_FAUST
    faust_fixes.check_version()


@pytest.mark.parametrize("found", ["0.15.4", "0.16.0", "0.11.0", "not installed"])
def test_another_version_is_refused_with_a_clear_error(found: str) -> None:
    with pytest.raises(DependencyVersionError) as info:
        faust_fixes.check_version(found)
    err = info.value
    assert isinstance(err, RagmonError)
    assert (err.package, err.found) == ("faust-streaming", found)
    assert f"faust-streaming {found} is installed" in str(err)
    assert "faust-streaming==0.15.3" in str(err)


def test_an_app_is_not_built_on_an_unsupported_faust(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.stream.app import AppDeps, create_app

    monkeypatch.setattr(faust_fixes, "installed_faust_version", lambda: "0.16.0")
    with pytest.raises(DependencyVersionError):
        create_app(Settings(), AppDeps())


def test_every_fix_names_the_failure_and_its_test() -> None:
    import importlib
    from pathlib import Path

    folder = Path(faust_fixes.__file__).parent
    names = sorted(p.stem for p in folder.glob("*.py") if p.stem != "__init__")
    assert names == ["fetch_fix", "fetch_wait", "recovery_fix", "resume_fix", "revoke_fix"]
    root = folder.parents[2]
    for name in names:
        doc = importlib.import_module(f"agents.kafka.faust_fixes.{name}").__doc__ or ""
        assert "Shown by: tests/" in doc, name
        shown = doc.split("Shown by: ")[1].split()[0]
        assert (root / shown).is_file(), f"{name} names a test that does not exist: {shown}"
    listed = (root / "docs" / "faust-fixes.md").read_text()
    for name in names:
        assert f"{name}.py" in listed
