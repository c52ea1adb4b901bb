"""Properties of the matcher: output matches itself; volatile changes pass; real changes never do."""
from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from runner.verify.compare import compare_output
from runner.verify.normalise import _line, normalise
from runner.verify.volatile import Canon

SAFE = "bcdfghjklmnpqrstvwxz2456789"
HASH = "456789bcdf"
STATUSES = ("Running", "Pending", "Completed", "Terminating", "Error", "ContainerCreating",
            "Init:CrashLoopBackOff", "Init:0/1", "ImagePullBackOff", "Evicted")
HEADER = ("NAME", "READY", "STATUS", "RESTARTS", "AGE")

words = st.from_regex(r"[a-z]{2,8}(-[a-z]{2,8})?", fullmatch=True)
pods = st.lists(
    st.tuples(words, st.integers(0, 4), st.integers(1, 4), st.sampled_from(STATUSES)),
    min_size=1, max_size=12, unique_by=lambda p: p[0],
)


def _volatile(rng: random.Random) -> tuple[str, str, str]:
    """A generated suffix, a RESTARTS cell and an AGE cell, all different on every call."""
    suffix = "".join(rng.choice(HASH) for _ in range(rng.randint(8, 10))) + "-" + "".join(
        rng.choice(SAFE) for _ in range(4)) + rng.choice("bcdfg")
    restarts = rng.choice(("0", f"{rng.randint(1, 9)} ({rng.randint(1, 59)}s ago)"))
    age = rng.choice((f"{rng.randint(1, 59)}s", f"{rng.randint(1, 59)}m{rng.randint(0, 59)}s", f"{rng.randint(1, 9)}d"))
    return suffix, restarts, age


def render(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[c]) for r in [HEADER, *rows]) for c in range(len(HEADER))]
    return ["   ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [HEADER, *rows]]


def table(spec, rng: random.Random) -> list[tuple[str, ...]]:
    rows = []
    for prefix, ready, total, status in spec:
        suffix, restarts, age = _volatile(rng)
        rows.append((f"{prefix}-{suffix}", f"{min(ready, total)}/{total}", status, restarts, age))
    return rows


@given(st.text(max_size=300))
def test_any_output_matches_itself(text):
    assert compare_output(normalise(text), text) is None


@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"),
                        max_size=40), max_size=8),
       st.sampled_from(("auto", "exact", "contains", "unordered")))
def test_any_lines_match_themselves_in_every_mode(lines, mode):
    assert compare_output(lines, "\n".join(lines), expect=mode) is None


@settings(max_examples=60)
@given(pods, st.randoms(use_true_random=False))
def test_shuffled_rows_with_new_suffixes_ages_and_restarts_match(spec, rng):
    expected = render(table(spec, rng))
    actual = table(spec, rng)
    rng.shuffle(actual)
    assert compare_output(expected, "\n".join(render(actual))) is None


@settings(max_examples=80)
@given(pods, st.randoms(use_true_random=False), st.data())
def test_a_changed_status_ready_count_or_name_prefix_is_never_forgiven(spec, rng, data):
    expected = render(table(spec, rng))
    i = data.draw(st.integers(0, len(spec) - 1))
    prefix, ready, total, status = spec[i]
    what = data.draw(st.sampled_from(("status", "ready", "prefix")))
    if what == "status":
        status = data.draw(st.sampled_from([s for s in STATUSES if s != status]))
    elif what == "ready":
        ready = data.draw(st.integers(0, total).filter(lambda n: n != min(ready, total)))
    else:
        new = data.draw(words)
        assume(new != prefix)
        prefix = new
    changed = [*spec[:i], (prefix, ready, total, status), *spec[i + 1:]]
    actual = table(changed, rng)
    rng.shuffle(actual)
    mismatch = compare_output(expected, "\n".join(render(actual)))
    assert mismatch is not None
    if what != "prefix":
        column = "STATUS" if what == "status" else "READY"
        assert any(d.startswith(f"{spec[i][0]}-*: {column} expected") for d in mismatch.details), mismatch


cells = st.one_of(
    st.from_regex(r"[a-z]{1,8}(-[a-z]{1,6}|-[0-9]{1,5})*-[bcdfghjklmnpqrstvwxz2456789013]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}",
                  fullmatch=True),
    st.from_regex(r"[a-z]{1,8}(-[a-z]{1,6}|-[0-9]{1,5})*-[456789bcdf]{8,10}", fullmatch=True),
    st.from_regex(r"[a-z]{1,8}(-[a-z]{1,6}|-[0-9]{1,8})*-[bcdfghjklmnpqrstvwxz2456789]{5}", fullmatch=True),
    st.from_regex(r"(1?[0-9]{1,2}|2[0-5][0-5])(\.(1?[0-9]{1,2}|2[0-5][0-5])){3}", fullmatch=True),
    st.from_regex(r"[0-9]{1,4}(\.[0-9])?(ms|s|m|h|d)([0-9]{1,2}(s|m))?", fullmatch=True),
    st.from_regex(r"[0-9]{1,3} \([0-9]{1,2}[smh] ago\)", fullmatch=True),
    st.from_regex(r"[0-9]{1,3}(/[0-9]{1,3})?|[A-Za-z]{1,15}|<none>", fullmatch=True),
    st.text(alphabet="abcdef0123456789-.:/ ", max_size=30),
    # Durations whose digits and `d`s run long enough to read as hex; names whose numbers look like dates.
    st.from_regex(r"[0-9]{1,6}(\.[0-9]{1,12})?d([0-9]{1,8}d){0,3}", fullmatch=True),
    st.from_regex(r"[a-z]{1,3}(-[0-9]{2,8}){1,3}-[bcdf0-9]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}", fullmatch=True),
)


@settings(max_examples=300)
@given(cells)
def test_the_fast_forms_canonicalise_a_cell_as_every_kind_would(cell):
    """Table cells take a shortcut (volatile._quick); it must agree with running every kind."""
    for canon in (Canon(()), Canon((), loose=True)):
        assert canon.one(cell) == canon._rewrite(cell)


def _cell(rng: random.Random, form: int) -> str:
    """A table cell of a form the fast paths know (mostly `form`), near misses of them, and other values."""
    stem = rng.choice(("web", "shop-api", f"app-{rng.randint(0, 99999)}", "a-2024-12", "db-12345678-1234", "Web",
                       "web-abc1", "-x", "x-2024-01-05", "b-0000000000000000", "pod-template-hash=ab", "ab-cd-ef"))
    pick = lambda alphabet, n: "".join(rng.choice(alphabet) for _ in range(n))  # noqa: E731
    forms = (
        lambda: f"{stem}-{pick(HASH, rng.randint(8, 10))}-{pick(SAFE, 5)}",
        lambda: f"{stem}-{pick(SAFE + '013', rng.randint(5, 11))}-{pick(SAFE + 'aeu13', 5)}",
        lambda: f"{stem}-{pick(SAFE + 'a0', 5)}",
        lambda: f"{stem}-{pick(HASH + 'a2', rng.randint(7, 11))}",
        lambda: ".".join(str(rng.choice((0, 1, 10, 127, 255, 256, rng.randint(0, 300))))
                         for _ in range(rng.choice((3, 4, 4, 5)))),
        lambda: rng.choice(("0", "1/2", "Running", "<none>", "5d", "3m2s",
                            f"{rng.randint(0, 9)} ({rng.randint(1, 59)}s ago)")),
        lambda: pick("abc-019.:/ x", rng.randint(1, 14)).strip() or "z",
        lambda: f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}T1{rng.randint(0, 9)}:0{rng.randint(0, 9)}:00Z",
        lambda: f"80:{rng.randint(30000, 32767)}/TCP",
        lambda: pick("0123456789abcdef", rng.randint(10, 14)),
        lambda: pick("0123456789d.", rng.randint(2, 16)),
        lambda: stem,
        lambda: f"svclb-traefik-{pick('0123456789abcdef', 8)}-{pick(SAFE, 5)}",
    )
    return (forms[form] if rng.random() < 0.8 else rng.choice(forms))()


def test_a_column_of_many_cells_canonicalises_each_as_every_kind_would():
    """Big columns are rewritten by passes over all their cells at once (Canon.column); the same forms."""
    for seed in range(150):
        rng = random.Random(seed)
        form = rng.randrange(13)
        column = [_cell(rng, form) for _ in range(rng.choice((64, 100, 300)))]
        column += rng.sample(column, len(column) // 4)  # some cells repeat
        if seed % 10 == 0:  # what normalised output never holds: a newline, the markers and NUL the passes write
            column += ["web-1\nx", "web-x7k2p\x12", "\x00web-x7k2p", "10.1.2.3\x07"]
        for canon in (Canon(()), Canon((), loose=True)):
            assert canon.column(column) == [canon._rewrite(cell) for cell in column]
            assert canon.column(column) == [canon._rewrite(cell) for cell in column]  # again, partly from the cache


@given(st.text(alphabet=st.sampled_from(list("ab \t\n.:-09")), max_size=60), st.booleans())
def test_output_without_control_characters_takes_the_quick_path_to_the_same_lines(text, tabs):
    slow = [_line(line, tabs) for line in text.split("\n")]
    while slow and not slow[-1]:
        slow.pop()
    assert normalise(text, tabs=tabs) == slow


# Tables whose columns a workshop configured (settings), report a state (statuses) or measured.
SETTING_COLUMNS = {
    "CPU REQUESTS": lambda rng: f"{rng.choice((50, 100, 250, 500, 750))}m",
    "MEMORY LIMITS": lambda rng: f"{rng.choice((64, 128, 256, 512))}Mi",
    "REPLICAS": lambda rng: str(rng.randint(1, 9)),
    "WEIGHT": lambda rng: f"{rng.choice((100, 200, 500, 900))}m",
    "TIMEOUT": lambda rng: f"{rng.choice((5, 10, 30, 60))}s",
    "TARGETS": lambda rng: f"{rng.randint(0, 300)}%/{rng.choice((50, 60, 80))}%",
}
STATUS_COLUMNS = {"STATUS": lambda rng: rng.choice(STATUSES), "READY": lambda rng: f"{rng.randint(0, 3)}/3"}
MEASURED_COLUMNS = {
    "AGE": lambda rng: rng.choice((f"{rng.randint(1, 59)}s", f"{rng.randint(1, 59)}m{rng.randint(0, 59)}s")),
    "RESTARTS": lambda rng: rng.choice(("0", f"{rng.randint(1, 9)} ({rng.randint(1, 59)}s ago)")),
    "CPU(cores)": lambda rng: f"{rng.randint(1, 999)}m",
    "MEMORY(bytes)": lambda rng: f"{rng.randint(1, 999)}Mi",
    "LATENCY_P99": lambda rng: f"{rng.randint(1, 500)}ms",
    "COUNT": lambda rng: str(rng.randint(0, 5000)),
}


def _columns(rng: random.Random) -> list[str]:
    picked = ["NAME", *rng.sample(sorted(SETTING_COLUMNS), 2), *rng.sample(sorted(STATUS_COLUMNS), 1),
              *rng.sample(sorted(MEASURED_COLUMNS), 2)]
    return [picked[0], *rng.sample(picked[1:], len(picked) - 1)]


def _value(column: str, rng: random.Random) -> str:
    return {**SETTING_COLUMNS, **STATUS_COLUMNS, **MEASURED_COLUMNS}[column](rng)


def _render(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    return ["   ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [header, *rows]]


@settings(max_examples=80)
@given(st.randoms(use_true_random=False), st.integers(1, 8), st.data())
def test_settings_and_statuses_are_literal_and_measurements_forgiven_in_any_table(rng, n, data):
    header = _columns(rng)
    rows = [[f"app{i}-{''.join(rng.choice(SAFE) for _ in range(4))}b", *(_value(c, rng) for c in header[1:])]
            for i in range(n)]
    expected = _render(header, rows)
    measured = [[cell if c not in MEASURED_COLUMNS else _value(c, rng) for c, cell in zip(header, row)] for row in rows]
    rng.shuffle(measured)
    assert compare_output(expected, "\n".join(_render(header, measured))) is None

    row = data.draw(st.integers(0, n - 1))
    column = data.draw(st.sampled_from([c for c in header if c in SETTING_COLUMNS or c in STATUS_COLUMNS]))
    c = header.index(column)
    original = next(r for r in measured if r[0] == rows[row][0])
    new = data.draw(st.sampled_from(sorted({_value(column, random.Random(k)) for k in range(40)} - {original[c]})))
    if column == "TARGETS":  # the measured use may change; a target is what a changed cell must change
        new = original[c].split("/")[0] + "/" + data.draw(st.sampled_from(
            [t for t in ("55%", "65%", "90%") if t != original[c].split("/")[1]]))
    changed = [[new if r is original and k == c else cell for k, cell in enumerate(r)] for r in measured]
    mismatch = compare_output(expected, "\n".join(_render(header, changed)))
    assert mismatch is not None, (column, original[c], new)
    assert any(f"{column} expected" in d for d in mismatch.details), mismatch
