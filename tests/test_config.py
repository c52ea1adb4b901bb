"""Configuration is found from a workshop's folder upwards, and bad keys are named."""
from pathlib import Path

import pytest

from runner.config import load_config
from runner.errors import ConfigError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_no_configuration_gives_defaults(tmp_path):
    workshop = write(tmp_path / "w.md", "")
    config = load_config(workshop)
    assert config.source is None and config.timeout is None and config.env == {}


def test_pyproject_table_found_from_a_subfolder(tmp_path):
    write(tmp_path / "pyproject.toml", """
[tool.demorun]
timeout = "2m"
volatile-columns = ["LAST SCHEDULE"]
secrets = ["MY_CREDENTIAL"]
[tool.demorun.masks]
build = 'build-[0-9]+'
[tool.demorun.env]
GREETING = "hello"
PORT = 8080
""")
    workshop = write(tmp_path / "docs" / "deep" / "w.md", "")
    config = load_config(workshop)
    assert config.source == str(tmp_path / "pyproject.toml")
    assert config.timeout == 120
    assert config.masks == (("build", "build-[0-9]+"),)
    assert config.volatile_columns == ("LAST SCHEDULE",)
    assert config.secrets == ("MY_CREDENTIAL",)
    assert config.env == {"GREETING": "hello", "PORT": "8080"}


def test_nearest_file_wins_and_pyproject_without_table_is_passed_over(tmp_path):
    write(tmp_path / "demorun.toml", 'timeout = "5m"\n')
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'x'\n")
    workshop = write(tmp_path / "sub" / "w.md", "")
    assert load_config(workshop).timeout == 300
    write(tmp_path / "sub" / "demorun.toml", 'timeout = "7s"\n')
    assert load_config(workshop).timeout == 7


@pytest.mark.parametrize("body, key", [
    ('timeout = "soon"', "timeout"),
    ("timeout = true", "timeout"),
    ("colour = 1", "colour"),
    ('volatile-columns = "AGE"', "volatile-columns"),
    ("[masks]\nbad = '(unclosed'", "masks.bad"),
    ("[env]\n'1BAD' = 'x'", "env.1BAD"),
    ("[env]\nOK = [1]", "env.OK"),
    ("secrets = [1]", "secrets"),
])
def test_bad_keys_are_named_with_the_file(tmp_path, body, key):
    path = write(tmp_path / "demorun.toml", body + "\n")
    with pytest.raises(ConfigError) as caught:
        load_config(write(tmp_path / "w.md", ""))
    assert str(path) in str(caught.value) and repr(key) in str(caught.value)


def test_invalid_toml_is_reported_with_the_file(tmp_path):
    path = write(tmp_path / "demorun.toml", "timeout = \n")
    with pytest.raises(ConfigError, match="not valid TOML") as caught:
        load_config(write(tmp_path / "w.md", ""))
    assert str(path) in str(caught.value)
