PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

HOST ?= 127.0.0.1
PORT ?= 8000
DOMINO_DB ?= instance/domino.sqlite3
DOMINO_BOT_DELAY_MS ?= 700
SHARDS ?= 2
REPLICA ?=

CATALOGS := $(wildcard domino/translations/*/LC_MESSAGES/messages.po)
COMPILED := $(CATALOGS:.po=.mo)

.PHONY: run serve cluster restore test test-fast lint fmt bench clean messages snapshot

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV) && $(VENV)/bin/pip install -q --upgrade pip && $(VENV)/bin/pip install -q -e '.[dev]' && touch $@

# The catalogs are compiled by the setup, never by hand (the .mo files are not in git).
%.mo: %.po $(STAMP)
	$(VENV)/bin/pybabel compile --statistics -i $< -o $@

# Re-extract the messages after changing user-facing text, then translate the new entries.
messages: $(STAMP)
	$(VENV)/bin/pybabel extract -F babel.cfg -k N_ --no-location --omit-header \
		-o domino/translations/messages.pot .
	$(VENV)/bin/pybabel update --no-fuzzy-matching -i domino/translations/messages.pot \
		-d domino/translations

run: $(STAMP) $(COMPILED)
	mkdir -p instance
	DOMINO_DB="$(DOMINO_DB)" DOMINO_BOT_DELAY_MS="$(DOMINO_BOT_DELAY_MS)" \
		$(VENV)/bin/python app.py --host "$(HOST)" --port "$(PORT)"

# Production: one gevent worker holds every socket; its settings are in gunicorn.conf.py.
serve: $(STAMP) $(COMPILED)
	mkdir -p instance
	DOMINO_DB="$(DOMINO_DB)" DOMINO_BOT_DELAY_MS="$(DOMINO_BOT_DELAY_MS)" \
		$(VENV)/bin/gunicorn -c gunicorn.conf.py --bind "$(HOST):$(PORT)" "app:create_app()"

# Many shards and the lobby (on PORT+1000) behind nginx on PORT, each replicated by Litestream, under supervisord (docs/cluster.md); Ctrl-C stops them all. nginx is Debian's package: apt-get install nginx.
cluster: $(STAMP) $(COMPILED)
	DOMINO_BOT_DELAY_MS="$(DOMINO_BOT_DELAY_MS)" $(VENV)/bin/python -m domino.cluster run \
		--shards "$(SHARDS)" --host "$(HOST)" --port "$(PORT)" $(if $(REPLICA),--replica "$(REPLICA)")

# Bring shard SHARD's database (SHARD=lobby: the lobby's) back from its replica, its processes stopped first.
restore: $(STAMP)
	$(VENV)/bin/python -m domino.cluster restore "$(SHARD)" $(if $(REPLICA),--replica "$(REPLICA)")

test: $(STAMP) $(COMPILED)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo
	$(VENV)/bin/python -m pytest --durations=15

# The fast tier (docs/testing.md): the pure core, rooms and the web through Flask's test client;
# no server process, no browser, no live threads; the slow-marked ones and fewer Hypothesis
# examples left to `make test`. Its tests share nothing, so they run on every core (pytest-xdist);
# `make test` stays one process, in order.
test-fast: $(STAMP) $(COMPILED)
	HYPOTHESIS_PROFILE=fast $(VENV)/bin/python -m pytest tests/core tests/room tests/lobby tests/web \
		-m "not slow and not browser" -n auto --durations=5

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo

fmt: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# After a deliberate change to what tables show: the render corpus's digests, checked by
# tests/web/test_render_snapshot.py, written again (commit them with the change).
snapshot: $(STAMP) $(COMPILED)
	$(VENV)/bin/python tools/render_corpus.py --digests tests/web/render_corpus.sha256

bench: $(STAMP)
	$(VENV)/bin/python -m bench.engine

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .import_linter_cache .hypothesis build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
