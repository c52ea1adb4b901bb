"""Project configuration: `demorun.toml` or `[tool.demorun]`, found from a workshop's folder upwards."""
from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import NamedTuple

from .errors import ConfigError

KEYS = ("timeout", "catch-up-timeout", "masks", "volatile-columns", "env", "secrets", "include", "exclude")


class Config(NamedTuple):
    """What a project may set for every workshop below it."""

    source: str | None = None  # the file it came from, for messages
    timeout: float | None = None  # default per-command timeout, seconds
    catch_up_timeout: float | None = None  # present: each command's limit while catching up, seconds
    masks: tuple[tuple[str, str], ...] = ()  # (name, regex) treated as volatile
    volatile_columns: tuple[str, ...] = ()  # table columns that accept any value of the same shape
    env: Mapping[str, str] = {}  # noqa: B006 (read only: runs copy it)  variables set in every session
    secrets: tuple[str, ...] = ()  # more variable names whose values are masked in artefacts
    include: tuple[str, ...] = ()  # globs, from the file's folder: a folder's workshops are these only
    exclude: tuple[str, ...] = ()  # globs, from the file's folder: never a workshop when found in a folder


def find_config_file(start: str) -> tuple[str, dict] | None:
    """The nearest file that configures demorun, and its `demorun` table.

    os.path, not pathlib: present's first screen reads the configuration (docs/performance.md,
    measured choices)."""
    folder = os.path.realpath(start)
    while True:
        own = os.path.join(folder, "demorun.toml")
        if os.path.isfile(own):
            return own, _read_toml(own)
        project = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(project):
            table = _read_toml(project).get("tool", {}).get("demorun")
            if table is not None:
                if not isinstance(table, dict):
                    raise ConfigError(f"{project}: [tool.demorun] must be a table")
                return project, table
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def load_config(workshop: str | os.PathLike[str]) -> Config:
    """The configuration that applies to `workshop` (a file or a folder); defaults when none."""
    path = os.fspath(workshop)
    found = find_config_file(path if os.path.isdir(path) else os.path.dirname(path) or ".")
    if found is None:
        return Config()
    source, table = found
    return _build(source, table)


def _read_toml(path: str) -> dict:
    try:
        import tomllib  # only when a file configures demorun: most workshops have none

        with open(path, encoding="utf-8") as file:
            return tomllib.loads(file.read())
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _build(source: str, table: dict) -> Config:
    def bad(key: str, why: str) -> ConfigError:
        return ConfigError(f"{source}: key {key!r}: {why}")

    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise bad(unknown[0], f"unknown key (known: {', '.join(KEYS)})")

    timeout, catch_up = (_duration(table, key, bad) for key in ("timeout", "catch-up-timeout"))

    masks = table.get("masks", {})
    if not isinstance(masks, dict):
        raise bad("masks", "expected a table of name = regex")
    for name, regex in masks.items():
        if not isinstance(regex, str):
            raise bad(f"masks.{name}", f"expected a regex string, got {regex!r}")
        try:
            re.compile(regex)
        except re.error as exc:
            raise bad(f"masks.{name}", f"invalid regex {regex!r}: {exc}") from None

    columns = _string_list(table, "volatile-columns", bad)
    secrets = _string_list(table, "secrets", bad)
    include, exclude = (_string_list(table, key, bad) for key in ("include", "exclude"))
    for key, globs in (("include", include), ("exclude", exclude)):
        for glob in globs:
            problem = glob_problem(glob, os.path.dirname(source) or ".")
            if problem:
                raise bad(key, problem)

    env = table.get("env", {})
    if not isinstance(env, dict):
        raise bad("env", "expected a table of NAME = value")
    for name, value in env.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise bad(f"env.{name}", "not a valid variable name")
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise bad(f"env.{name}", f"expected a string or number, got {value!r}")

    return Config(
        source=source,
        timeout=timeout,
        catch_up_timeout=catch_up,
        masks=tuple(masks.items()),
        volatile_columns=tuple(columns),
        env={name: str(value) for name, value in env.items()},
        secrets=tuple(secrets),
        include=tuple(include),
        exclude=tuple(exclude),
    )


def glob_problem(glob: str, where: str) -> str | None:
    """Why `glob` cannot name files below `where` (empty, absolute, or going up), or None:
    the same for `include`, `exclude` and `check --exclude`."""
    if not glob.strip() or glob.startswith("/") or ".." in glob.split("/"):
        return f"{glob!r}: expected a glob relative to {where}"
    return None


def _duration(table: dict, key: str, bad) -> float | None:
    if key not in table:
        return None
    raw = table[key]
    if isinstance(raw, bool) or not isinstance(raw, (str, int, float)):
        raise bad(key, f"expected a duration like '90s', got {raw!r}")
    try:
        from .parse.durations import parse_duration  # the parser package only when needed

        return parse_duration(str(raw))
    except ValueError as exc:
        raise bad(key, str(exc)) from None


def _string_list(table: dict, key: str, bad) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise bad(key, f"expected a list of strings, got {value!r}")
    return value
