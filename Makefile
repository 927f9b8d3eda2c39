# patchperf: the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint pytest eval bench clean

# (Re)install when the venv is missing or pyproject.toml changed since the last install.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/patchperf demo

lint: $(STAMP)
	$(BIN)/ruff check ingest analyze reports corpus tests
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

test: lint pytest

# Claim extraction against our own gold set (tests/data/claims); pytest runs it too.
eval: $(STAMP)
	$(BIN)/python tests/claims_eval.py tests/data/claims

bench: $(STAMP)
	$(BIN)/python tests/bench/run_bench.py

clean:
	rm -rf $(VENV) .demo .pytest_cache .ruff_cache
