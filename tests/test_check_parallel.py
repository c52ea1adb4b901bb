"""`check -j N` and `--shard K/N`: the same verdicts and reports as one by one, each file once."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from runner.arguments import shard as parse_shard
from runner.discover import shard

FIXTURES = Path(__file__).parent / "fixtures" / "parallel"
_TIMES = re.compile(r"\d+(?:\.\d+)?s\b|\d+m\d\ds\b")


def _same_apart_from_times(text: str) -> str:
    # Column widths follow the times' widths, so spaces and the table's rules are folded too.
    return re.sub(r"─+", "─", re.sub(r"[ \t]+", " ", _TIMES.sub("T", text)))


def _junit_without_times(path: Path) -> str:
    return re.sub(r' time="[^"]*"', "", path.read_text())


def test_parallel_check_reports_exactly_what_a_serial_one_does(demorun, tmp_path):
    one, two = tmp_path / "one.xml", tmp_path / "two.xml"
    serial = demorun("check", "-j", "1", "--junit", str(one), "--html", str(tmp_path / "one.html"), str(FIXTURES))
    parallel = demorun("check", "-j", "2", "--junit", str(two), "--html", str(tmp_path / "two.html"),
                       str(FIXTURES))
    assert serial.exit_code == parallel.exit_code == 2  # broken.md is an error, and the rest still ran
    assert "PASS" in serial.output and "FAIL" in serial.output and "ERROR" in serial.output
    assert "SKIP" in serial.output  # @requires of a missing tool
    assert _same_apart_from_times(parallel.output) == _same_apart_from_times(serial.output)
    assert _junit_without_times(two) == _junit_without_times(one)
    html = [_same_apart_from_times((tmp_path / name).read_text()) for name in ("one.html", "two.html")]
    assert html[0] == html[1]


def test_a_broken_file_is_an_error_and_the_next_still_runs(demorun, tmp_path):
    junit = tmp_path / "junit.xml"
    for jobs in ("1", "2"):
        result = demorun("check", "-j", jobs, "--junit", str(junit),
                         str(FIXTURES / "broken.md"), str(FIXTURES / "passes.md"))
        assert result.exit_code == 2, result.output
        assert re.search(r"^ERROR .*broken\.md", result.output, re.M)
        assert re.search(r"^PASS .*passes\.md +2 passed", result.output, re.M)
        assert "not UTF-8" in result.output  # the parse error itself, in the summary
        assert "1 error in" in result.output
        xml = junit.read_text()
        assert 'errors="1"' in xml and "<error " in xml and "not UTF-8" in xml


def test_fail_fast_in_parallel_stops_where_a_serial_run_would(demorun, workshop):
    files = [workshop("```bash\ntrue\n```\n", "a.md"),
             workshop("```bash\nfalse\n```\n", "b.md"),
             workshop("```bash\ntrue\n```\n", "c.md"),
             workshop("```bash\ntrue\n```\n", "d.md")]
    serial = demorun("check", "--fail-fast", *files)
    parallel = demorun("check", "--fail-fast", "-j", "3", *files)
    assert serial.exit_code == parallel.exit_code == 1
    assert _same_apart_from_times(parallel.output) == _same_apart_from_times(serial.output)
    assert "b.md" in parallel.output and "c.md" not in parallel.output


def test_shards_cover_every_file_exactly_once(demorun, workshop):
    files = [workshop("```bash\ntrue\n```\n", f"w{i}.md") for i in range(7)]
    seen: list[str] = []
    for k in (1, 2, 3):
        result = demorun("check", "--shard", f"{k}/3", *reversed(files))
        assert result.exit_code == 0, result.output
        seen += re.findall(r"^PASS (\S+)", result.output, re.M)
    assert sorted(seen) == sorted(files)


def test_the_split_is_stable_whatever_the_order_of_the_paths():
    files = [f"docs/{name}.md" for name in "qwertyuiopasdfgh"]
    for n in (1, 2, 3, 5, 16, 20):
        parts = [shard(files, k, n) for k in range(1, n + 1)]
        assert sorted(f for part in parts for f in part) == sorted(files)
        assert [sorted(shard(files[::-1], k, n)) for k in range(1, n + 1)] == [sorted(p) for p in parts]
        assert max(map(len, parts)) - min(map(len, parts)) <= 1  # balanced


def test_an_empty_shard_passes_with_a_note(demorun, workshop):
    path = workshop("```bash\ntrue\n```\n")
    result = demorun("check", "--shard", "2/2", path)
    assert result.exit_code == 0, result.output
    assert "shard 2/2: 0 of 1 file(s)" in result.output


@pytest.mark.parametrize("value", ["0/3", "4/3", "1/0", "a/b", "3", "-1/2", "1/2/3", "99999999999/1"])
def test_a_bad_shard_is_a_usage_error(demorun, workshop, value):
    result = demorun("check", "--shard", value, workshop("```bash\ntrue\n```\n"))
    assert result.exit_code == 2
    assert "--shard" in result.output and "Traceback" not in result.output
    with pytest.raises(ValueError):
        parse_shard(value)


@pytest.mark.parametrize("value", ["0", "-2", "x", "1.5", ""])
def test_a_bad_job_count_is_a_usage_error(demorun, workshop, value):
    result = demorun("check", "-j", value, workshop("```bash\ntrue\n```\n"))
    assert result.exit_code == 2
    assert "--jobs" in result.output


def test_jobs_auto_checks_with_one_process_per_core(demorun, workshop):
    files = [workshop("```bash\necho $1-ok\n```\n", f"w{i}.md") for i in range(3)]
    result = demorun("check", "-j", "auto", *files)
    assert result.exit_code == 0, result.output
    assert result.output.count("PASS") == 3 + 3  # progress lines and table rows


def test_check_of_a_folder_leaves_its_scripts_alone_and_says_so(tmp_path):
    (tmp_path / "tour.md").write_text("```bash\ntrue\n```\n")
    (tmp_path / "setup.sh").write_text("touch ran-setup\n")
    done = subprocess.run([sys.executable, "-m", "runner", "check", str(tmp_path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 .sh file(s) below the folders given are not run" in done.stderr
    assert not (tmp_path / "ran-setup").exists()
    named = subprocess.run([sys.executable, "-m", "runner", "check", str(tmp_path / "setup.sh")],
                           capture_output=True, text=True, timeout=60)
    assert named.returncode == 0, named.stdout + named.stderr
    assert (tmp_path / "ran-setup").exists()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waits only for its parent to read it
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _start_recording_pids(tmp_path, files: int, then: str = "") -> tuple[subprocess.Popen, list[int]]:
    """`check -j FILES` of workshops whose first command writes its shell's pid and sleeps;
    returned once every session is running, with those pids. `then` is a second fence."""
    for i in range(files):
        (tmp_path / f"w{i}.md").write_text(f"```bash\necho $$ > {tmp_path}/pid{i}; sleep 60\n```\n{then}")
    proc = subprocess.Popen([sys.executable, "-m", "runner", "check", "-j", str(files), str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(list(tmp_path.glob("pid*"))) < files and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.2)  # a pid file is written just before its sleep starts
    pids = [int(p.read_text()) for p in tmp_path.glob("pid*")]
    assert len(pids) == files, "not every session started"
    return proc, pids


@pytest.mark.parametrize("signals", [(signal.SIGTERM,), (signal.SIGINT, signal.SIGINT)])
def test_stopping_a_parallel_check_ends_every_session(tmp_path, signals):
    proc, pids = _start_recording_pids(tmp_path, 3, "\n```bash\nsleep 60\n```\n")
    for signum in signals:
        proc.send_signal(signum)
        time.sleep(0.5)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signals[0], out + err  # 143 after SIGTERM, 130 after Ctrl-C
    assert "Traceback" not in err
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pids if _alive(pid)]


def test_one_interrupt_stops_the_running_commands_and_the_check_goes_on(tmp_path):
    proc, _ = _start_recording_pids(tmp_path, 2, "\n```bash\necho after\n## after\n```\n")
    time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1, out + err  # the interrupted sleeps fail; the next commands pass
    assert out.count("1 passed, 1 failed") == 2


def test_update_in_parallel_writes_each_file_as_a_serial_run_would(demorun, workshop):
    stale = "```bash\necho now\n## then\n```\n"
    files = [workshop(stale, f"w{i}.md") for i in range(3)]
    result = demorun("check", "-j", "2", "--update", *files)
    assert result.exit_code == 0, result.output
    assert all(Path(f).read_text() == "```bash\necho now\n## now\n```\n" for f in files)


def test_a_worker_that_dies_is_an_error_for_its_file_only(demorun, workshop):
    files = [workshop("```bash\ntrue\n```\n", "a.md"),
             workshop("```bash\nkill -9 $PPID\n```\n", "b.md"),  # bash's parent is the worker
             workshop("```bash\ntrue\n```\n", "c.md"),
             workshop("```bash\ntrue\n```\n", "d.md")]
    result = demorun("check", "-j", "2", *files)
    assert result.exit_code == 2, result.output
    assert re.search(r"^ERROR .*b\.md +not checked: .*b\.md: its worker process ended unexpectedly",
                     result.output, re.M)
    assert len(re.findall(r"^PASS .*1 passed", result.output, re.M)) == 3  # a, c and d, after b



_STUBBORN = """
import os, signal, sys, time
from runner.modes.parallel import ordered_map

def work(item):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a cleanup that takes its time
    open(f"{sys.argv[1]}/started{item}", "w").close()
    time.sleep(60)

try:
    list(ordered_map(work, [0, 1], 2, lambda item, why: why))
except BaseException as exc:
    print(type(exc).__name__, exc)
"""


def test_asking_again_while_workers_clean_up_ends_them_at_once(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", _STUBBORN, str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while len(list(tmp_path.glob("started*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)  # the workers are asked to stop, and take their time
    time.sleep(1.0)
    assert proc.poll() is None
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - started < 10
    assert out.strip() == "Aborted terminated (SIGTERM)", err


def test_killing_the_main_process_ends_the_workers_and_their_sessions(tmp_path):
    proc, pids = _start_recording_pids(tmp_path, 2)
    proc.kill()
    proc.communicate()
    deadline = time.monotonic() + 15
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in pids if _alive(pid)]


# Stopped while workers run: what they did is reported, per file, as a serial run reports it.

_STOPPABLE = """```bash
echo ok
## ok
```

```bash
bash -c 'trap "" INT; touch {here}/started-{tag}; sleep 60'
```

```bash
echo never
## never
```
"""


@pytest.mark.parametrize("signals", [(signal.SIGTERM,), (signal.SIGHUP,), (signal.SIGINT, signal.SIGINT)],
                         ids=["sigterm", "sighup", "ctrl-c-twice"])
def test_a_stopped_parallel_check_reports_what_each_worker_did(tmp_path, signals):
    import xml.etree.ElementTree as ET

    for tag in ("a", "b", "c"):  # c waits for a worker, and never starts
        (tmp_path / f"{tag}.md").write_text(_STOPPABLE.format(here=tmp_path, tag=tag))
    junit, html = tmp_path / "junit.xml", tmp_path / "report.html"
    proc = subprocess.Popen([sys.executable, "-m", "runner", "check", "-j", "2", "--junit", str(junit),
                             "--html", str(html), *(str(tmp_path / f"{t}.md") for t in "abc")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ,
                                                                                           "NO_COLOR": "1"})
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("started-*"))) < 2:
        assert time.monotonic() < deadline and proc.poll() is None, "the workers never got going"
        time.sleep(0.05)
    for signum in signals:
        proc.send_signal(signum)
        time.sleep(0.3)
    out, err = proc.communicate(timeout=150)
    said = {signal.SIGTERM: "terminated (SIGTERM)", signal.SIGHUP: "hung up (SIGHUP)",
            signal.SIGINT: "interrupted (SIGINT)"}[signals[0]]
    assert proc.returncode == 128 + signals[0], out + err
    assert f"demorun: {said}; reports written: {junit}, {html}" in err
    for tag in ("a", "b"):  # the console: each worker's file, with what ran and what was cut short
        assert re.search(rf"^FAIL .*{tag}\.md +1 passed, 1 failed, 1 skipped", out, re.M), out
    assert re.search(rf"c\.md.*not run: {re.escape(said)}", out), out
    suites = {Path(s.get("name")).name: s for s in ET.parse(junit).getroot().iter("testsuite")}
    for tag in ("a", "b"):
        cases = {c.get("line"): c for c in suites[f"{tag}.md"].iter("testcase")}
        assert cases["2"].find("failure") is None and cases["2"].find("skipped") is None
        assert said in cases["7"].find("failure").get("message")
        assert cases["11"].find("skipped") is not None
    assert "c.md" in suites and said in ET.tostring(suites["c.md"], encoding="unicode")
    page = html.read_text()
    assert page.count(said) >= 3 and "echo never" in page
