# Lookout: `make run` starts the demo against the simulator; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint bench clean

$(STAMP): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Lookout needs Python 3.11 or newer")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $(STAMP)

run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo_admin
	$(PY) manage.py run_stack

test: $(STAMP)
	bash scripts/test-prerequisites.sh
	$(PY) -m pytest

test-fast: $(STAMP)
	$(PY) -m pytest -m "not integration and not browser"

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

bench: $(STAMP)
	$(PY) bench/poll_cycle.py

clean:
	rm -rf var .pytest_cache
