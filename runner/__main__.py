"""`python -m runner` is the `demorun` command."""
from .launch import main

main()
