PYTHON ?= python3
VENV := .venv
STAMP := $(VENV)/.installed

HOST ?= 127.0.0.1
PORT ?= 8000
DOMINO_DB ?= instance/domino.sqlite3
DOMINO_BOT_DELAY_MS ?= 700

.PHONY: run test lint fmt bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV) && $(VENV)/bin/pip install -q --upgrade pip && $(VENV)/bin/pip install -q -e '.[dev]' && touch $@

run: $(STAMP)
	mkdir -p instance
	DOMINO_DB="$(DOMINO_DB)" DOMINO_BOT_DELAY_MS="$(DOMINO_BOT_DELAY_MS)" \
		$(VENV)/bin/flask --app app run --host "$(HOST)" --port "$(PORT)"

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/python -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

fmt: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

bench: $(STAMP)
	$(VENV)/bin/python bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
