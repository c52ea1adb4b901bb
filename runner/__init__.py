"""demorun: one engine that presents, replays and checks workshop READMEs."""

__version__ = "0.1.0"
