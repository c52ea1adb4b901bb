"""`python -m runner` is the `demorun` command."""
from .cli import main

main()
