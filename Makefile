# Two commands do all set-up on a fresh machine:
#   make demo   - create .venv/, install mnemir, load the sample into the embedded default store, then serve the
#                 HTTP API and the web memory browser on it (prints the address; Ctrl-C stops)
#   make test   - create/update .venv/, run the whole test suite (+ ruff)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# the demo needs mnemir and its server extra; the tests also need the dev extra (pytest, ruff, mypy, the embedded
# PostgreSQL, the MCP SDK, LangGraph, Playwright) and Debian's chromium for the browser tests
STAMP  := $(VENV)/.installed
DEV    := $(VENV)/.installed-dev

.PHONY: demo test lint bench bench-env clean venv

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[server]'
	touch $(STAMP)

$(DEV): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# Debian's chromium drives the browser tests; a CJK font lets them check that Chinese renders as glyphs
	{ command -v chromium && dpkg -s fonts-wqy-microhei; } >/dev/null 2>&1 || { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-wqy-microhei; }
	touch $(DEV)

demo: $(STAMP)
	$(BIN)/mnemir demo --serve

test: $(DEV)
	$(BIN)/ruff check src tests bench examples
	$(BIN)/python -m pytest -q -m "not slow" tests

lint: $(DEV)
	$(BIN)/ruff check src tests bench examples
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
