# engage: the two commands of the quick start, and the steps they are made of.
#
#   make run    create .venv, install engage, migrate, create a demo account on a new database
#               (its API key is printed once), serve on http://127.0.0.1:8000
#   make test   create .venv with the dev tools, then lint-imports, ruff, mypy, the library
#               reference (make docs) and pytest
#
# Only Python 3.11+ and make are needed; everything else is installed into .venv.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000
# make run is for development: webhooks may target a receiver on this machine (the SSRF guard refuses
# loopback otherwise). An ENGAGE_WEBHOOK_ALLOWED_HOSTS already in the environment wins.
WEBHOOK_ALLOWED_HOSTS ?= $(or $(ENGAGE_WEBHOOK_ALLOWED_HOSTS),127.0.0.1)
# Two pytest-xdist workers (one per core here) halve the wall time of the suite; override with PYTEST_ARGS=.
PYTEST_ARGS ?= -n auto
# The library reference: Sphinx, every warning an error. -E rereads every page, so a warning is
# reported by every build, not only by the one that first met it.
DOCS_OUT ?= build/docs/reference
SPHINX_BUILD = $(BIN)/sphinx-build -E -W --keep-going -q -b html docs/reference $(DOCS_OUT)

# Stamp files: an install step runs again only when pyproject.toml is newer than its stamp.
INSTALLED_ALL := $(VENV)/.installed-all
INSTALLED_DEV := $(VENV)/.installed-dev

.PHONY: help run install dev migrate test lint typecheck docs pytest format clean distclean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

$(BIN)/python:
	@test -n "$(PYTHON)" || { echo "Python 3.11 or newer is required (python3.11 or python3 on PATH)." >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "engage needs Python 3.11 or newer; $(PYTHON) is $$($(PYTHON) --version)." >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(INSTALLED_ALL): pyproject.toml | $(BIN)/python
	@echo "Installing engage with its runtime extras into $(VENV)..."
	$(BIN)/python -m pip install --quiet --editable '.[all]'
	@touch $@

$(INSTALLED_DEV): pyproject.toml | $(BIN)/python
	@echo "Installing engage with its development tools into $(VENV)..."
	$(BIN)/python -m pip install --quiet --editable '.[dev]'
	@touch $@ $(INSTALLED_ALL)

install: $(INSTALLED_ALL) ## Create .venv and install engage with every runtime extra

dev: $(INSTALLED_DEV) ## Create .venv and install engage with the development tools

run: $(INSTALLED_ALL) ## Migrate, create a demo account on a new database, serve on HOST:PORT
	ENGAGE_WEBHOOK_ALLOWED_HOSTS='$(WEBHOOK_ALLOWED_HOSTS)' $(BIN)/engage serve --demo --host $(HOST) --port $(PORT)

migrate: $(INSTALLED_ALL) ## Apply pending database migrations
	$(BIN)/engage db upgrade

test: $(INSTALLED_DEV) ## Every check CI runs: import contracts, lint, format, types, docs, tests
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(SPHINX_BUILD)
	$(BIN)/pytest $(PYTEST_ARGS)

lint: $(INSTALLED_DEV) ## Import contracts, ruff lint and format check
	$(BIN)/lint-imports
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(INSTALLED_DEV) ## mypy, strict on all five packages
	$(BIN)/mypy

docs: $(INSTALLED_DEV) ## Build the library reference into build/docs/reference (warnings fail it)
	$(SPHINX_BUILD)
	@echo "Open $(DOCS_OUT)/index.html"

pytest: $(INSTALLED_DEV) ## Only the tests (PYTEST_ARGS="-m 'not e2e'" to narrow)
	$(BIN)/pytest $(PYTEST_ARGS)

format: $(INSTALLED_DEV) ## Rewrite the code with ruff format and ruff's safe fixes
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean: ## Remove caches and build output (keeps .venv and the database)
	rm -rf .pytest_cache .mypy_cache .ruff_cache .hypothesis .import_linter_cache build dist *.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -exec rm -rf {} +

distclean: clean ## Also remove .venv
	rm -rf $(VENV)
