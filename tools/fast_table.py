"""Writes runner/fast_table.py from click's declarations in runner/cli.py (run after changing them)."""
import pprint
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from runner.cli import fast_table  # noqa: E402

HEADER = '''"""click's table of the commands runner/launch.py starts before click loads: written by
tools/fast_table.py from runner/cli.py, and checked against it by tests/test_launch.py."""

COMMANDS: dict = '''

(ROOT / "runner" / "fast_table.py").write_text(HEADER + pprint.pformat(fast_table(), width=110) + "\n")
