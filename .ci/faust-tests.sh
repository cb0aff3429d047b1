#!/usr/bin/env bash
# Faust's own unit and functional tests as a guard on ragmon's Faust fixes (agents/kafka/
# faust_fixes): faust-streaming's sdist ships its tests/; they run here against the installed
# faust-streaming (the version ragmon pins) with every app the suite builds given the fixes
# through `faust_fixes.install`, the call the worker makes (.ci/faust_fixes_plugin.py).
#
# In a venv of their own ($RAGMON_FAUST_VENV, default .venv-faust): the suite wants pytest<8
# and pytest-asyncio 0.21 (its conftest uses the `event_loop` fixture), which ragmon's dev
# venv does not have. The sdist is downloaded once into $RAGMON_WHEELS (default
# ~/.cache/ragmon-wheels). Idempotent; `make faust-tests` runs it, `make test` includes it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FAUST=0.15.3
AIOKAFKA=$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('aiokafka'))" 2>/dev/null || echo 0.14.0)
MODE=$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('mode-streaming'))" 2>/dev/null || echo 0.7.1)
PYTHON=${PYTHON:-python3}
WHEELS=${RAGMON_WHEELS:-$HOME/.cache/ragmon-wheels}
VENV=${RAGMON_FAUST_VENV:-.venv-faust}
STAMP="$VENV/.installed-$FAUST-$AIOKAFKA-$MODE"
SDIST="$WHEELS/faust_streaming-$FAUST.tar.gz"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [ ! -f "$STAMP" ]; then
  echo "faust-tests: preparing $VENV (faust-streaming $FAUST, aiokafka $AIOKAFKA, its test requirements)"
  test -x "$VENV/bin/python" || "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  # the test requirements of faust-streaming's requirements/test.txt that its unit and
  # functional tests import (not its linters, docs or release tools); setuptools_scm and wheel
  # let pip read the sdist's version without building it in an isolated environment
  "$VENV/bin/python" -m pip install --quiet \
    "faust-streaming==$FAUST" "aiokafka==$AIOKAFKA" "mode-streaming==$MODE" \
    "pytest<8" "pytest-asyncio<0.22" "pytest-aiohttp<1.1" hypothesis freezegun \
    python-dateutil pytz intervaltree structlog \
    datadog "opentelemetry-api>=1.23" "opentelemetry-sdk>=1.23" "opentracing>=1.3.0,<=2.4.0" \
    redis "statsd~=4.0.1" pyyaml prometheus_client uvicorn \
    setuptools setuptools_scm wheel
  touch "$STAMP"
fi
if [ ! -f "$SDIST" ]; then
  mkdir -p "$WHEELS"
  "$VENV/bin/python" -m pip download --quiet --no-deps --no-binary :all: --no-build-isolation \
    "faust-streaming==$FAUST" -d "$WHEELS"
fi

PY="$(cd "$VENV" && pwd)/bin/python"
# the tests alone, outside the sdist's tree: `faust` is the installed wheel, not its sources
tar -xzf "$SDIST" -C "$WORK" "faust_streaming-$FAUST/tests"
cd "$WORK/faust_streaming-$FAUST"
cp "$ROOT/.ci/faust_fixes_plugin.py" .
started=$(date +%s)
# No `-W` option: Faust's CLI tests read sys.argv for their own `-W/--workdir` (pytest's
# `-W ignore` made two of them chdir to ./ignore). Warnings are not what this run checks.
PYTHONPATH="$PWD:$ROOT" "$PY" -m pytest -q -p no:cacheprovider \
  -p no:warnings -o addopts="" -o asyncio_mode=auto -p faust_fixes_plugin \
  tests/unit tests/functional
echo "faust-tests: $(( $(date +%s) - started )) s"
