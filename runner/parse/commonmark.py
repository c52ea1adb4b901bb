"""The one reading of workshop prose as Markdown: mistune, configured here for the terminal and the HTML report.

Both readers come from `reader`, so the presenter and the report cannot see different
Markdown in the same text (a table, a strikethrough, a bare URL).
"""
from __future__ import annotations

import mistune

PLUGINS = ("table", "strikethrough", "url")


def reader(renderer: mistune.BaseRenderer | None) -> mistune.Markdown:
    """A Markdown reader of prose; with no renderer it returns mistune's syntax tree (a list of tokens)."""
    return mistune.create_markdown(renderer=renderer, plugins=list(PLUGINS))
