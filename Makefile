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

# The live presenter is tested in a real terminal (tmux), the HTML report in a real browser
# (chromium). Installed when missing where that is allowed (root and apt-get); anywhere else
# their tests skip, and pytest's summary says which and why.
tools:
	@for tool in tmux chromium; do \
	  command -v $$tool >/dev/null && continue; \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$tool) \
	      || echo "make: $$tool could not be installed: the tests that need it will skip"; \
	  else \
	    echo "make: $$tool is not installed (installing it needs root and apt-get): the tests that need it will skip"; \
	  fi; \
	done

# Lint and types first (seconds), then the suite on two workers (pytest-xdist), then the
# project's own workshops and README through demorun itself.
test: install tools
	$(BIN)/ruff check runner tests tools bench
	$(BIN)/mypy
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/pytest -q -n 2
	$(BIN)/demorun check demos README.md

# The default suite, plus the whole corpus where it takes a sample (-m exhaustive), and property
# tests drawing new examples each run (the default suite draws the same ones every time).
test-all: install tools
	HYPOTHESIS_PROFILE=explore PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/pytest -q -n 2 -m "exhaustive or not exhaustive"

bench: install
	$(BIN)/pip install --quiet -e '.[bench]'
	$(BIN)/python bench/run_all.py

# This tree against an earlier revision, in the same run: make bench-revisions BASE=<commit>
bench-revisions: install
	$(BIN)/python bench/revisions.py --base $(BASE)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
