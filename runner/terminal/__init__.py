"""The terminal the audience and the operator see: screen, keys, prose as terminal text, the pager.

Shared by `present` (the live show) and by `run` and `check` (their console output)."""
