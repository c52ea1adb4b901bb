"""bash as the judge of where commands end: one interactive bash tells, line by line.

An interactive bash prints PS1 before the first line of a command and PS2 before
each line that continues one (heredoc bodies included), even when it reads a
pipe. So feeding it text and reading its prompts back labels every line
"starts" or "continues", exactly as bash splits it. The generated commands are
harmless (PATH is empty, so only builtins run; loops never iterate).
"""
from __future__ import annotations

import os
import select
import shutil
import subprocess
import time

_PS1, _PS2, _SYNC = b"\x01A\x02", b"\x01B\x02", b"\x01S"
_SETUP = ("PS1=$'\\x01A\\x02'; PS2=$'\\x01B\\x02'; PS0=; unset PROMPT_COMMAND; "
          "set +m +H; shopt -s extglob; cd /\n")


class BashOracle:
    """One long-lived interactive bash reading a pipe; `labels(lines)` per fence."""

    def __init__(self) -> None:
        self.serial = 0
        self._start()

    def _start(self) -> None:
        # No PATH: whatever word the grammar puts first, only builtins can run.
        env = {"PATH": "/nonexistent", "LC_ALL": "C.UTF-8", "HOME": "/"}
        bash = shutil.which("bash") or "/bin/bash"
        self.proc = subprocess.Popen([bash, "--norc", "--noprofile", "--noediting", "-i"],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, env=env, cwd="/")
        self.buffer = b""
        self.proc.stdin.write(_SETUP.encode())
        self._sync(restart=False)

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()

    def _sync(self, restart: bool = True) -> bytes:
        """Everything bash wrote to stderr up to a fresh sync token."""
        self.serial += 1
        token = _SYNC + f"__oracle_{self.serial}".encode() + b"\x02"
        self.proc.stdin.write(f"printf '\\x01S%s\\x02' __oracle_{self.serial} >&2\n".encode())
        self.proc.stdin.flush()
        fd = self.proc.stderr.fileno()
        deadline = time.monotonic() + 0.5
        while token not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                self.close()  # bash still wants more: start afresh for the next text
                if restart:
                    self._start()
                raise TimeoutError("bash did not come back from the text (left waiting for more?)")
            data = os.read(fd, 65536)
            if not data:
                raise EOFError("bash exited")
            self.buffer += data
        said, _, self.buffer = self.buffer.partition(token)
        return said

    def labels(self, lines: list[str]) -> tuple[list[str], str]:
        """Per line "start" or "cont" as bash read it, and what else bash said (errors)."""
        self.proc.stdin.write(("\n".join(lines) + "\n").encode())
        said = self._sync()
        prompts, rest, i = [], bytearray(), 0
        while i < len(said):
            if said.startswith(_PS1, i) or said.startswith(_PS2, i):
                prompts.append("start" if said.startswith(_PS1, i) else "cont")
                i += 3
            else:
                rest.append(said[i])
                i += 1
        # The prompt before the sync line itself is the last one.
        return prompts[:len(lines)], rest.decode("utf-8", "replace")
