"""Imports, @$SHELL, macros, hooks, @ifhook and init files, expanded into one plan."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from runner.model import Kind, SourceLoc, Visibility
from runner.parse.workshop import parse_text, parse_workshop

WORKSHOPS = Path(__file__).parent / "fixtures" / "parse" / "workshops"


def _w(*parts: str) -> str:
    return str(WORKSHOPS.joinpath(*parts))


@pytest.fixture(scope="module")
def main_plan():
    return parse_workshop(_w("main.md"), no_init=True)


def _by_text(plan, text: str):
    (step,) = [s for s in plan.steps if s.text == text]
    return step


def test_imported_steps_come_in_place_with_their_own_file_and_line(main_plan):
    texts = [s.text for s in main_plan.commands]
    assert texts[:2] == ["echo loading tools", "echo in main"]
    tools = _by_text(main_plan, "echo loading tools")
    assert tools.loc == SourceLoc(_w("lib", "tools.sh"), 5)
    assert tools.called_from == (SourceLoc(_w("main.md"), 1),)


def test_nested_imports_resolve_next_to_the_importing_file(main_plan):
    helper = _by_text(main_plan, "echo helper found next to page.md")
    assert helper.loc.file == _w("lib", "helper.sh")
    assert helper.called_from == (SourceLoc(_w("main.md"), 10), SourceLoc(_w("lib", "page.md"), 8))


def test_an_import_inherits_the_mode_and_the_mode_is_restored_after(main_plan):
    assert _by_text(main_plan, "echo loading tools").visibility is Visibility.HIDE
    assert _by_text(main_plan, "echo page shown like its importer").visibility is Visibility.SHOW
    assert _by_text(main_plan, "echo helper found next to page.md").visibility is Visibility.HIDE
    assert _by_text(main_plan, "echo back in main").visibility is Visibility.SHOW


def test_section_of_an_imported_page_does_not_leak(main_plan):
    assert _by_text(main_plan, "echo page shown like its importer").section == "Imported page"
    assert _by_text(main_plan, "echo back in main").section is None


def test_macros_and_hooks_of_an_import_serve_the_importer(main_plan):
    banner = _by_text(main_plan, "echo banner")
    assert banner.called_from == (SourceLoc(_w("main.md"), 6),)
    panel = _by_text(main_plan, "show_panel")
    assert (panel.kind, panel.hook_var) == (Kind.HOOK, "PANEL")


def test_shell_workshop_starts_hidden_has_its_own_scope_and_restores_the_mode(main_plan):
    assert _by_text(main_plan, "echo part starts hidden").visibility is Visibility.HIDE
    assert _by_text(main_plan, "echo part shown").visibility is Visibility.SHOW
    assert _by_text(main_plan, "echo after the part").visibility is Visibility.SHOW
    unknown = _by_text(main_plan, "banner")
    assert unknown.modifiers.optional
    assert unknown.called_from == (SourceLoc(_w("main.md"), 14),)


def test_missing_import_is_an_error_at_the_import_line(main_plan):
    (finding,) = main_plan.findings
    assert (finding.loc, finding.code, finding.severity.value) == (
        SourceLoc(_w("main.md"), 16), "missing-import", "error")
    assert "'does/not/exist.sh'" in finding.message


def test_relative_main_path_stays_relative():
    relative = os.path.relpath(_w("main.md"))
    plan = parse_workshop(relative, no_init=True)
    assert plan.file == relative
    assert plan.commands[0].loc.file == os.path.join(os.path.dirname(relative), "lib", "tools.sh")


def test_import_falls_back_to_the_working_directory(tmp_path):
    (tmp_path / "tools.sh").write_text("echo from cwd fallback\n")
    (tmp_path / "docs").mkdir()
    from_cwd = os.path.relpath(tmp_path / "tools.sh")
    main = tmp_path / "docs" / "main.md"
    main.write_text(f"<!-- @import {from_cwd} -->\n")
    plan = parse_workshop(str(main), no_init=True)
    assert [(s.text, s.loc.file) for s in plan.commands] == [("echo from cwd fallback", from_cwd)]


def test_import_cycles_are_refused():
    plan = parse_workshop(_w("cycle", "a.md"), no_init=True)
    (finding,) = plan.findings
    assert (finding.loc, finding.code) == (SourceLoc(_w("cycle", "b.sh"), 2), "import-cycle")
    assert [s.text for s in plan.commands] == ["echo in b"]


def test_unreadable_import_is_an_error_not_a_crash(tmp_path):
    (tmp_path / "blob.sh").write_bytes(b"\x00\x01binary")
    (tmp_path / "latin.sh").write_bytes(b"echo caf\xe9\n")
    main = tmp_path / "main.md"
    main.write_text("<!-- @import blob.sh -->\n<!-- @import latin.sh -->\n")
    plan = parse_workshop(str(main), no_init=True)
    assert [(f.loc.line, f.code) for f in plan.findings] == [(1, "unreadable-import"),
                                                             (2, "unreadable-import")]
    assert "binary" in plan.findings[0].message and "UTF-8" in plan.findings[1].message


@pytest.fixture(scope="module")
def macro_plan():
    return parse_workshop(_w("macros.md"), no_init=True)


def test_macro_calls_expand_in_place_from_html_and_from_a_plain_command_line(macro_plan):
    calls = [s for s in macro_plan.commands if s.text == "echo hello from the macro"]
    assert [c.called_from for c in calls] == [(SourceLoc(_w("macros.md"), 21),),
                                              (SourceLoc(_w("macros.md"), 24),)]
    assert all(c.loc == SourceLoc(_w("macros.md"), 3) for c in calls)
    assert all(c.visibility is Visibility.SHOW for c in calls)


def test_a_workshop_macro_replaces_the_built_in_of_the_same_name(macro_plan):
    step = [s for s in macro_plan.steps if s.called_from == (SourceLoc(_w("macros.md"), 25),)]
    assert [(s.kind, s.loc.line) for s in step] == [(Kind.CLEAR, 16)]


def test_built_in_macros_use_the_call_site_and_the_built_in_hooks(macro_plan):
    for line, expected in [
        (27, [(Kind.WAIT, None), (Kind.HOOK, "BROWSER"), (Kind.WAIT, None), (Kind.CLEAR, None),
              (Kind.HOOK, "TERMINAL")]),
        (28, [(Kind.HOOK, "SLIDES"), (Kind.WAIT, None), (Kind.CLEAR, None),
              (Kind.HOOK, "TERMINAL")]),
    ]:
        call = SourceLoc(_w("macros.md"), line)
        steps = [s for s in macro_plan.steps if s.called_from == (call,)]
        assert [(s.kind, s.hook_var) for s in steps] == expected
        assert {s.loc for s in steps} == {call}


def test_recursive_macros_are_refused_without_looping(macro_plan):
    codes = {(f.loc.line, f.code) for f in macro_plan.findings}
    assert (13, "recursive-macro") in codes


def test_ifhook_bodies_carry_the_hook_variable(macro_plan):
    step = _by_text(macro_plan, "echo only with a browser hook")
    assert step.if_hooks == ("BROWSER",)


def test_ifhook_of_an_undefined_hook_is_skipped_with_a_warning(macro_plan):
    assert _by_text(macro_plan, "echo never runs").visibility is Visibility.SKIP
    assert (38, "undefined-hook") in {(f.loc.line, f.code) for f in macro_plan.findings}


def test_unterminated_macro_is_an_error(macro_plan):
    assert (41, "unterminated-macro") in {(f.loc.line, f.code) for f in macro_plan.findings}


def test_hooks_nested_ifhooks_and_plain_hook_names():
    plan = parse_workshop(_w("hooks.md"), no_init=True)
    hooks = [(s.loc.line, s.hook_var, s.if_hooks) for s in plan.steps if s.kind is Kind.HOOK]
    assert hooks == [(4, "EDITOR", ()), (8, "MY_BROWSER", ("EDITOR",)), (13, "EDITOR", ())]
    assert _by_text(plan, "echo nested").if_hooks == ("EDITOR", "TERMINAL")
    assert plan.findings == ()


def test_a_macro_may_be_called_before_the_import_that_defines_it(tmp_path):
    (tmp_path / "defs.sh").write_text("#@macro late\necho late body\n#@end\n")
    main = tmp_path / "main.md"
    main.write_text("<!-- @late -->\n<!-- @import defs.sh -->\n")
    plan = parse_workshop(str(main), no_init=True)
    assert [s.text for s in plan.commands] == ["echo late body"]


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".demoshrc").write_text("#@hook show_notes NOTES\n#@macro hello\necho hi\n#@end\n"
                                    "echo init shell\n")
    (home / ".demoshrc.md").write_text("```bash\necho init markdown\n```\n")
    return str(home)


def test_init_files_run_first_and_define_hooks_and_macros(home):
    plan = parse_text("<!-- @SHOW -->\n<!-- @show_notes -->\n<!-- @hello -->\n", "w.md",
                      no_init=False, home=home)
    assert [(s.kind, s.text) for s in plan.steps] == [
        (Kind.COMMAND, "echo init shell"), (Kind.COMMAND, "echo init markdown"),
        (Kind.HOOK, "show_notes"), (Kind.COMMAND, "echo hi")]
    assert plan.steps[0].loc == SourceLoc(os.path.join(home, ".demoshrc"), 5)
    assert plan.steps[0].visibility is Visibility.HIDE


def test_no_init_skips_the_init_files(home):
    plan = parse_text("<!-- @show_notes -->\n", "w.md", no_init=True, home=home)
    (step,) = plan.steps
    assert (step.kind, step.modifiers.optional) == (Kind.COMMAND, True)
