"""The drivers of each command line mode: check, run, update, list and lint, and their shared setup."""
