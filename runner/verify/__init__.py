"""Checks real output against `##` expected output as docs/matching.md says."""
