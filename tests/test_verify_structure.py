"""Where a value sits says whether it may change: declared sections compare as written, assigned ones forgive."""
import pytest

from runner.verify.compare import compare_output
from runner.verify.structure import declared_lines

DIGEST_A, DIGEST_B = "3f2a" * 16, "9c1b" * 16


def verdict(expected: str, actual: str) -> str:
    return "pass" if compare_output(expected.split("\n"), actual) is None else "fail"


@pytest.mark.parametrize("expected, actual", [
    ("spec:\n  duration: 2160h\n  renewBefore: 360h", "spec:\n  duration: 24h\n  renewBefore: 360h"),
    ("spec:\n  trafficPolicy:\n    outlierDetection:\n      baseEjectionTime: 30s",
     "spec:\n  trafficPolicy:\n    outlierDetection:\n      baseEjectionTime: 3m"),
    ("spec:\n  containers:\n  - env:\n    - name: TIMEOUT\n      value: 30s",
     "spec:\n  containers:\n  - env:\n    - name: TIMEOUT\n      value: 5m"),
    ("kind: Secret\ndata:\n  password: cGFzc3dvcmQxMjM0NTY3OA==",
     "kind: Secret\ndata:\n  password: c2VjcmV0c2VjcmV0c2VjcmV0"),
    (f"image: nginx@sha256:{DIGEST_A}", f"image: nginx@sha256:{DIGEST_B}"),
    (f"    Image ID:  docker.io/library/nginx@sha256:{DIGEST_A}",
     f"    Image ID:  docker.io/library/nginx@sha256:{DIGEST_B}"),
    (f"    Image ID:  docker://sha256:{DIGEST_A}", f"    Image ID:  docker://sha256:{DIGEST_B}"),
    ("Tolerations:  node.kubernetes.io/not-ready:NoExecute op=Exists for 300s",
     "Tolerations:  node.kubernetes.io/not-ready:NoExecute op=Exists for 30s"),
    ('{"spec": {"template": {"spec": {"containers": [{"args": ["--timeout=30s"]}]}}}}',
     '{"spec": {"template": {"spec": {"containers": [{"args": ["--timeout=45s"]}]}}}}'),
])
def test_a_declared_value_that_changed_fails(expected, actual):
    assert verdict(expected, actual) == "fail"


@pytest.mark.parametrize("expected, actual", [
    ("metadata:\n  uid: 1b2c3d4e-1111-2222-3333-444455556666\n  creationTimestamp: \"2024-05-02T09:41:07Z\"",
     "metadata:\n  uid: 9b2c3d4e-1111-2222-3333-444455556666\n  creationTimestamp: \"2024-06-12T10:01:00Z\""),
    ("metadata:\n  labels:\n    pod-template-hash: 5d7f8b9c6",
     "metadata:\n  labels:\n    pod-template-hash: 7f9c4d5b8"),
    ("spec:\n  nodeName: k3d-demo-agent-0\n  clusterIP: 10.43.12.7",
     "spec:\n  nodeName: k3d-demo-agent-0\n  clusterIP: 10.43.99.1"),
    ("spec:\n  replicas: 2\nstatus:\n  lastTransitionTime: \"2024-05-02T09:41:07Z\"",
     "spec:\n  replicas: 2\nstatus:\n  lastTransitionTime: \"2024-05-03T11:00:00Z\""),
    ('{"spec": {"replicas": 3}, "metadata": {"uid": "1b2c3d4e-1111-2222-3333-444455556666"}}',
     '{"spec": {"replicas": 3}, "metadata": {"uid": "9b2c3d4e-1111-2222-3333-444455556666"}}'),
    # `data:` below the top is not a ConfigMap's: a certificate's fields keep their forgiven serials.
    ("Certificate:\n    Data:\n        Serial Number: 0x8a5f3c2e1d0b9a8f7e6d5c4b3a291807",
     "Certificate:\n    Data:\n        Serial Number: 0x1b2c3d4e5f60718293a4b5c6d7e8f901"),
])
def test_an_assigned_or_observed_value_may_change(expected, actual):
    assert verdict(expected, actual) == "pass"


def test_the_nearest_section_decides():
    lines = ["metadata:", "  name: web", "  labels:", "    app: web", "spec:", "  nodeName: n1", "  replicas: 2",
             "status:", "  replicas: 2"]
    assert declared_lines(lines) == {2, 3, 4, 6}
