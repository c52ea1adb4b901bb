"""`o`: the last shown command's output again, in a pager, for a table whose header scrolled away."""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess

OUTPUT_KEPT = 8 * 1024 * 1024  # bytes of a command's output kept for the pager; the start matters most
# less with colours, on its own screen, and never quitting at once on a short output, whatever $LESS says.
LESS_ARGS = ("-R", "-+F", "-+X")


def pager_command() -> list[str] | None:
    """less if there is one (it puts the screen back), else the presenter's $PAGER, else more."""
    less = shutil.which("less")
    if less:
        return [less, *LESS_ARGS]
    words = shlex.split(os.environ.get("PAGER") or "") or ["more"]
    return words if shutil.which(words[0]) else None


def show_in_pager(output: bytes, cut: bool) -> str | None:
    """Page `output` on this terminal; a reason when there is no pager to do it."""
    argv = pager_command()
    if argv is None:
        return "(no pager found: install less or set PAGER)"
    text = output.replace(b"\r\n", b"\n")
    if cut:
        text += f"\n(demorun kept the first {OUTPUT_KEPT // (1024 * 1024)} MiB of this output)\n".encode()
    # Ctrl-C belongs to the pager; the show itself must not die of it.
    previous = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        subprocess.run(argv, input=text, check=False)
    except OSError as exc:
        return f"(the pager {argv[0]} did not start: {exc.strerror or exc})"
    finally:
        signal.signal(signal.SIGINT, previous)
    return None
