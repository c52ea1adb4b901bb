"""A terminal's bash as the judge of the workshop's shell: the same commands typed into an
interactive bash under tmux and replayed by `demorun run`, and what state probes print after
each compared.

Each command is followed by one probe line, the same text on both sides, that writes to a
file of its own: `$_` and PIPESTATUS first (the probe's first expansions, before it changes
either), then `$-`, `set -o`, `shopt`, `trap -p`, `history 1`, `jobs`, `stty size`, `tty`,
`declare -F`, `umask`, `pwd`, the prompt and `env`. What differs on purpose is named in
DELIBERATE (docs/shell.md says why); every other difference is a finding.
"""
from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path

PROBES = ("_", "PIPESTATUS", "-", "set -o", "shopt", "trap -p", "history 1", "jobs", "stty size", "tty",
          "declare -F", "umask", "pwd", "prompt", "env")
_SEP = "@@probe:"
# One line: $_ and PIPESTATUS captured by the first expansion, then every probe under its name.
PROBE = ("__o_u=$_ __o_p=\"${PIPESTATUS[*]}\"; { "
         + "; ".join(f"printf '\\n{_SEP}%s\\n' {shlex.quote(name)}; {body}" for name, body in (
             ("_", 'printf %s "$__o_u"'), ("PIPESTATUS", 'printf %s "$__o_p"'), ("-", 'printf %s "$-"'),
             ("set -o", "set -o"), ("shopt", "shopt"), ("trap -p", "trap -p"), ("history 1", "history 1"),
             ("jobs", "jobs"), ("stty size", "stty size 2>&1 || :"), ("tty", "tty || :"),
             ("declare -F", "declare -F"), ("umask", "umask"), ("pwd", "pwd"),
             ("prompt", 'printf %s "${PS1@P}"'), ("env", "env | LC_ALL=C sort")))
         + '; } >"$__o_dir/.t" 2>&1; \\mv -f "$__o_dir/.t" "$__o_dir/$((__o_n += 1))"')

# Differences on purpose, by probe (docs/shell.md, "Deliberate differences"): what each side's
# text becomes before comparing.
_TRACE = re.compile(r"^\+ .*\n?", re.M)  # `set -x` of the probe's own pipeline: its order is a race
_PTY = re.compile(r"^/dev/pts/\d+$", re.M)
_OWN_ENV = re.compile(r"^(?:TMUX|TMUX_PANE|TERM|DEMORUN_SESSION|KUBECONFIG|PAGER|GIT_PAGER|BAT_PAGING|SYSTEMD_PAGER|"
                      r"MANPAGER|GH_PAGER|AWS_PAGER|_)=.*\n?", re.M)
DELIBERATE = {
    "history 1": lambda text: "",  # demorun keeps no history: the framing lines are not the workshop's
    "set -o": lambda text: re.sub(r"^(?:history|emacs)\s+\w+\n?", "", text, flags=re.M),  # fed, not typed
    "declare -F": lambda text: re.sub(r"^declare -fr __dr_\w+\n?", "", text, flags=re.M),  # the protocol's
    "-": lambda text: text.replace("H", ""),
    "prompt": lambda text: "",  # PS1 carries demorun's markers
    "stty size": lambda text: "",  # unattended commands read /dev/null, not keys: stdin is no terminal
    "tty": lambda text: _PTY.sub("TTY", text.replace("+ :\n", "")).replace("not a tty", "TTY"),
    "env": lambda text: _OWN_ENV.sub("", _TRACE.sub("", text)),
}


def parse(text: str) -> dict[str, str]:
    """A probe file as {probe: what it printed}."""
    found: dict[str, str] = {}
    for part in text.split("\n" + _SEP)[1:]:
        name, _, value = part.partition("\n")
        found[name] = value
    return found


def normalised(probes: dict[str, str]) -> dict[str, str]:
    return {name: DELIBERATE.get(name, lambda text: text)(value) for name, value in probes.items()}


def differences(seen: list[dict[str, str]], wanted: list[dict[str, str]], commands: list[str]) -> list[str]:
    """One line per probe that differs after a command, as `command: probe: demorun != bash`."""
    found = []
    for index, (mine, theirs) in enumerate(zip(seen, wanted)):
        mine, theirs = normalised(mine), normalised(theirs)
        for name in PROBES:
            if mine.get(name) != theirs.get(name):
                changed = [line for line in difflib.ndiff((theirs.get(name) or "").splitlines(),
                                                          (mine.get(name) or "").splitlines()) if line[:1] in "+-"]
                found.append(f"{commands[index]!r}: {name}: " + "; ".join(changed)[:300])
    if len(seen) != len(wanted):
        found.append(f"{len(seen)} probes from demorun, {len(wanted)} from bash: {seen[-1].get('demorun', '')}")
    return found


def _environment(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
            "TERM": "xterm-256color", "USER": os.environ.get("USER", "user")}


def _setup(folder: Path) -> str:
    return f"__o_dir={shlex.quote(str(folder))} __o_n=0; cd {shlex.quote(str(folder.parent))}"


def _collect(folder: Path, count: int, deadline: float) -> list[dict[str, str]]:
    while time.monotonic() < deadline and not (folder / str(count)).exists():
        time.sleep(0.01)
    return [parse((folder / str(n)).read_text(errors="replace"))
            for n in range(1, count + 1) if (folder / str(n)).exists()]


def through_demorun(demorun: str, commands: list[str], work: Path) -> list[dict[str, str]]:
    """The probes of `demorun run` of a workshop holding each command and a probe after it."""
    folder = work / "probes"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    lines = [_setup(folder)] + [line for command in commands for line in (command, PROBE)]
    workshop = work / "workshop.md"
    workshop.write_text("```bash\n" + "\n".join(lines) + "\n```\n")
    done = subprocess.run([demorun, "run", "--quiet", str(workshop)], env=_environment(work), cwd=str(work),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
    probes = _collect(folder, len(commands), time.monotonic())
    if len(probes) < len(commands):
        probes.append({"demorun": (done.stdout + done.stderr)[-600:]})
    return probes


class TerminalBash:
    """`bash --norc --noprofile -i` in a tmux window of its own: keys typed, as a person would."""

    def __init__(self, work: Path):
        self.work = work
        tmux = shutil.which("tmux") or "tmux"
        # The server's socket in the test's own folder: nothing is left behind in /tmp.
        self._tmux = [tmux, "-S", str(work / f"tmux-{uuid.uuid4().hex[:8]}"), "-f", "/dev/null"]
        bash = shutil.which("bash") or "/bin/bash"
        subprocess.run(self._tmux + ["new-session", "-d", "-x", "80", "-y", "24", "env", "-i",
                                     *[f"{k}={v}" for k, v in _environment(work).items()],
                                     bash, "--norc", "--noprofile", "-i"], check=True, cwd=str(work))

    def type(self, line: str) -> None:
        subprocess.run(self._tmux + ["send-keys", "-t", "0", "-l", "--", line], check=True)
        subprocess.run(self._tmux + ["send-keys", "-t", "0", "Enter"], check=True)

    def close(self) -> None:
        subprocess.run(self._tmux + ["kill-server"], stderr=subprocess.DEVNULL)

    def probes(self, commands: list[str]) -> list[dict[str, str]]:
        folder = self.work / "probes"
        folder.mkdir()
        self.type("set +o histexpand")  # as demorun's shell: a `!` in a command is a `!`
        self.type(_setup(folder))
        for index, command in enumerate(commands, 1):
            self.type(command)
            self.type(PROBE)
            _collect(folder, index, time.monotonic() + 10)
        return _collect(folder, len(commands), time.monotonic())


def compare(demorun: str, commands: list[str], work: Path) -> list[str]:
    """The differences between demorun and a terminal's bash for one sequence of commands."""
    work.mkdir(parents=True, exist_ok=True)
    terminal = TerminalBash(work)
    try:
        wanted = terminal.probes(commands)
    finally:
        terminal.close()
    seen = through_demorun(demorun, commands, work)
    return differences(seen, wanted, commands)
