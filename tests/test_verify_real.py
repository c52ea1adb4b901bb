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

# Pairs the verifier gets wrong today, by the class of output it misjudges. Strict: a pair that
# starts to agree with its label must leave this list, so the counts below stay true.
FALSE_ACCEPTS = {  # labelled fail, the verifier passes them
    "linkerd_stat_circuit_breaker_opened": "a success rate that rose (6.43% to 94.74%) passes: only a fall fails",
    "linkerd_stat_to_svc_breaker": "a success rate that rose (51.00% to 99.83%) passes: only a fall fails",
    "kthw_pod_cidr_routes_renumbered": "node addresses in a two-column IP/CIDR table read as assigned",
}
FALSE_REJECTS: dict[str, str] = {  # labelled pass, the verifier fails them
    "kubectl_diff_temp_folders": "the random LIVE-/MERGED- folders and file times of `kubectl diff`",
    "kubectl_diff_generation_change": "metadata.generation inside a `kubectl diff` hunk",
    "printenv_service_vars_other_order": "service variables from `printenv` in another order",
    "kthw_componentstatuses_json_spacing": "the same JSON in a table cell with and without spaces",
    "kthw_componentstatuses_kubectl_chapter": "the same JSON in a table cell with and without spaces",
    "kthw_ssh_logout_masked_ip": "an address masked with X of another length",
    "fortio_load_google_two_runs": "fortio's histogram has another number of bucket lines; banner wording",
    "fortio_load_google_release_banner": "fortio's histogram bucket lines and log source lines",
    "klog_kubelet_lines_later": "the pid in a journal `kubelet[937]:` prefix and the klog thread id",
    "ps_aux_container_restarted": "`ps aux` columns split wrongly when a VSZ overflows its width; PIDs and START vary",
    "git_log_graph_replayed": "abbreviated hashes in a `Merge: 7cd82db 85b2a0f` line of `git log --graph`",
    "certmanager_describe_certificate_order_name": "a generated name (hash suffix) inside a quoted event message",
    "certmanager_describe_issuer_other_cluster": "a server-assigned account number at the end of a status URI",
    "linkerd_traefik_annotation_quotes": "the same YAML string in single and in double quotes",
}


def _param(path: Path):
    known = FALSE_ACCEPTS.get(path.stem) or FALSE_REJECTS.get(path.stem)
    marks = [pytest.mark.xfail(reason=known, strict=True)] if known else []
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.parametrize("path", [_param(p) for p in PAIRS])
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


def test_known_misjudgements_are_few_and_named():
    """The count the verifier is measured by: no false accept is the target, unambiguous false rejects under 5%."""
    stems = {p.stem for p in PAIRS}
    assert set(FALSE_ACCEPTS) <= stems and set(FALSE_REJECTS) <= stems, "a listed pair has no file"
    unambiguous = [s for s in FALSE_REJECTS if "ambiguous" not in load_pair(REAL / f"{s}.pair")]
    print(f"real pairs: {len(PAIRS)}, false accepts: {len(FALSE_ACCEPTS)}, "
          f"false rejects: {len(FALSE_REJECTS)} ({len(unambiguous)} unambiguous)")
