# Two commands do everything on a fresh machine:  `make run`  and  `make test`.
PYTHON ?= python3
VENV   ?= .venv
SCALE  ?= 1000
BIN     = $(VENV)/bin

.PHONY: run test lint bench goddice-sim clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.run-installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.run-installed

## Set up and run the referee: the Discord bot when DISCORD_TOKEN is set (environment or .env), else the console.
run: $(VENV)/.run-installed
	$(BIN)/python bot.py $(ARGS)

## Set up and run the tests (on SQLite, then again on a throwaway PostgreSQL server), then the linters.
test: $(VENV)/.dev-installed
	$(BIN)/python -m pytest $(PYTEST_ARGS)
	$(BIN)/python -m pytest --postgres $(PYTEST_ARGS)
	$(BIN)/ruff check .
	$(BIN)/mypy

## The linters: ruff, then mypy (its files and strictness in pyproject.toml).
lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/mypy

## Benchmarks: issue 35's goal table first (each row beside its reference; bench/goals.py), then engine, replay,
## store and memory figures, then issue 8's scale rows (SCALE games; 10000 for the large rows),
## then issue 20's PostgreSQL rows (1, 2, 4 processes, a throwaway server; skipped, with the reason, when none can start).
bench: $(VENV)/.dev-installed
	$(BIN)/python -m bench.goals
	$(BIN)/python -m bench
	$(BIN)/python -m bench.scale --scale $(SCALE)
	$(BIN)/python -m bench.snapshot
	$(BIN)/python -m bench.web
	$(BIN)/python -m bench.postgres

## God Dice balance: duels between every two characters of a card file (ARGS="--games N --seed S --cards PATH").
goddice-sim: $(VENV)/.run-installed
	$(BIN)/python -m bench.goddice_sim $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
