# The two commands the README opens with: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: install demo tools test test-all bench bench-revisions clean

$(BIN)/demorun: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

install: $(BIN)/demorun

demo: install
	$(BIN)/demorun run demos/quickstart.md
	@echo "make: demorun is installed in $(VENV)/bin: run '. $(VENV)/bin/activate' to call it as demorun, or call $(BIN)/demorun"

# The live presenter is tested in a real terminal (tmux), the HTML report in a real browser
# (chromium). Installed when missing where that is allowed (root and apt-get), after saying so on
# the first line; NO_APT=1 skips that (NO_APT=0 or empty does not). Anywhere else, or skipped, their tests skip, and pytest's
# summary says which and why.
NO_APT ?=
tools:
	@missing=""; for tool in tmux chromium; do command -v $$tool >/dev/null || missing="$$missing $$tool"; done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ -n "$(NO_APT)" ] && [ "$(NO_APT)" != 0 ]; then \
	  echo "make: not installing$$missing (NO_APT is set): the tests that need them will skip"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "make: installing$$missing with apt-get (chromium brings ~200 packages; make test NO_APT=1 skips this)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing) \
	    || echo "make:$$missing could not be installed: the tests that need them will skip"; \
	else \
	  echo "make:$$missing not installed (installing needs root and apt-get): the tests that need them will skip"; \
	fi

# Lint and types first (seconds), then the suite on two workers (pytest-xdist), then the
# project's own workshops and README through demorun itself.
test: tools install
	$(BIN)/ruff check runner tests tools bench
	$(BIN)/mypy
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/pytest -q -n 2
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/demorun check demos README.md

# The default suite, plus the whole corpus where it takes a sample (-m exhaustive), and property
# tests drawing new examples each run (the default suite draws the same ones every time).
test-all: tools install
	HYPOTHESIS_PROFILE=explore PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/pytest -q -n 2 -m "exhaustive or not exhaustive"

bench: install
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/run_all.py

# This tree against an earlier revision, in the same run: make bench-revisions BASE=<commit>
bench-revisions: install
	$(BIN)/python bench/revisions.py --base $(BASE)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
