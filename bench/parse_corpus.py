"""Parsing and linting every workshop of the corpus in one process, against a floor measured now.

Run by hand: `python3 bench/parse_corpus.py [--runs N]`. Target: parse and lint the whole
corpus in under 2 s. The floor is reading the same files; a synthetic workshop of growing
size shows whether parsing stays linear (time per command roughly flat from 1x to 10x).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import CORPUS, ROOT, run_main  # noqa: E402

sys.path.insert(0, str(ROOT))
from runner.discover import find_workshops  # noqa: E402
from runner.modes.lint import lint_findings  # noqa: E402
from runner.parse.workshop import parse_text, parse_workshop  # noqa: E402

TARGET = 2.0
BLOCK = """\
## Step {n}

Some prose about step {n}.

```bash
kubectl get pods -n demo-{n}
## NAME        READY   STATUS
## web-{n}     1/1     Running
cat <<EOF > file-{n}.yaml
kind: ConfigMap
EOF
for i in 1 2 3; do
  echo "$i"
done
```

<!-- @wait_clear -->
"""


def best(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"skipped: no corpus at {CORPUS}")
        return 0
    files = [path for path, _ in find_workshops([str(CORPUS)], scripts=True)]

    def read_all():
        for f in files:
            Path(f).read_bytes()

    def parse_all():
        for f in files:
            parse_workshop(f, no_init=True)

    def lint_all():
        lint_findings([str(CORPUS)], no_init=True)

    floor = best(read_all, args.runs)
    parse = best(parse_all, args.runs)
    lint = best(lint_all, args.runs)
    print(f"{len(files)} workshops under {CORPUS}")
    print(f"{'read every file (floor)':<34} {floor * 1000:>8.1f} ms")
    print(f"{'parse every file':<34} {parse * 1000:>8.1f} ms  x{parse / floor:.0f} floor")
    print(f"{'lint the corpus (parse + bash)':<34} {lint * 1000:>8.1f} ms  x{lint / floor:.0f} floor")
    print(f"target: under {TARGET:.0f} s ({'met' if lint < TARGET else 'MISSED'})")

    base = None
    for scale in (100, 300, 1000):
        text = "".join(BLOCK.format(n=n) for n in range(scale))
        seconds = best(lambda text=text: parse_text(text, "synthetic.md"), max(1, args.runs // 2))
        per = seconds / (scale * 3)
        base = base or per
        print(f"synthetic, {scale * 3:>5} commands: {seconds * 1000:>8.1f} ms, "
              f"{per * 1e6:.1f} us/command, x{per / base:.2f} of the smallest")
    return 0 if lint < TARGET else 1


if __name__ == "__main__":
    run_main(main)
