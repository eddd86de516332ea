# Lookout: `make run` starts the demo against the simulator; `make test` runs every test
# (on SQLite, then the database tests again on a private PostgreSQL).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# One stamp per lock file: `make run` installs the runtime packages only, the test and
# tool targets add the dev lock, and a change to either lock reinstalls.
RUNTIME_STAMP := $(VENV)/.installed-runtime
DEV_STAMP := $(VENV)/.installed-dev
PIP_COMPILE := $(VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links

.PHONY: run test test-postgres test-fast lint bench lock clean wall-shots messages

$(RUNTIME_STAMP): requirements.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Lookout needs Python 3.11 or newer")'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@bash scripts/test-prerequisites.sh --build
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --require-hashes -r requirements.txt
	touch $(RUNTIME_STAMP)

$(DEV_STAMP): $(RUNTIME_STAMP) requirements-dev.txt
	$(PY) -m pip install --quiet --require-hashes -r requirements.txt -r requirements-dev.txt
	touch $(DEV_STAMP)

# The ports are checked first, so a busy one stops `make run` before it prints anything.
run: $(RUNTIME_STAMP)
	@$(PY) manage.py run_stack --check-ports
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo_admin
	$(PY) manage.py build_js_catalogs
	$(PY) manage.py run_stack

# Two passes. The first runs every test on SQLite (the embedded default; DATABASE_URL
# is emptied so a developer's own does not leak in). The second runs the tests that use
# a database again on PostgreSQL, browser tests aside: tests/support/postgres_server.py
# initdb's a private server in a temporary folder, starts it on a free loopback port,
# runs pytest with DATABASE_URL pointing at it and stops and removes it however pytest
# ends. LOOKOUT_TEST_DATABASE names each pass; tests/test_database_backend.py checks it.
# Each pass runs in two pytest processes (pytest-xdist), a test file to a process, so a
# file's module fixtures (a simulator, a Redis, a seeded database) start once: CI has two
# cores, and many tests spend their time waiting on a subprocess or a browser.
TEST_PROCESSES ?= 2
PARALLEL := -n $(TEST_PROCESSES) --dist loadfile
PG_PASS := $(PY) -m tests.support.postgres_server $(PY) -m pytest $(PARALLEL) --only-database-tests -m "not browser"

test: $(DEV_STAMP)
	bash scripts/test-prerequisites.sh
	DATABASE_URL= LOOKOUT_TEST_DATABASE=sqlite $(PY) -m pytest $(PARALLEL)
	$(PG_PASS)

# The PostgreSQL pass alone.
test-postgres: $(DEV_STAMP)
	bash scripts/test-prerequisites.sh
	$(PG_PASS)

test-fast: $(DEV_STAMP)
	$(PY) -m pytest $(PARALLEL) -m "not integration and not browser"

# The translation checks (scripts/check-translations.py): user-visible strings that
# cannot be translated, then, for each language with a catalog in locale/, a catalog
# that makemessages would change or one under 100 %. msgfmt comes from Debian's gettext.
lint: $(DEV_STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) scripts/audit-dependencies.py
	bash scripts/test-prerequisites.sh --gettext
	$(PY) scripts/check-translations.py --templates source catalogs complete

# Brings every catalog in locale/ up to date with the sources (makemessages for each
# language of LANGUAGES but English, both domains), then compiles them. A new language:
# add it to LANGUAGES, run this, translate locale/<language>/LC_MESSAGES/*.po.
messages: $(DEV_STAMP)
	bash scripts/test-prerequisites.sh --gettext
	$(PY) scripts/check-translations.py --update

bench: $(DEV_STAMP)
	$(PY) bench/poll_cycle.py

# Renders every wall state at 1920x1080 and copies the screenshots docs/wall.md shows.
wall-shots: $(DEV_STAMP)
	$(PY) -m pytest -q tests/browser/test_wall_states.py -k 1920x1080
	for shot in test-artifacts/wall-state-*-1920x1080.png; do \
		name=$${shot#test-artifacts/wall-state-}; cp $$shot docs/wall/$${name%-1920x1080.png}.png; \
	done

# Rewrites both lock files from requirements.in and requirements-dev.in (docs/development.md: Adding a dependency).
lock: $(DEV_STAMP)
	CUSTOM_COMPILE_COMMAND="make lock" $(PIP_COMPILE) -o requirements.txt requirements.in
	CUSTOM_COMPILE_COMMAND="make lock" $(PIP_COMPILE) -o requirements-dev.txt requirements-dev.in

clean:
	rm -rf var .pytest_cache
