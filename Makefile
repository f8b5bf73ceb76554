# Two entry points, each self-installing into .venv (see README):
#   make demo   train a small MaskablePPO agent on promise_war_v0 and report its win rate
#   make test   lint, type-check and run the whole test suite (what CI runs)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# The constraints file pins torch to the CPU build, so no CUDA wheel is ever pulled.
PIP_INSTALL := $(PY) -m pip install --quiet --constraint .ci/constraints.txt
DEPS := pyproject.toml setup.py .ci/constraints.txt

.PHONY: demo test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed-train: $(DEPS) | $(PY)
	$(PIP_INSTALL) -e ".[train]"
	touch $@

$(VENV)/.installed-dev: $(DEPS) | $(PY)
	$(PIP_INSTALL) -e ".[train,dev,plot]"
	touch $@

demo: $(VENV)/.installed-train
	$(PY) -m cardarena.training.demo

lint: $(VENV)/.installed-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy envs agents training

test: lint
	$(PY) -m pytest

bench: $(VENV)/.installed-dev
	$(PY) bench/throughput.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
