# The two commands the README opens with: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install demo test test-all bench bench-revisions clean

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

# This tree against an earlier revision, in the same run: make bench-revisions BASE=<commit>
bench-revisions: install
	$(BIN)/python bench/revisions.py --base $(BASE)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
