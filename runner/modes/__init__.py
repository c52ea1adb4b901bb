"""The drivers of each command: present, run, check (and --update), list and lint, and their shared setup."""
