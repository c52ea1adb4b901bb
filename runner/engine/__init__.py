"""The engine: one walk over a plan, run in one session, told to listeners.

`walk` decides what each step is for, `timeouts` how long a command may
take, `core` runs and judges commands, `listener` is what modes hear,
`signals` what Ctrl-C and SIGTERM do.
"""
