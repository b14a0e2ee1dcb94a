# L2 Annot: `make run` for a working app with demo data, `make test` for the whole suite.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PG_URL ?= postgres://postgres@127.0.0.1:5432/test
PORT ?= 8000
# Test processes: one per core (each gets its own test database).
WORKERS ?= $(shell nproc 2>/dev/null || echo 2)

# Django 6.1 needs Python 3.12 or newer: take the first such interpreter that runs.
PYTHON ?= $(shell for p in python3.14 python3.13 python3.12 $$HOME/.pyenv/versions/3.1[234]*/bin/python3 /usr/local/bin/python3.1[234] python3; do \
	  command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null && { command -v $$p; break; }; \
	done)

# Python caches compiled modules in __pycache__/ unless PYTHONDONTWRITEBYTECODE is set, as some
# container images set it; uv does not compile the venv's packages at install either. The suite
# starts dozens of Python processes (test workers, background workers, servers): without the cache
# each compiles Django and every other module again, most of a test worker's start-up.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: messages run serve worker-forever install migrate demo test test-sqlite test-postgres test-browser schemathesis lint format migrations-check bench postgres chromium axe postgres-and-browser clean

# The project is installed with uv (from PyPI into the venv): a fifth of pip's time on a fresh venv.
UV_VERSION := 0.13.8

$(VENV)/.installed: pyproject.toml
	@test -n "$(PYTHON)" || { echo "Python 3.12+ is required (none found)."; exit 1; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet uv==$(UV_VERSION)
	$(VENV)/bin/uv pip install --quiet --python $(PY) -e '.[dev]'
	@touch $@

install: $(VENV)/.installed

migrate: install
	DEBUG=1 $(PY) manage.py migrate --noinput
	DEBUG=1 $(PY) manage.py createcachetable

demo: migrate
	DEBUG=1 $(PY) manage.py seed_demo

# The background worker (imports, reports) runs beside the development server and stops with it.
run: demo
	@DEBUG=1 $(PY) manage.py db_worker & worker=$$!; \
	trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	DEBUG=1 $(PY) manage.py runserver 127.0.0.1:$(PORT)

# Production-like, on this machine: gunicorn (2 x cores + 1 sync workers, see docs/deploy.md) and
# the background worker against PostgreSQL, DEBUG off, static files from collectstatic through
# whitenoise; http://127.0.0.1:$(PORT)/.
# SECRET_KEY, DATABASE_URL and ALLOWED_HOSTS from the environment win; the key is otherwise made
# once into var/secret_key (git-ignored). Cookies are not marked Secure: there is no TLS here.
SERVE_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/l2annot
SERVE_WORKERS ?= $(shell echo $$(( 2 * $$(nproc 2>/dev/null || echo 2) + 1 )))

serve: install postgres
	@mkdir -p var && test -s var/secret_key || (umask 077 && $(PY) -c 'import secrets; print(secrets.token_urlsafe(50))' > var/secret_key)
	@export DEBUG=0 DATABASE_URL="$${DATABASE_URL:-$(SERVE_DATABASE_URL)}" SECRET_KEY="$${SECRET_KEY:-$$(cat var/secret_key)}" \
	  ALLOWED_HOSTS="$${ALLOWED_HOSTS:-127.0.0.1,localhost}" SECURE_COOKIES="$${SECURE_COOKIES:-0}" \
	  SECURE_HSTS_SECONDS="$${SECURE_HSTS_SECONDS:-0}"; \
	$(PY) -c "$$CREATE_DATABASE" && $(PY) manage.py migrate --noinput -v0 && \
	$(PY) manage.py createcachetable && $(PY) manage.py collectstatic --noinput -v0 && \
	{ $(MAKE) --no-print-directory worker-forever & worker=$$!; trap 'kill $$worker 2>/dev/null; wait $$worker' EXIT INT TERM; \
	  $(VENV)/bin/gunicorn l2annot.wsgi --bind 127.0.0.1:$(PORT) --workers $(SERVE_WORKERS) --access-logfile -; }

# The background worker, started again whenever it exits (it does when the database restarts),
# as a service manager would; stops with its worker on INT/TERM.
worker-forever:
	@trap 'kill $$child 2>/dev/null; wait $$child; exit 0' INT TERM; \
	while :; do $(PY) manage.py db_worker & child=$$!; wait $$child; \
	  echo "db_worker exited; starting it again in 2 s" >&2; sleep 2; done

# Creates the database of DATABASE_URL when it is missing (through the server's `postgres` database).
define CREATE_DATABASE
import os, psycopg
from urllib.parse import urlsplit
url = urlsplit(os.environ["DATABASE_URL"])
name = url.path.lstrip("/")
with psycopg.connect(url._replace(path="/postgres").geturl(), autocommit=True) as conn:
    if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
        conn.execute(f'CREATE DATABASE "{name}"')
        print(f"Created database {name}")
endef
export CREATE_DATABASE

postgres:
	@pg_isready -q -h 127.0.0.1 -p 5432 || pg_ctlcluster --skip-systemctl-redirect $$(ls /etc/postgresql) main start
	@for i in $$(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && exit 0; sleep 1; done; echo "PostgreSQL did not start"; exit 1

chromium:
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; }

# axe-core, which the browser tests run on every page they visit, from npm into the virtual
# environment (git-ignored; `make clean` removes it with the rest).
AXE_CORE_VERSION := 4.14.1
AXE_CORE := $(VENV)/node_modules/axe-core/axe.min.js

$(AXE_CORE):
	@mkdir -p $(VENV)
	@command -v npm >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm; }
	npm install --prefix $(VENV) --no-save --no-package-lock --no-audit --no-fund --silent axe-core@$(AXE_CORE_VERSION)

axe: $(AXE_CORE)
	@grep -q '"version": "$(AXE_CORE_VERSION)"' $(VENV)/node_modules/axe-core/package.json || \
	  npm install --prefix $(VENV) --no-save --no-package-lock --no-audit --no-fund --silent axe-core@$(AXE_CORE_VERSION)

# The browser tests and the others that go through HTTP run once, in test-postgres
# (docs/development.md says why).
test-sqlite: install
	$(PY) -m pytest -q -p no:cacheprovider -n $(WORKERS) --dist loadgroup -m "not browser" --skip-http-tests

test-browser: install chromium axe
	$(PY) -m pytest -q -p no:cacheprovider -n $(WORKERS) -m browser

# The tests that reach the database: here again (the pure ones ran in test-sqlite only), and those
# through HTTP and the browser tests for the only time.
test-postgres: install postgres chromium axe
	DATABASE_URL=$(PG_URL) $(PY) -m pytest -q -p no:cacheprovider -n $(WORKERS) --dist loadgroup --database-tests-only

# Lint runs beside the SQLite tests, on the CPU their two test processes leave (about half a
# minute less than one after the other), and so does getting ready what the PostgreSQL run needs
# (on a fresh machine mostly downloads: Chromium, axe-core); each one's output is printed whole
# when it ends.
test: install
	@$(MAKE) --no-print-directory -j3 --output-sync=target lint test-sqlite postgres-and-browser
	@$(MAKE) --no-print-directory test-postgres

# One after the other: apt-get (Chromium, npm for axe-core) runs one at a time.
postgres-and-browser: postgres
	@$(MAKE) --no-print-directory chromium
	@$(MAKE) --no-print-directory axe

# The API against its OpenAPI schema with every Schemathesis check (`--checks all`): 50 examples
# per operation and longer stateful scenarios, as an admin and as an annotator (the suite runs a
# few examples). About 20 minutes; `DATABASE_URL=$(PG_URL) make schemathesis` for PostgreSQL.
schemathesis: install
	SCHEMATHESIS_EXAMPLES=50 $(PY) -m pytest -q -p no:cacheprovider -n 0 tests/api/test_schemathesis.py

# mypy keeps its cache in .mypy_cache/: the first run takes a minute or two, later ones seconds.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy .
	$(PY) manage.py makemigrations --check --dry-run

# The Spanish catalogue (locale/es): gather the marked strings of the Python code, the templates
# and static/*.js into the .po files, then compile the .mo files, both committed. Needs GNU gettext
# (apt-get install gettext); the tests check the .mo files against the .po files without it.
MESSAGE_DIRS := --ignore=.venv --ignore=staticfiles --ignore=var --ignore=media --ignore=tests --ignore=bench --ignore=l2annot.egg-info

messages: install
	@command -v msgfmt >/dev/null || { echo "GNU gettext is required: apt-get install gettext"; exit 1; }
	$(PY) manage.py makemessages --locale=es --no-obsolete --add-location=file $(MESSAGE_DIRS)
	$(PY) manage.py makemessages --locale=es --no-obsolete --add-location=file --domain=djangojs $(MESSAGE_DIRS)
	$(PY) manage.py compilemessages --locale=es $(MESSAGE_DIRS)

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles .mypy_cache
