# stablegraph's entry points. `make test` and `make demo` bootstrap a fresh machine:
# a virtual environment in .venv, the package and its test extras (installed again
# only when pyproject.toml changes), graphviz's `dot` binary (Debian package), and
# Debian's chromium with its driver (the explorer's browser test).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-pyproject
PYTEST_ARGS ?=
# the suite runs on 2 worker processes, each test file whole in one (its module-level graphs and
# fixtures stay together), the longest files first (tests/conftest.py): XLA compiles on one core,
# so this about halves the wall time on 2 cores
TEST_WORKERS ?= 2

export PIP_DISABLE_PIP_VERSION_CHECK := 1
export DEBIAN_FRONTEND := noninteractive

.PHONY: all setup dot cxx browser test sweep test-gpu demo lint bench clean

all: test

setup: $(STAMP) dot cxx browser

# Debian's python3 has no ensurepip until python3-venv is installed: do that once, as root.
$(PY):
	@$(PYTHON) -m venv $(VENV) || { \
	  rm -rf $(VENV); \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "python3 -m venv failed: installing python3-venv"; \
	    apt-get update -q && apt-get install -y -q python3-venv && $(PYTHON) -m venv $(VENV); \
	  else echo "python3 -m venv failed: install python3-venv" >&2; exit 1; fi; }

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --progress-bar off -q -e ".[test]"
	touch $(STAMP)

dot:
	@command -v dot >/dev/null && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "graphviz's dot is missing: apt-get install graphviz"; \
	  apt-get update -q && apt-get install -y -q --no-install-recommends graphviz; \
	else \
	  echo "graphviz's dot is missing and cannot be installed here (needs root and apt-get)" >&2; exit 1; \
	fi

# sg.ffi.build compiles the C++ kernels of examples/ffi and tests/backend/ffi_kernels with g++ (issue 25).
cxx:
	@command -v g++ >/dev/null && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "g++ is missing: apt-get install g++"; \
	  apt-get update -q && apt-get install -y -q --no-install-recommends g++; \
	else \
	  echo "g++ is missing and cannot be installed here (needs root and apt-get)" >&2; exit 1; \
	fi

browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null && exit 0; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "chromium or chromedriver is missing: apt-get install chromium chromium-driver"; \
	  apt-get update -q && apt-get install -y -q --no-install-recommends chromium chromium-driver; \
	else \
	  echo "chromium/chromedriver are missing and cannot be installed here (needs root and apt-get)" >&2; exit 1; \
	fi

test: setup
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not gpu and not sweep" $(PYTEST_ARGS)

# The special-point tier (tests/special_points/, the tests marked `sweep`): the sweep in both float
# families, first and second derivatives, and the regression tests of what it found (edges/).
# `make test` leaves these out (it keeps the sweep's coverage checks), to stay within its 10
# minutes; CI runs this after it. Without STABLEGRAPH_FULL_SWEEP=1
# the same tests sweep float32 values only (each test file's IN_SUITE): a quicker look. The stats
# sweep runs first, alone: its graphs are the largest, and beside another worker it neared this
# machine's 24 GB.
sweep: setup
	STABLEGRAPH_FULL_SWEEP=1 $(PY) -m pytest -m sweep tests/special_points/test_stats_points.py $(PYTEST_ARGS)
	STABLEGRAPH_FULL_SWEEP=1 $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile -m sweep tests/special_points \
	  --ignore tests/special_points/test_stats_points.py $(PYTEST_ARGS)

# On a machine with an NVIDIA GPU: the CUDA plugin extra, then the GPU tests (tests/gpu/).
test-gpu: setup
	$(PY) -m pip install --progress-bar off -q -e ".[test,cuda13]"
	$(PY) -m pytest -m gpu tests/gpu

demo: setup
	$(PY) -m stablegraph.demo

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

bench: $(STAMP) cxx
	$(PY) benchmarks/dispatch.py
	$(PY) benchmarks/steps_per_call.py
	$(PY) benchmarks/grad.py
	$(PY) benchmarks/train_step.py
	$(PY) benchmarks/random_compile.py
	$(PY) benchmarks/per_example_grads.py
	$(PY) benchmarks/convnet.py
	$(PY) benchmarks/attention.py
	$(PY) benchmarks/linalg.py
	$(PY) benchmarks/scipy_signal.py
	$(PY) benchmarks/sparse_solvers.py
	$(PY) benchmarks/data_parallel.py
	$(PY) benchmarks/ffi.py
	$(PY) benchmarks/first_result.py
	$(PY) benchmarks/training_loop.py

clean:
	rm -rf out .pytest_cache .ruff_cache .hypothesis .import_linter_cache build *.egg-info
