# The two commands the README opens with: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install demo test test-all bench clean

$(BIN)/demorun: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/demorun

demo: install
	$(BIN)/demorun run demos/quickstart.md

# Tests need a real terminal multiplexer and a real browser; install them when missing.
test: install
	@command -v tmux >/dev/null || (apt-get update -qq && apt-get install -y -qq tmux)
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium) || echo "chromium unavailable: browser tests will skip"
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/pytest -q
	$(BIN)/demorun check demos README.md

bench: install
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
