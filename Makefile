# Mechanism Studio: `make run` opens the app, `make test` runs the whole suite. Both set themselves up.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-stamp
MODEL  ?= sample_models/rolling_disk_accelerating_plane.json

.PHONY: run test test-core bench clean-venv help

help:
	@echo "make run    - open Mechanism Studio on the default sample model"
	@echo "make test   - set up and run the whole test suite (GUI tests under Xvfb)"
	@echo "make bench  - print the speed and accuracy benchmark tables"

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[dev]"
	@# compile the numba kernels once into their on-disk cache, so that no first run pays for it
	MECHSTUDIO_KERNELS=compiled $(PY) scripts/warm_kernels.py
	@touch $(STAMP)

run: $(STAMP)
	@[ -f "$(MODEL)" ] && $(VENV)/bin/mechstudio open "$(MODEL)" || $(VENV)/bin/mechstudio open sample_models/four_bar.json

test: $(STAMP)
	@bash scripts/ensure-system-deps.sh
	@bash scripts/run-tests.sh

test-core: $(STAMP)
	$(PY) -m pytest -q -m "not gui"

bench: $(STAMP)
	$(VENV)/bin/mechstudio bench

clean-venv:
	rm -rf $(VENV)
