"""What was forgiven, as authors see it: `check -v`, the HTML report and `check --json`, secrets masked in all three."""
from __future__ import annotations

import json
import re

WORKSHOP = """
<!-- @SHOW -->
```bash
printf 'NAME                   READY   RESTARTS     AGE\\nweb-7f9c4d5b8-x2kqz    1/1     1 (3s ago)   12s\\n'
## NAME                   READY   RESTARTS   AGE
## web-68cc8bc689-j4ph2   1/1     0          95s
```

<!-- @literal RESTARTS -->
```bash
printf 'NAME    RESTARTS\\nweb-0   4\\n'
## NAME    RESTARTS
## web-0   0
```

```bash
export API_TOKEN=s3cr3t-0a1b2c3d; echo "token $API_TOKEN-x7k2p issued after 5s"
## token s3cr3t-0a1b2c3d-q9zt4 issued after 2s
```
"""


def test_check_verbose_lists_each_forgiven_value_under_its_command(demorun, workshop):
    path = workshop(WORKSHOP)
    result = demorun("check", "-v", path)
    assert result.exit_code == 1  # the pinned RESTARTS fails
    out = result.output
    block = out[out.index(f"FORGIVEN {path}:3"):]
    assert "line 2: 7f9c4d5b8-x2kqz (was 68cc8bc689-j4ph2): generated-name" in block
    assert "line 2: 1 (3s ago) (was 0): column RESTARTS" in block
    assert "line 2: 12s (was 95s): column AGE" in block
    assert f"{path}:10: output differs" in out and "web-0: RESTARTS expected 0, got 4" in out


def test_a_forgiven_value_whose_line_holds_a_secret_is_shown_as_stars(demorun, workshop):
    """A value cut out of a line can hold part of a secret that masking the value alone would miss."""
    path = workshop(WORKSHOP)
    result = demorun("check", "-v", path)
    forgiven = result.output[result.output.index(f"FORGIVEN {path}:16"):result.output.index(f"FAIL {path}:10")]
    assert "s3cr3t" not in forgiven and "export API_TOKEN=***" in forgiven
    assert "line 1: *** (was ***): generated-name" in forgiven and "line 1: *** (was ***): duration" in forgiven


def test_without_verbose_nothing_forgiven_is_listed(demorun, workshop):
    assert "FORGIVEN" not in demorun("check", workshop(WORKSHOP)).output


def test_the_html_report_marks_forgiven_values_with_their_rule(demorun, workshop, tmp_path):
    report = tmp_path / "report.html"
    demorun("check", "--html", str(report), workshop(WORKSHOP))
    html = report.read_text()
    assert re.search(r'<mark class="forgiven" title="forgiven by column AGE; the ## block has 95s">12s</mark>', html)
    assert '<mark class="forgiven" title="forgiven by generated-name; the ## block has 68cc8bc689-j4ph2">' \
           '7f9c4d5b8-x2kqz</mark>' in html
    assert "3 values forgiven" in html
    assert "s3cr3t" not in html
    assert "forgiven by duration" not in html  # the secret's line is shown masked, unmarked


def test_check_json_writes_the_plan_and_every_verdict_with_what_was_forgiven(demorun, workshop, tmp_path):
    out = tmp_path / "run.json"
    result = demorun("check", "--json", str(out), workshop(WORKSHOP))
    assert result.exit_code == 1
    run = json.loads(out.read_text())
    assert run["version"] == 1 and len(run["files"]) == 1
    (file,) = run["files"]
    assert file["status"] == "fail" and file["plan"]["file"].endswith("workshop.md")
    by_line = {r["line"]: r for r in file["results"]}
    assert by_line[3]["status"] == "pass" and by_line[10]["status"] == "fail"
    assert [(f["rule"], f["actual"], f["expected"]) for f in by_line[3]["forgiven"]] == [
        ("generated-name", "7f9c4d5b8-x2kqz", "68cc8bc689-j4ph2"), ("column RESTARTS", "1 (3s ago)", "0"),
        ("column AGE", "12s", "95s")]
    steps = file["plan"]["steps"]
    assert steps[by_line[10]["index"]]["modifiers"]["literal"] == ["RESTARTS"]
    assert "s3cr3t" not in out.read_text()


def test_check_json_to_a_folder_that_does_not_exist_is_refused_before_running(demorun, workshop, tmp_path):
    result = demorun("check", "--json", str(tmp_path / "missing" / "run.json"), workshop(WORKSHOP))
    assert result.exit_code == 2 and "run.json" in result.output
