# Two entry points, each self-installing into .venv (see README):
#   make demo   train a small MaskablePPO agent on promise_war_v0 and report its win rate
#   make test   lint, type-check and run the whole test suite, the Ray tests in .venv-rllib (CI)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# The constraints file pins torch to the CPU build, so no CUDA wheel is ever pulled.
PIP_INSTALL := $(PY) -m pip install --quiet --constraint .ci/constraints.txt
DEPS := pyproject.toml setup.py .ci/constraints.txt

# The rllib extra lives in a venv of its own: ray[rllib] pins gymnasium (1.2.2 for ray 2.60)
# while .venv tests the newest gymnasium.
RLLIB_VENV ?= .venv-rllib
RLLIB_PY := $(RLLIB_VENV)/bin/python
# AgileRL pins tensordict (and so pettingzoo < 1.27) against torchrl's: a venv of its own too.
AGILERL_VENV ?= .venv-agilerl
AGILERL_PY := $(AGILERL_VENV)/bin/python

.PHONY: demo test test-rllib test-agilerl lint bench clean browser mutate mutate-status docs

$(PY):
	$(PYTHON) -m venv $(VENV)

# plot and web: the README's next commands after the demo (cardarena curves draws with
# matplotlib; cardarena serve is the table in a browser).
$(VENV)/.installed-train: $(DEPS) | $(PY)
	$(PIP_INSTALL) -e ".[train,fast,plot,web]"
	touch $@

$(VENV)/.installed-dev: $(DEPS) | $(PY)
	$(PIP_INSTALL) -e ".[train,dev,plot,fast,bench,web,docs]"
	touch $@

demo: $(VENV)/.installed-train
	$(PY) -m cardarena.training.demo

lint: $(VENV)/.installed-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy envs agents training evaluation cli bench web openspiel

# The documentation site (docs/site: Sphinx, MyST, furo) into build/docs: every page read afresh
# (-E, so no warning hides in a cached page), warnings as errors, then every internal link and
# anchor of the built pages checked (scripts/check_site_links.py; nothing goes to the network).
# The game pages, rules, CLI reference and notebooks are generated from the code at each build.
# tests/docs builds it too (CI), and opens each game's page in the browser.
DOCS_OUT ?= build/docs
docs: $(VENV)/.installed-dev
	$(PY) -m sphinx -E -W --keep-going -q -b html docs/site $(DOCS_OUT)
	$(PY) scripts/check_site_links.py $(DOCS_OUT)
	@echo "the site: $(DOCS_OUT)/index.html"

# The browser tests (tests/web) drive Debian's chromium through Playwright; nothing downloads a
# browser of its own. As root it is installed here; otherwise the tests say how and skip
# (CARDARENA_REQUIRE_BROWSER=1, set by .ci/run, makes a missing browser a failure).
BROWSER ?= /usr/bin/chromium
browser:
	@if [ ! -x $(BROWSER) ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	elif [ ! -x $(BROWSER) ]; then \
		echo "no $(BROWSER): the browser tests skip (sudo apt-get install chromium)"; fi

# -n auto: pytest-xdist, one worker per core; --dist worksteal: a worker that runs out takes
# queued tests from the other, so a long test at the end does not leave a core idle. The Ray
# and AgileRL venvs install meanwhile, started first so that their unpacking and byte-compiling
# (minutes of one core) overlap the one-core lint and the browser's install rather than the
# tests; a log is shown only when its install fails.
test: $(VENV)/.installed-dev
	@$(MAKE) --no-print-directory $(RLLIB_VENV)/.installed $(AGILERL_VENV)/.installed \
		> $(RLLIB_VENV).log 2>&1 & \
	installing=$$!; \
	$(MAKE) --no-print-directory lint browser && $(PY) -m pytest -n auto --dist worksteal; tests=$$?; \
	wait $$installing; installed=$$?; \
	if [ $$installed -ne 0 ]; then cat $(RLLIB_VENV).log; exit $$installed; fi; \
	exit $$tests
	$(MAKE) test-rllib
	$(MAKE) test-agilerl

$(RLLIB_PY):
	$(PYTHON) -m venv $(RLLIB_VENV)

$(RLLIB_VENV)/.installed: $(DEPS) | $(RLLIB_PY)
	$(RLLIB_PY) -m pip install --quiet --constraint .ci/constraints.txt -e ".[train,dev,rllib]"
	touch $@

# The RLlib backend on a real two-node Ray cluster (tests marked rllib), and the conformance
# suite again under Ray's gymnasium pin: what touches gymnasium (spaces, PettingZoo's own
# tests, wrappers, the golden games). The rules-only checks there (masks against the rules,
# resampling) and tests/core, tests/envs do not depend on gymnasium; the main venv runs them.
# CARDARENA_REQUIRE_RLLIB turns a missing ray into a failure.
test-rllib: $(RLLIB_VENV)/.installed
	CARDARENA_REQUIRE_RLLIB=1 $(RLLIB_PY) -m pytest -n auto --dist worksteal -p no:cacheprovider \
		tests/training/test_rllib.py tests/conformance \
		-k "not mask_is_exactly_what_the_rules_accept and not resample"

$(AGILERL_PY):
	$(PYTHON) -m venv $(AGILERL_VENV)

$(AGILERL_VENV)/.installed: $(DEPS) | $(AGILERL_PY)
	$(AGILERL_PY) -m pip install --quiet --constraint .ci/constraints.txt -e ".[agilerl]"
	touch $@

# AgileRL's IPPO example on every env through the Parallel view (tests marked slow in
# tests/third_party/test_agilerl_example.py, run by this venv's python from the main one).
test-agilerl: $(AGILERL_VENV)/.installed $(VENV)/.installed-dev
	CARDARENA_REQUIRE_AGILERL=1 CARDARENA_AGILERL_PYTHON=$(AGILERL_PY) $(PY) -m pytest \
		-p no:cacheprovider tests/third_party/test_agilerl_example.py

bench: $(VENV)/.installed-dev
	$(PY) bench/throughput.py

# Mutation testing (not in CI: hours for every module). cosmic-ray mutates each module of
# scripts/mutation.toml in copies of the repo and runs the tests mapped to it there; the report
# is kept in docs/mutation/ (docs/contributing.md). MODULE=path runs one module, JOBS copies run
# at once (nice'd: the machine stays usable), RECHECK=1 reruns only the kept survivors,
# CHANGED=1 only the mutants of lines changed since the kept run (merged into it).
# `make mutate-status` lists which kept reports are of today's source (it runs no mutant);
# RENDER=1 only rewrites the reports (after a reason was added to equivalent.toml).
MODULE ?=
JOBS ?= 2
RECHECK ?=
SESSIONS ?=
RESUME ?=
CHANGED ?=
RENDER ?=
mutate: $(VENV)/.installed-dev
	nice -n 10 $(PY) scripts/mutants.py --jobs $(JOBS) $(if $(MODULE),--module $(MODULE)) \
		$(if $(RECHECK),--recheck) $(if $(SESSIONS),--sessions $(SESSIONS)) \
		$(if $(RESUME),--resume) $(if $(CHANGED),--changed) $(if $(RENDER),--render)

mutate-status: $(VENV)/.installed-dev
	$(PY) scripts/mutants.py --status $(if $(MODULE),--module $(MODULE))

clean:
	rm -rf $(VENV) $(RLLIB_VENV) $(RLLIB_VENV).log $(AGILERL_VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
