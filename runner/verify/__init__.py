"""Checks real output against `##` expected output as docs/matching.md says."""
from .command import verify_command
from .compare import MODES, compare_output
from .normalise import normalise
from .values import Mismatch, VerifyOptions

__all__ = ["MODES", "Mismatch", "VerifyOptions", "compare_output", "normalise", "verify_command"]
