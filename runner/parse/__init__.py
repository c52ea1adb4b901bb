"""Workshops (Markdown or shell) into Plans: every step with its file:line."""
