"""Files that are not workshops: one clear ParseError, never a traceback."""
from __future__ import annotations

import os

import pytest

from runner.errors import ParseError
from runner.parse.workshop import parse_workshop


def test_missing_file(tmp_path):
    with pytest.raises(ParseError, match="no such file") as info:
        parse_workshop(str(tmp_path / "absent.md"))
    assert "absent.md" in str(info.value)


def test_directory(tmp_path):
    with pytest.raises(ParseError, match="is a directory"):
        parse_workshop(str(tmp_path))


def test_binary_file(tmp_path):
    path = tmp_path / "image.md"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(ParseError, match="binary"):
        parse_workshop(str(path))


def test_non_utf8_file_names_the_line(tmp_path):
    path = tmp_path / "latin1.md"
    path.write_bytes(b"# Title\n\ncaf\xe9\n")
    with pytest.raises(ParseError, match="not UTF-8") as info:
        parse_workshop(str(path))
    assert (info.value.loc.file, info.value.loc.line) == (str(path), 3)
    assert str(info.value).startswith(f"{path}:3: ")


def test_unreadable_file(tmp_path):
    path = tmp_path / "secret.md"
    path.write_text("echo hi\n")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("this user reads mode-000 files (root)")
        with pytest.raises(ParseError, match="permission denied"):
            parse_workshop(str(path))
    finally:
        path.chmod(0o644)


def test_a_byte_order_mark_is_not_text(tmp_path):
    path = tmp_path / "bom.md"
    path.write_bytes("\ufeff<!-- @SHOW -->\n\nHello\n".encode())
    plan = parse_workshop(str(path), no_init=True)
    assert [s.text for s in plan.steps] == ["Hello"]
    assert plan.steps[0].visibility.value == "show"
