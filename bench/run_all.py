"""Every benchmark in this folder, one after the other (`make bench`); fails if any target is missed."""
import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
failed = []
for script in sorted(here.glob("*.py")):
    if script.name in (Path(__file__).name, "common.py", "revisions.py"):  # revisions.py needs --base
        continue
    print(f"== {script.name}", flush=True)
    if subprocess.run([sys.executable, str(script)], cwd=here.parent).returncode:
        failed.append(script.name)
if failed:
    sys.exit(f"benchmarks with a missed target or a missing baseline: {', '.join(failed)}")
