"""The Rust ONNX loader (`mavis nn eval`) must agree with onnxruntime."""
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

COMMITTED = REPO / "networks" / "guarding.onnx"


def mavis_bin() -> Path:
    path = Path(os.environ.get("MAVIS_BIN") or REPO / "target" / "release" / "mavis")
    if not path.is_file():
        pytest.fail(f"mavis binary not found at {path}: build it with `cargo build --release` "
                    "or set MAVIS_BIN (this test needs the Rust loader)")
    return path


@pytest.mark.parametrize("x", [0.75, 0.25, 0.5, 1.0])
def test_mavis_nn_eval_agrees_with_onnxruntime(x):
    proc = subprocess.run([str(mavis_bin()), "nn", "eval", str(COMMITTED), "--input", repr(x), "--format", "json"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"mavis nn eval failed ({proc.returncode}): {proc.stderr}"
    report = json.loads(proc.stdout)
    ours = np.asarray(report["results"]["outputs"][0], dtype=np.float64).reshape(-1)
    sess = ort.InferenceSession(str(COMMITTED), providers=["CPUExecutionProvider"])
    theirs = sess.run(["q"], {"x": np.array([[x]], dtype=np.float32)})[0].reshape(-1).astype(np.float64)
    assert ours.shape == (2,)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=0)
