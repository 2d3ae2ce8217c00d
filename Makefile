# Polygon's two everyday commands. Both install from this checkout into .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test lint setup setup-dev clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

setup: $(BIN)/python
	$(BIN)/python -m pip install -q -e .

setup-dev: $(BIN)/python
	$(BIN)/python -m pip install -q -e ".[dev,voice]"

## Set up and run the offline demo: both demo agents on the bundled suite, compared.
demo: setup
	$(BIN)/polygon demo

## Set up and run the test suite (SQLite always; Postgres on 127.0.0.1:5432 when it is up), on
## PYTEST_WORKERS processes (pytest-xdist; each test file stays on one worker): 6-13 min on 2 cores.
PYTEST_WORKERS ?= 2
test: setup-dev
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile

## Lint with the rules in pyproject.toml ([tool.ruff]) and type-check ([tool.mypy]: the packages it lists).
lint: setup-dev
	$(BIN)/ruff check .
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .polygon build dist *.egg-info
