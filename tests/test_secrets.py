"""Secrets are found by variable name and masked wherever a report could show them."""
from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from conftest import command_step
from hypothesis import given
from hypothesis import strategies as st

from runner.model import Expectation, Finding, Kind, Plan, Severity, SourceLoc, Step, Visibility
from runner.results import FileReport, Outcome, RunReport, Status, StepResult, Verdict
from runner.secrets import (
    MASK,
    Redactor,
    SecretTracker,
    masked_as_shown,
    redact_report,
    secret_values,
)


def test_secret_values_by_name_part_in_any_case():
    variables = {
        "GITHUB_TOKEN": "ghp_abcdef",
        "db_password": "hunter22",
        "MyApiKey": "k-123456",
        "CLIENT_SECRET_FILE": "/run/secret",
        "OPENAI_API_KEY": "sk-zzzz",
        "LDAP_PASSWD": "pw-9999",
        "HOME": "/root",
        "USER": "presenter",
    }
    assert secret_values(variables) == {
        "ghp_abcdef", "hunter22", "k-123456", "/run/secret", "sk-zzzz", "pw-9999",
    }


def test_secret_values_skip_empty_and_short_values():
    assert secret_values({"TOKEN": "", "PASSWORD": "1", "SECRET": "abc", "APIKEY": "abcd"}) == {"abcd"}


def test_configured_names_are_secret_too():
    variables = {"DB_URL": "postgres://u:p@db/x", "REGION": "eu-west-1"}
    assert secret_values(variables) == frozenset()
    assert secret_values(variables, extra_names=["DB_URL"]) == {"postgres://u:p@db/x"}


def test_redactor_masks_every_occurrence():
    redact = Redactor(["s3cr3t"])
    assert redact("a s3cr3t, another s3cr3ts3cr3t") == f"a {MASK}, another {MASK}{MASK}"


def test_longest_secret_wins_so_no_tail_is_left():
    redact = Redactor(["abcd", "abcdefgh"])
    assert redact("x abcdefgh y abcd") == f"x {MASK} y {MASK}"


def test_secrets_are_literal_text_not_patterns():
    redact = Redactor(["a.b*c+(d"])
    assert redact("a.b*c+(d and aXbbbc+(d") == f"{MASK} and aXbbbc+(d"


def test_no_secrets_changes_nothing():
    redact = Redactor()
    assert not redact
    assert redact("TOKEN=abc") == "TOKEN=abc"
    assert redact.spans("anything") == []


def test_short_secrets_given_directly_are_ignored():
    assert Redactor(["", "ab"])("ab cd") == "ab cd"


def test_multiline_secret_is_masked_through_a_terminal_and_line_by_line():
    key = "-----BEGIN KEY-----\nAAAAbbbbCCCC\n-----END KEY-----"
    redact = Redactor([key])
    assert redact("x " + key.replace("\n", "\r\n") + " y") == f"x {MASK} y"
    assert redact("line: AAAAbbbbCCCC") == f"line: {MASK}"


def test_spans_point_at_each_secret():
    redact = Redactor(["tok1234"])
    text = "a tok1234 b tok1234"
    assert [text[s:e] for s, e in redact.spans(text)] == ["tok1234", "tok1234"]


_ALNUM = st.text(alphabet="abcdefXYZ0123", min_size=4, max_size=8)


@given(secrets=st.lists(_ALNUM, min_size=1, max_size=4), text=st.text(alphabet="abcdefXYZ0123 \n", max_size=80))
def test_no_secret_survives_redaction(secrets, text):
    mixed = text + secrets[0] + text[: len(text) // 2] + secrets[-1]
    redacted = Redactor(secrets)(mixed)
    assert not any(s in redacted for s in secrets)


def _report(secret: str) -> RunReport:
    loc = SourceLoc("w.md", 3)
    step = Step(Kind.COMMAND, loc, f"login --token {secret}", Visibility.SHOW, end_line=3,
                section=f"Using {secret}",
                expected=Expectation((f"welcome {secret}",), SourceLoc("w.md", 4), 4))
    prose = Step(Kind.PROSE, SourceLoc("w.md", 1), f"Your key is {secret}.", Visibility.SHOW)
    result = StepResult(step, Verdict(Status.FAIL, f"expected {secret}", (f"-{secret}", "+other")),
                        Outcome(f"token={secret}\r\n", 1, 0.1), index=1)
    plan = Plan("w.md", (prose, step), findings=(Finding(loc, Severity.WARNING, "x", f"saw {secret}"),))
    return RunReport((FileReport("w.md", (result,), 0.2, skipped_reason=f"no {secret}", plan=plan),), 0.2)


def test_redact_report_reaches_every_text_field():
    secret = "Zq9-very-secret"
    report = _report(secret)
    masked = redact_report(report, Redactor([secret]))
    assert secret in repr(report)
    assert secret not in repr(masked)
    assert repr(masked).count(MASK) == repr(report).count(secret)
    # Nothing but text changes: locations, statuses and timings stay as they were.
    result = masked.files[0].results[0]
    assert result.step.loc == report.files[0].results[0].step.loc
    assert result.verdict.status is Status.FAIL
    assert dataclasses.replace(result.outcome, output="") == dataclasses.replace(
        report.files[0].results[0].outcome, output="")


# Every way a secret arrives, read back from every artefact.

FIXTURE = Path(__file__).parent / "fixtures" / "secrets"
ENV_SECRET = "env-deploy-token-4321"
ARRIVED = {
    "ghp-split-1234EFGH5678": "set by name, printed split by grep --color",
    ENV_SECRET: "from the environment, then unset",
    "vault-by-alias-2468": "an alias, then unset",
    "pw-from-a-file-9876": "export $(cat creds.env)",
    "set-by-a-function-5555": "a function from a sourced file",
}


def _leaks(text: str) -> list[str]:
    """The secrets (or their first or last 8 characters) that text shows."""
    return [how for secret, how in ARRIVED.items()
            if secret in text or secret[:8] in text or secret[-8:] in text]


@pytest.fixture
def secret_workshop(tmp_path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "w")
    return tmp_path / "w" / "workshop.md"


def test_no_secret_reaches_the_console_junit_or_html(demorun, secret_workshop, tmp_path):
    junit, html = tmp_path / "r.xml", tmp_path / "r.html"
    result = demorun("check", "--junit", str(junit), "--html", str(html), str(secret_workshop),
                     env={"CI_DEPLOY_TOKEN": ENV_SECRET, "GITHUB_ACTIONS": "true"})
    assert result.exit_code == 1
    assert "::error" in result.output and "key=***" in result.output
    for artefact in (result.output, junit.read_text(), html.read_text()):
        assert _leaks(artefact) == []
        assert artefact.count("***") >= 4


def test_no_secret_reaches_an_updated_file_or_its_diff(demorun, secret_workshop):
    env = {"CI_DEPLOY_TOKEN": ENV_SECRET}
    diff = demorun("check", "--update", "--diff", str(secret_workshop), env=env)
    assert "+## key=***" in diff.output and "+## SERVICE_PASSWORD=***" in diff.output
    assert _leaks(diff.output) == []
    demorun("check", "--update", str(secret_workshop), env=env)
    updated = secret_workshop.read_text()
    assert "## CI_DEPLOY_TOKEN=***" in updated and "## DB_SECRET=***" in updated
    assert "## VAULT_TOKEN=***" in updated
    # Only where the workshop itself sets it, as it did before.
    assert _leaks(updated.replace("export API_TOKEN=ghp-split-1234EFGH5678", "")) == []


def test_no_secret_reaches_a_recording(demorun, secret_workshop, tmp_path):
    cast = tmp_path / "w.cast"
    demorun("run", "--record", str(cast), str(secret_workshop), env={"CI_DEPLOY_TOKEN": ENV_SECRET})
    recorded = "".join(json.loads(line)[2] for line in cast.read_text().splitlines()[1:])
    assert "SERVICE_PASSWORD=***" in recorded and "key=***" in recorded
    assert _leaks(recorded) == []


# When the session's variables are read: decided once per plan.

class _Shell:
    alive = True

    def __init__(self, functions: list[str] | None = None):
        self.reads = 0
        self._functions = functions or []

    def variables(self) -> dict[str, str]:
        self.reads += 1
        return {}

    def functions(self) -> list[str]:
        return self._functions


def _reads_around(command: str, *, earlier: str = "true", functions: list[str] | None = None) -> tuple[bool, bool]:
    """(read before, read after) `command`, run after `earlier`."""
    shell = _Shell(functions)
    tracker = SecretTracker([command_step("w.md", 1, earlier), command_step("w.md", 2, command)])
    tracker.before(0, shell)
    tracker.after(0, shell)
    start = shell.reads
    tracker.before(1, shell)
    middle = shell.reads
    tracker.after(1, shell)
    return middle > start, shell.reads > middle


@pytest.mark.parametrize("command, before, after", [
    ("echo hi; ls -la", False, False),
    ("cat README.md ./.env", False, False),
    ("export KUBECONFIG=$PWD/kubeconfig; read -r answer; printf -v out %s x", False, False),
    ("while read -r line; do echo \"$line\"; done < list.txt", False, False),
    ("echo $GITHUB_TOKEN", False, True),
    ("export $(cat creds.env)", False, True),
    ("set -a; source ./env.sh; set +a", False, True),
    (". ./env.sh", False, True),
    ('eval "$(vault login -format=env)"', False, True),
    ('read -r "$name" <<< "$value"', False, True),
    ('declare -gx "$name=$value"', False, True),
    ('while read -r k v; do export "$k=$v"; done < pairs', False, True),
    ('printf -v "$name" %s "$value"', False, True),
    ("mapfile -t $into < list.txt", False, True),
    ("unset CI_VARIABLE", True, False),
    ("exit 3", True, False),
    ("exec bash --login", True, True),
])
def test_variables_are_read_around_commands_that_may_change_them(command, before, after):
    assert _reads_around(command) == (before, after)


def test_the_environment_is_read_before_the_first_command():
    shell = _Shell()
    tracker = SecretTracker([command_step("w.md", 1, "echo hi"), command_step("w.md", 2, "echo again")])
    tracker.before(0, shell)
    tracker.after(0, shell)
    tracker.before(1, shell)
    assert shell.reads == 1


def test_calls_of_functions_defined_in_the_workshop_or_the_shell_are_read_around():
    assert _reads_around("login --quick", earlier="login() { eval \"$(cat f)\"; }") == (True, True)
    assert _reads_around("connect", earlier="true", functions=["connect"]) == (True, True)
    assert _reads_around("connected", earlier="true", functions=["connect"]) == (False, False)


def test_redactor_masks_a_secret_split_by_escapes_along_with_them():
    redact = Redactor(["ghp-1234EFGH5678"])
    coloured = "key=ghp-1234\x1b[01;31m\x1b[KEFGH\x1b[m\x1b[K5678 \x1b]0;title\x07ghp-\x1b[1m1234EFGH5678"
    assert redact(coloured) == f"key={MASK} \x1b]0;title\x07{MASK}"
    assert [coloured[s:e][-4:] for s, e in redact.spans(coloured)] == ["5678", "5678"]


def test_masked_as_shown_catches_a_secret_only_the_terminal_puts_together():
    redact = Redactor(["tok-abcd-9999"])
    assert redact("tok-abcd-0000\b\b\b\b9999") == "tok-abcd-0000\b\b\b\b9999"
    assert masked_as_shown("id: tok-abcd-0000\b\b\b\b9999\r\n", redact) == f"id: {MASK}"
    assert masked_as_shown("tok-abcd-\x1b[32m9999\x1b[0m\r\n", redact) == MASK


def test_a_long_secret_split_by_escapes_is_masked_whole():
    key = "".join(f"{i:05d}" for i in range(4000))  # a 20 KB value, a certificate say
    redact = Redactor([key])
    shown = "cert: " + key[:7000] + "\x1b[31m" + key[7000:7001] + "\x1b[0m" + key[7001:] + "\x1b[K\n"
    assert redact(shown) == f"cert: {MASK}\x1b[K\n"


# Every channel of a real run, for a value only the session knows once the command that sets it ran.

SOURCED = "src-only-known-after-7531"


@pytest.fixture
def sourcing_workshop(tmp_path) -> Path:
    """A hidden command that sources a value and prints it in the same breath, then fails."""
    (tmp_path / "creds.env").write_text(f"export APP_API_KEY={SOURCED}\n")
    path = tmp_path / "w.md"
    path.write_text("# Deploy\n\n```bash\nsource ./creds.env && echo \"using $APP_API_KEY\" && false\n"
                    f"```\n\nThen the same value, pasted: `echo {SOURCED}`\n\n```bash\necho {SOURCED}\n## nope\n```\n")
    return path


@pytest.mark.parametrize("argv", [["check", "-v"], ["run", "--quiet", "--keep-going"], ["run", "--keep-going"],
                                  ["run", "-v", "--keep-going"], ["run", "-v", "--quiet", "--keep-going"]])
def test_no_channel_of_a_run_shows_a_value_printed_before_it_was_known(demorun, sourcing_workshop, argv):
    result = demorun(*argv, "--no-init", str(sourcing_workshop))
    assert result.exit_code == 1
    assert SOURCED not in result.output and "***" in result.output


def test_the_pytest_failure_headline_is_masked(tmp_path):
    """The headline quotes the command; pytest takes it before the test runs, demorun again after."""
    import subprocess
    import sys
    from importlib.metadata import entry_points

    (tmp_path / "creds.env").write_text(f"export APP_API_KEY={SOURCED}\n")
    (tmp_path / "w.md").write_text(f'```bash\nsource ./creds.env && [ "$APP_API_KEY" != {SOURCED} ]\n```\n')
    load = [] if any(e.name == "demorun" for e in entry_points(group="pytest11")) else ["-p", "runner.pytest_plugin"]
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *load, "--demorun", "w.md",
                           "--rootdir", str(tmp_path), "-o", "addopts=", "w.md"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "1 failed" in done.stdout, done.stdout
    assert 'w.md:2: source ./creds.env && [ "$APP_API_KEY" != *** ]' in done.stdout
    assert SOURCED not in done.stdout + done.stderr


def test_output_of_a_command_whose_secrets_could_not_be_read_is_withheld(demorun, tmp_path):
    """The shell ends in the command that sets the value: nothing can read it afterwards."""
    (tmp_path / "creds.env").write_text(f"export APP_API_KEY={SOURCED}\n")
    path = tmp_path / "w.md"
    path.write_text('```bash\nsource ./creds.env && echo "using $APP_API_KEY"; exit 3\n## using nothing\n```\n')
    junit = tmp_path / "j.xml"
    for argv in (["check", "-v", "--junit", str(junit)], ["check", "--update", "--diff"], ["run", "-v", "--quiet"]):
        result = demorun(*argv, "--no-init", str(path))
        assert result.exit_code in (1, 3)
        assert SOURCED not in result.output
    assert SOURCED not in junit.read_text() and "could not be read" in junit.read_text()
    assert SOURCED not in path.read_text()
