"""Secrets are found by variable name and masked wherever a report could show them."""
from __future__ import annotations

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from runner.model import (
    Expectation,
    FileReport,
    Finding,
    Kind,
    Outcome,
    Plan,
    RunReport,
    Severity,
    SourceLoc,
    Status,
    Step,
    StepResult,
    Verdict,
    Visibility,
)
from runner.secrets import MASK, Redactor, redact_report, secret_values


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
