"""ragmon's shell: Faust app factory, agents, CLI. The checking itself lives in `monitor`."""

from __future__ import annotations
