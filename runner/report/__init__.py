"""Reporters: terminal summary, JUnit XML, HTML page, GitHub annotations and asciinema casts."""
