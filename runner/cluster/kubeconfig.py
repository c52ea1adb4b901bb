"""Kubeconfig isolation: the workshop's clusters and contexts land in a file of its own.

`k3d cluster create` and `kind create cluster` write to $KUBECONFIG and switch
its current context; pointed at a temporary file, they never touch the
user's ~/.kube/config or change which cluster their own kubectl talks to.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..errors import ConfigError


class IsolatedKubeconfig:
    """A private KUBECONFIG in a temporary folder, optionally a copy of `seed` (which is only read)."""

    def __init__(self, seed: str | None = None):
        self.seed = seed
        self.folder: str | None = None
        self.keep = False  # kept when clusters stay behind: it is how to reach them

    @property
    def path(self) -> str:
        assert self.folder is not None, "used outside its with block"
        return os.path.join(self.folder, "config")

    def __enter__(self) -> IsolatedKubeconfig:
        seeded = None
        if self.seed is not None:
            try:
                seeded = Path(self.seed).expanduser().read_bytes()
            except OSError as exc:
                raise ConfigError(f"--kubeconfig {self.seed}: cannot read: {exc.strerror or exc}") from None
        self.folder = tempfile.mkdtemp(prefix="demorun-kube-")  # 0700: it will hold credentials
        if seeded is not None:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as out:
                out.write(seeded)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self.folder and not self.keep:
            shutil.rmtree(self.folder, ignore_errors=True)
