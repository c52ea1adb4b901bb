"""Run every benchmark in this folder, one after the other (`make bench`)."""
import subprocess
import sys
from pathlib import Path

here = Path(__file__).resolve().parent
failed = []
for script in sorted(here.glob("*.py")):
    if script.name == Path(__file__).name:
        continue
    print(f"== {script.name}", flush=True)
    if subprocess.run([sys.executable, str(script)], cwd=here.parent).returncode:
        failed.append(script.name)
if failed:
    sys.exit(f"benchmarks that failed: {', '.join(failed)}")
