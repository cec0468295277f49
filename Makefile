# Two entry points: `make demo` (install, then a demo game of bots) and `make test`
# (install with the training and dev tools and Debian's chromium, then lint, type-check and run the tests).
# `make test-compiled` builds the hot modules with mypyc into a wheel installed apart, in
# build/compiled, and runs on that build tests/test_compiled.py (which holds it to this checkout's
# sources), the random stream's tests (its draws on native ints) and the copy and editing tests (CI
# runs it after `make test`). A compiled build is never made in place (build_backend.py).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
TORCH := torch==2.13.0

RLLIB_VENV ?= .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed

.PHONY: demo test lint browser screenshots test-compiled test-rllib clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

# torch first, pinned to the CPU build: sb3 would otherwise pull a multi-GB CUDA build.
$(DEV_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet $(TORCH)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(DEV_STAMP)

demo: $(STAMP)
	$(BIN)/station-master demo --seed 1

lint: $(DEV_STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

# The browser table's tests drive Debian's chromium through Playwright (`playwright install`
# cannot download a browser on these machines).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium; }

# One test process a core; the Ray tests share one (each starts a local Ray cluster).
test: lint browser
	$(BIN)/pytest -n auto --dist loadgroup

# The README's pictures of the browser table, made by its tests.
screenshots: $(DEV_STAMP) browser
	SM_SCREENSHOTS=$(CURDIR)/docs $(BIN)/pytest tests/test_web_browser.py

test-compiled: $(DEV_STAMP)
	rm -rf build/compiled
	SM_ENV_COMPILE=1 $(BIN)/python -m pip install --quiet --no-deps --target build/compiled .
	PYTHONPATH=$(CURDIR)/build/compiled $(BIN)/pytest tests/test_compiled.py tests/test_rng.py tests/test_env_copies.py tests/test_editing.py

# RLlib pins its own Gymnasium: its trainer (`train --algo rllib-ppo`) is tested in a venv of its
# own, with the envs' tests (SB3's checks of them too) on that Gymnasium (CI runs it after `make test`).
$(RLLIB_STAMP): pyproject.toml
	$(PYTHON) -m venv $(RLLIB_VENV)
	$(RLLIB_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(RLLIB_VENV)/bin/python -m pip install --quiet $(TORCH)
	$(RLLIB_VENV)/bin/python -m pip install --quiet -e '.[rl,rllib]' 'pytest>=8'
	touch $(RLLIB_STAMP)

test-rllib: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/pytest tests/test_rllib.py tests/test_env_v1.py tests/test_gym_contract.py

clean:
	rm -rf $(VENV) $(RLLIB_VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
