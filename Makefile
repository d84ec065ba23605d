# Mechanism Studio: `make run` opens the app, `make test` runs the whole suite. Both set themselves up.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
MODEL  ?= sample_models/slider_crank_driven.json

.PHONY: run test test-core bench clean-venv help

help:
	@echo "make run    - open Mechanism Studio on the driven slider-crank sample (make run MODEL=file.json opens another)"
	@echo "make test   - set up and run the whole test suite (GUI tests under Xvfb)"
	@echo "make bench  - print the speed and accuracy benchmark tables"

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	@# the dev extra includes the gui and dashboard extras: the editor, the test tools, the Dask dashboard
	$(PY) -m pip install -q -e ".[gui,dev]"
	@# compile the numba kernels once into their on-disk cache, so that no first run pays for it
	$(VENV)/bin/mechstudio warm
	@touch $(STAMP)

run: $(STAMP)
	@if [ -n "$(MODEL)" ]; then $(VENV)/bin/mechstudio open "$(MODEL)"; else $(VENV)/bin/mechstudio; fi

test: $(STAMP)
	@bash scripts/ensure-system-deps.sh
	@bash scripts/run-tests.sh

test-core: $(STAMP)
	$(PY) -m pytest -q -m "not gui"

bench: $(STAMP)
	$(VENV)/bin/mechstudio bench

clean-venv:
	rm -rf $(VENV)
