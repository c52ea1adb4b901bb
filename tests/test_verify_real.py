"""The verifier on real published output it was not tuned to: pairs in fixtures/verify/real, each with its source.

One file per pair: `key: value` lines (`source:` one or more, `label: pass|fail`, `reason:`, and where they
apply `ambiguous: true`, `hint:` the verdict the source's context suggests when the label goes against it,
`constructed:` what was changed by hand to make the second side, `literal:`/`volatile:` pins, `expect:`),
then `--- expected`, `--- actual` and, for a failure, `--- verdict` with lines the failure must name.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from runner.verify.compare import compare_output
from runner.verify.roles import Pins

REAL = Path(__file__).parent / "fixtures" / "verify" / "real"
KEYS = {"source", "label", "reason", "ambiguous", "hint", "constructed", "literal", "volatile", "expect"}


def load_pair(path: Path) -> dict:
    pair: dict = {"source": [], "sections": {}}
    section = None
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line in ("--- expected", "--- actual", "--- verdict"):
            section = line[4:]
            pair["sections"][section] = []
        elif section is not None:
            pair["sections"][section].append(line)
        elif line and not line.startswith("#"):
            key, _, value = line.partition(": ")
            assert key in KEYS, f"{path.name}: unknown key {key!r}"
            if key == "source":
                pair["source"].append(value)
            else:
                pair[key] = value
    for lines in pair["sections"].values():
        while lines and not lines[-1]:
            lines.pop()
    return pair


PAIRS = sorted(REAL.glob("*.pair"))


@pytest.mark.parametrize("path", PAIRS, ids=lambda p: p.stem)
def test_real_pair(path):
    pair = load_pair(path)
    assert pair["source"] and pair.get("reason") and pair.get("label") in ("pass", "fail"), path.name
    assert all(s.startswith("https://") for s in pair["source"]), "sources are addresses a reader can open"
    pins = Pins.of(pair.get("literal", "").split(","), pair.get("volatile", "").split(",")) \
        if pair.get("literal") or pair.get("volatile") else Pins()
    expected, actual = pair["sections"]["expected"], "\n".join(pair["sections"]["actual"]) + "\n"
    mismatch = compare_output(expected, actual, expect=pair.get("expect", "auto"), pins=pins)
    if pair["label"] == "pass":
        assert mismatch is None, mismatch
        return
    assert mismatch is not None, f"{path.name} should fail: {pair['reason']}"
    for line in pair["sections"].get("verdict", []):
        assert line in mismatch.details, mismatch


def test_there_are_enough_pairs_of_each_verdict():
    pairs = [load_pair(p) for p in PAIRS]
    labels = [pair["label"] for pair in pairs]
    assert len(labels) >= 60 and labels.count("pass") >= 20 and labels.count("fail") >= 20
    # Pairs whose two sides were both published, neither made by hand from the other.
    assert sum("constructed" not in pair for pair in pairs) >= 60
