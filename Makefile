# Two entry points (see README): `make run` (the main job) and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# torch 2.13.0 is the CPU build on development machines; triton is pinned so interpreter results reproduce;
# ray and pyarrow are here for the tests of the Ray executor (a local Ray cluster) and the Parquet export;
# statsmodels for the GLM of `kbx report` (the `analysis` extra); pytest-xdist runs the tests in TEST_WORKERS
# processes, a file to a process (`--dist loadfile`: the largest file, the suite's integrity test, starts first).
DEPS := torch==2.13.0 triton==3.9.0 numpy pytest pytest-xdist==3.8.0 ruff ray==2.60.0 pyarrow==26.0.1 \
	statsmodels==0.15.0
TEST_WORKERS ?= 2

.PHONY: setup setup-browser run test lint

$(BIN)/kbx: pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet $(DEPS)
	$(BIN)/pip install --quiet --no-deps -e .
	touch $@

setup: $(BIN)/kbx

# Debian's Chromium for the HTML report's browser test (tests/analysis/test_report_browser.py skips without it).
setup-browser:
	command -v chromium >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium)

run: setup
	$(BIN)/kbx run $(ARGS)

lint: setup
	$(BIN)/ruff check src tests scripts

test: lint
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile $(ARGS)
