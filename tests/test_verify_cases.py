"""compare_output on the cases in fixtures/verify: tables, text and the @expect modes."""
from __future__ import annotations

from pathlib import Path

import pytest

from runner.verify.compare import compare_output

CASES = Path(__file__).parent / "fixtures" / "verify" / "cases"
VOLATILE = Path(__file__).parent / "fixtures" / "verify" / "volatile.tsv"


def load_case(path: Path) -> dict:
    """Header lines `key: value`, then `--- expected`, `--- actual` and `--- verdict` sections."""
    case: dict = {"expect": "auto", "masks": [], "sections": {}}
    section = None
    for line in path.read_bytes().decode("utf-8").split("\n"):  # carriage returns stay, as a terminal sent them
        if line in ("--- expected", "--- actual", "--- verdict"):
            section = line[4:]
            case["sections"][section] = []
        elif section is not None:
            case["sections"][section].append(line)
        elif line.startswith("mode: "):
            case["expect"] = line[6:]
        elif line.startswith("masks: "):
            case["masks"].append(line[7:])
    while case["sections"]["verdict"] and not case["sections"]["verdict"][-1]:
        case["sections"]["verdict"].pop()
    return case


@pytest.mark.parametrize("path", sorted(CASES.glob("*.case")), ids=lambda p: p.stem)
def test_case(path):
    case = load_case(path)
    expected, actual = case["sections"]["expected"], "\n".join(case["sections"]["actual"])
    verdict, *details = case["sections"]["verdict"]
    mismatch = compare_output(expected, actual, expect=case["expect"], masks=case["masks"])
    if verdict == "pass":
        assert mismatch is None, mismatch
        return
    assert mismatch is not None
    assert mismatch.summary == verdict.removeprefix("fail: ")
    for line in details:
        assert line in mismatch.details


def volatile_pairs():
    for n, line in enumerate(VOLATILE.read_text(encoding="utf-8").splitlines(), 1):
        if line and not line.startswith("#"):
            verdict, expected, actual = line.split("\t")
            yield pytest.param(verdict, expected, actual, id=f"{n}-{verdict}")


@pytest.mark.parametrize("verdict, expected, actual", list(volatile_pairs()))
def test_volatile_values(verdict, expected, actual):
    mismatch = compare_output([expected], actual + "\n")
    assert (mismatch is None) == (verdict == "same"), mismatch
