"""The bash session with a real bash: state, output fidelity, stdin, rejection, exit, cleanup."""
from __future__ import annotations

import sys
import time

import pytest

from runner.errors import CommandRejected, SessionError
from runner.session.protocol import Markers
from runner.session.pty_io import Output, Scanner
from runner.session.session import Session


@pytest.fixture
def session(tmp_path):
    with Session(cwd=str(tmp_path), default_timeout=20) as s:
        yield s


def out(session: Session, command: str) -> str:
    outcome = session.run(command)
    assert outcome.status == 0, (command, outcome)
    return outcome.output


def gone(pid: int) -> bool:
    """The process has exited (a zombie waiting for its parent counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.parametrize("setup, probe, expected", [
    ("x='two words'", 'echo "$x"', "two words\n"),
    ("cd /", "pwd", "/\n"),
    ("greet() { echo \"hi $1\"; }", "greet you", "hi you\n"),
    ("alias ll='echo aliased'", "ll", "aliased\n"),
    ("set -o noglob", "echo /*", "/*\n"),
    ("printf 'v=sourced\\n' > lib.sh && source ./lib.sh", "echo $v", "sourced\n"),
    ("export E=1", "bash -c 'echo $E'", "1\n"),
    ("shopt -s extglob", "echo @(a|b)x", "@(a|b)x\n"),
])
def test_state_persists_between_commands(session, setup, probe, expected):
    out(session, setup)
    assert out(session, probe) == expected


def test_status_and_dollar_question_carry_over(session):
    assert session.run("false").status == 1
    assert out(session, "echo $?") == "1\n"
    assert session.run("(exit 42)").status == 42


def test_output_keeps_nul_bad_utf8_colours_and_carriage_returns(session):
    outcome = session.run(r"printf 'a\0b \xff \e[31mred\e[0m 10%%\r100%%\n' ; printf 'tail'")
    assert outcome.output == "a\0b \ufffd \x1b[31mred\x1b[0m 10%\r100%\ntail"


def test_terminal_newlines_become_lf_and_a_programs_own_crlf_survives(session):
    assert session.run(r"printf 'a\nb\r\n'").output == "a\nb\r\n"


def test_on_output_gets_raw_chunks_without_markers(session):
    chunks: list[bytes] = []
    outcome = session.run("seq 3", on_output=chunks.append)
    raw = b"".join(chunks)
    assert raw == b"1\r\n2\r\n3\r\n"
    assert outcome.output == "1\n2\n3\n"


def test_stdin_is_at_end_of_file(session):
    start = time.monotonic()
    assert session.run("read x").status == 1
    assert out(session, "cat; echo done") == "done\n"
    assert time.monotonic() - start < 5


def test_unattended_environment(tmp_path):
    with Session(cwd=str(tmp_path), env={"GREETING": "hello"}, argv0="guide.md",
                 args=["one", "two words"], cols=100, rows=30) as s:
        assert out(s, 'echo "$PAGER $GIT_PAGER $BAT_PAGING $MANPAGER $SYSTEMD_PAGER"') == "cat cat never cat cat\n"
        assert out(s, "echo $GREETING $COLUMNS $LINES; stty size </dev/tty") == "hello 100 30\n30 100\n"
        assert out(s, 'echo "$0|$1|$2|$#"') == "guide.md|one|two words|2\n"
        assert out(s, "pwd") == f"{tmp_path}\n"
        assert out(s, 'test -n "$TERM" && echo term') == "term\n"


def test_no_frozen_terminal_size_reaches_programs(tmp_path, monkeypatch):
    """Programs read the pty's size themselves: no COLUMNS or LINES in their environment, from
    demorun's or the configuration's, which would override the pty and outlive a resize."""
    monkeypatch.setenv("COLUMNS", "55")
    with Session(cwd=str(tmp_path), cols=100, rows=30, env={"LINES": "5"}) as s:
        assert s.run("printenv COLUMNS LINES").status == 1
        size = f"{sys.executable} -c 'import shutil; print(*shutil.get_terminal_size())'"
        assert out(s, size) == "100 30\n"
        assert out(s, "echo $COLUMNS $LINES") == "100 30\n"  # bash's own variables, as in a terminal


def test_a_live_show_keeps_the_presenters_pager(tmp_path, monkeypatch):
    monkeypatch.setenv("PAGER", "less -R")
    with Session(cwd=str(tmp_path), unattended=False) as s:
        assert out(s, 'echo "$PAGER"') == "less -R\n"


def test_odd_and_long_arguments_reach_the_positional_parameters(tmp_path):
    args = ["line\nbreak", "ctrl\x03c", "quote ' and \"", "x" * 5000]
    with Session(cwd=str(tmp_path), args=args) as s:
        shown = out(s, 'printf "%s|" "$@"')
    assert shown == "|".join(args) + "|"


def test_sigpipe_is_default_for_commands(session):
    assert session.run("yes | head -n 1").output == "y\n"


def test_unterminated_quote_is_rejected_quoting_the_command(session):
    with pytest.raises(CommandRejected) as caught:
        session.run('echo "never closed')
    assert "'echo \"never closed'" in str(caught.value)
    assert out(session, "echo still here") == "still here\n"


@pytest.mark.parametrize("command", ["fi", "echo ran > ran.txt\nfi", "fi\necho ran > ran.txt",
                                     "cat <<EOF\nno end", "for x in 1; do"])
def test_rejected_commands_run_nothing(session, tmp_path, command):
    with pytest.raises(CommandRejected):
        session.run(command)
    assert not (tmp_path / "ran.txt").exists()
    assert out(session, "echo ok") == "ok\n"


def test_syntax_error_leaves_status_two_like_a_terminal(session):
    with pytest.raises(CommandRejected):
        session.run("echo )")
    assert out(session, "echo $?") == "2\n"


def test_multi_line_commands_and_heredocs(session):
    assert out(session, "for i in 1 2; do\n  echo $i\ndone") == "1\n2\n"
    assert out(session, "cat <<'EOF'\n$not_expanded\n  kept\nEOF") == "$not_expanded\n  kept\n"
    assert out(session, "echo one \\\n  two") == "one two\n"
    assert out(session, "echo a | # comment\n  tr a b") == "b\n"


def test_incomplete_long_command_is_rejected_without_losing_state(session):
    out(session, "kept=yes")
    with pytest.raises(CommandRejected):
        session.run("echo '" + "y" * 6000)
    assert out(session, "echo $kept") == "yes\n"


def test_commands_longer_than_a_tty_line(session):
    word = "x" * 10_000
    assert out(session, f"echo {word} | wc -c") == "10001\n"
    body = "\n".join(f"line {i}" for i in range(2000))
    assert out(session, f"cat <<'EOF' | tail -n 1\n{body}\nEOF") == "line 1999\n"


def test_control_characters_in_a_command_reach_bash(session):
    assert out(session, "printf %s 'A\x03\x04\x15\x7f\x1aB\r' | od -An -c | tr -s ' '") == \
        " A 003 004 025 177 032 B \\r\n"


def test_comment_only_command_runs_nothing_and_keeps_status(session):
    session.run("false")
    assert session.run("# just commentary\n\n# more").output == ""
    assert out(session, "echo $?") == "1\n"


def test_prompt_markers_cannot_be_faked_by_printing_them(session):
    outcome = session.run('printf "%s|%s|%s\\n" "$PS0" "$PS1" "$PS2"; echo after')
    assert outcome.output.endswith("after\n")
    assert outcome.output.count("\x1e") == 6


@pytest.mark.parametrize("setting", ["PS1='$ '", "PS2='> '", "PS0='run: '", "PS1='$ ' PS2='> '; export PS1"])
def test_prompt_variables_can_be_set_and_the_markers_stay(session, setting):
    outcome = session.run(setting)
    assert (outcome.output, outcome.status) == ("", 0)
    assert out(session, "echo fine") == "fine\n"
    assert out(session, "for i in 1 2\ndo echo $i\ndone") == "1\n2\n"
    assert out(session, "env | grep -c '^PS1=' || true") == "0\n"


def test_exit_reports_status_and_ends_the_session(session):
    outcome = session.run("echo bye; exit 3")
    assert outcome.status == 3 and outcome.output == "bye\n"
    assert not session.alive
    with pytest.raises(SessionError):
        session.run("echo no")


def test_set_e_behaves_as_in_bash(session):
    out(session, "set -e")
    assert out(session, "false || echo handled") == "handled\n"
    outcome = session.run("false")
    assert outcome.status == 1
    assert not session.alive


def test_background_jobs_and_daemons_are_ended_by_close(tmp_path):
    s = Session(cwd=str(tmp_path))
    job = int(out(s, "sleep 1000 & echo $!").split()[-1])
    out(s, "setsid sh -c 'echo $$ > daemon.pid; exec sleep 1001' & sleep 0.2")
    daemon = int((tmp_path / "daemon.pid").read_text())
    assert not gone(job) and not gone(daemon)
    s.close()
    s.close()
    assert gone(job) and gone(daemon)
    assert not s.alive


def test_background_jobs_are_ended_when_the_shell_exits(session):
    job = int(out(session, "sleep 1000 & echo $!").split()[-1])
    session.run("exit 0")
    assert gone(job)


def test_duration_is_measured(session):
    outcome = session.run("sleep 0.3")
    assert 0.3 <= outcome.duration < 3


def test_getvar_and_variables(session):
    out(session, "shown=visible; empty=; export EXPORTED=yes; declare -a arr=(first second)")
    assert session.getvar("shown") == "visible"
    assert session.getvar("empty") == ""
    assert session.getvar("missing") is None
    found = session.variables()
    assert found["shown"] == "visible" and found["EXPORTED"] == "yes" and found["arr"] == "first"
    assert not [name for name in found if name.startswith("__dr_")]
    with pytest.raises(ValueError):
        session.getvar("no such; rm -rf /")


def test_variables_whatever_ifs_and_however_many(session):
    out(session, 'for i in $(seq 5000); do printf -v "MANY_$i" %s "$i"; done; IFS=_; kept_=yes')
    found = session.variables()  # bash lists its variables once, not once per initial letter
    assert found["kept_"] == "yes" and found["MANY_5000"] == "5000"


def test_functions_are_the_workshops_not_the_sessions_own(session):
    assert session.functions() == []
    out(session, "greet() { echo hi; }; function __dr_mine { :; }")
    assert session.functions() == ["greet"]


def test_expand_substitutes_variables_and_runs_nothing(session, tmp_path):
    out(session, "name=World; set -- first second")
    text = session.expand("Hello ${name} and $name: $1/$2 ($#) \\$name $(touch made) $undefined.")
    assert text == "Hello World and World: first/second (2) $name $(touch made) ."
    assert not (tmp_path / "made").exists()
    assert session.expand("no references") == "no references"
    session.run("false")
    assert session.expand("$? ${?} $$ $-").split()[:2] == ["1", "1"]


def test_queries_leave_status_and_tracing_alone(session):
    out(session, "set -u")
    session.run("false")
    assert session.getvar("HOME") is not None
    session.variables()
    session.expand("$HOME")
    assert out(session, "echo $?") == "1\n"
    out(session, "set -x")
    session.getvar("HOME")
    assert session.run("true").output == "+ true\n"


def test_bad_working_directory_is_a_session_error(tmp_path):
    with pytest.raises(SessionError, match="not a directory"):
        Session(cwd=str(tmp_path / "missing"))


def test_scanner_finds_markers_split_across_reads():
    markers = Markers("0123abcd")
    scanner = Scanner(markers)
    stream = b"out\x1e\x1f0123abcdE17\x1emore\x1e\x1f0123abcdS\x1e\x1e\x1fnot-ours"
    events = []
    for i in range(len(stream)):
        events += scanner.feed(stream[i:i + 1])
    events.append((b"", scanner.flush()))
    text = b"".join(payload for kind, payload in events if kind == b"")
    assert [(k, p) for k, p in events if k] == [(b"E", b"17"), (b"S", b"")]
    assert text == b"outmore\x1e\x1fnot-ours"


def test_output_buffer_undoes_the_ptys_crlf_across_chunks():
    buffer = Output()
    for chunk in (b"a\r", b"\nb\r\r", b"\nc\xe2\x82", b"\xac\r"):
        buffer.append(chunk)
    assert buffer.text() == "a\nb\r\nc\u20ac\r"


def test_large_output_is_complete(session):
    outcome = session.run("seq 200000")
    assert outcome.output.count("\n") == 200000 and outcome.output.endswith("199999\n200000\n")


def test_output_decodes_characters_split_across_chunks_as_a_whole_would():
    data = "héllo ✓ wörld\r\n".encode() * 50 + b"\xff\xfe bad \xe2\x9c"
    for size in (1, 2, 3, 7, 64):
        buffer = Output()
        for i in range(0, len(data), size):
            buffer.append(data[i:i + size])
        assert buffer.text() == data.replace(b"\r\n", b"\n").decode("utf-8", "replace")
        assert buffer.text() == ""
