# Lookout: `make run` starts the demo against the simulator; `make test` runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# One stamp per lock file: `make run` installs the runtime packages only, the test and
# tool targets add the dev lock, and a change to either lock reinstalls.
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev
PIP_COMPILE := $(VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links

.PHONY: run test test-fast lint bench lock clean

$(RUNTIME_STAMP): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Lookout needs Python 3.11 or newer")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --require-hashes -r requirements.txt
	touch $(RUNTIME_STAMP)

$(DEV_STAMP): $(RUNTIME_STAMP) requirements-dev.txt
	$(PY) -m pip install --quiet --require-hashes -r requirements.txt -r requirements-dev.txt
	touch $(DEV_STAMP)

run: $(RUNTIME_STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo_admin
	$(PY) manage.py run_stack

test: $(DEV_STAMP)
	bash scripts/test-prerequisites.sh
	$(PY) -m pytest

test-fast: $(DEV_STAMP)
	$(PY) -m pytest -m "not integration and not browser"

lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) scripts/audit-dependencies.py

bench: $(DEV_STAMP)
	$(PY) bench/poll_cycle.py

# Rewrites both lock files from requirements.in and requirements-dev.in (README: Adding a dependency).
lock: $(DEV_STAMP)
	CUSTOM_COMPILE_COMMAND="make lock" $(PIP_COMPILE) -o requirements.txt requirements.in
	CUSTOM_COMPILE_COMMAND="make lock" $(PIP_COMPILE) -o requirements-dev.txt requirements-dev.in

clean:
	rm -rf var .pytest_cache
