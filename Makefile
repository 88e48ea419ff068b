# Two entry points: `make run` (the demo pipeline) and `make test`. Both bootstrap .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PRESET ?= demo

.PHONY: run test ui bench sql report clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[openspiel]"
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev,dask,openspiel]"
	touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	$(BIN)/jbag run --preset $(PRESET)

test: $(VENV)/.installed-dev
	$(BIN)/python -m pytest -q

ui: $(VENV)/.installed
	mkdir -p data/dagster_home && cp -n dagster.yaml data/dagster_home/ 2>/dev/null || true
	DAGSTER_HOME=$${DAGSTER_HOME:-$(CURDIR)/data/dagster_home} $(BIN)/dg dev -h 127.0.0.1

bench: $(VENV)/.installed-dev
	$(BIN)/python -c "import pyspiel" 2>/dev/null || $(BIN)/python -m pip install --quiet -e ".[dev,dask,bench]"
	$(BIN)/jbag bench $(BENCH_ARGS)

sql: $(VENV)/.installed
	$(BIN)/jbag sql

report: $(VENV)/.installed
	$(BIN)/jbag report

clean:
	rm -rf $(VENV)
