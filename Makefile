# Two entry points: `make demo` (install, then a demo game of bots) and `make test`
# (install with the training and dev tools, then lint, type-check and run the tests).
# `make compiled` builds the hot modules with mypyc in place (the tests then run on it, and
# tests/test_compiled.py holds it to the pure sources); `make pure` removes it again.
# `make test-compiled` builds them apart, in build/compiled, and runs tests/test_compiled.py
# on that build (CI runs it after `make test`).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
TORCH := torch==2.13.0

.PHONY: demo test lint compiled test-compiled pure clean

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

test: lint
	$(BIN)/pytest

compiled: $(DEV_STAMP)
	SM_ENV_COMPILE=1 $(BIN)/python -m pip install --quiet --no-deps -e .

test-compiled: $(DEV_STAMP)
	rm -rf build/compiled
	SM_ENV_COMPILE=1 $(BIN)/python -m pip install --quiet --no-deps --target build/compiled .
	PYTHONPATH=$(CURDIR)/build/compiled $(BIN)/pytest tests/test_compiled.py

pure:
	rm -f sm_env/core/*.so sm_env/*.so *__mypyc*.so

clean: pure
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
