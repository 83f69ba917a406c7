"""mavis's `nn verify` against Marabou (maraboupy) on a randomized suite of
small ReLU networks and VNN-LIB properties.

Each instance is decided by both tools; decided verdicts must be equal.
Every counterexample mavis reports is replayed here with numpy (not mavis)
and checked against the property. Skipped, with the reason printed, when
maraboupy is not installed (it is a measurement peer, never a dependency).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx is needed to write the networks")
try:
    from maraboupy import Marabou
except ImportError as e:  # pragma: no cover - depends on the machine
    reason = f"maraboupy is not installed ({e}): the Marabou cross-check of nn verify is skipped"
    print(f"test_marabou: {reason}", file=sys.stderr)
    pytest.skip(reason, allow_module_level=True)

from onnx import TensorProto, helper, numpy_helper

REPO = Path(__file__).resolve().parents[2]
INSTANCES = 24
TIMEOUT = 60


def mavis_bin():
    if os.environ.get("MAVIS_BIN"):
        return os.environ["MAVIS_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    return str(Path(target) / "release" / "mavis")


def random_layers(rng, sizes):
    return [(rng.uniform(-1, 1, (b, a)), rng.uniform(-0.5, 0.5, b)) for a, b in zip(sizes, sizes[1:])]


def write_onnx(layers, path):
    """MatMul + Add per layer, Relu between (float32, as Marabou reads it)."""
    nodes, inits, cur = [], [], "x"
    for k, (w, b) in enumerate(layers):
        inits += [numpy_helper.from_array(w.T.astype(np.float32), f"W{k}"),
                  numpy_helper.from_array(b.astype(np.float32), f"B{k}")]
        nodes += [helper.make_node("MatMul", [cur, f"W{k}"], [f"m{k}"]),
                  helper.make_node("Add", [f"m{k}", f"B{k}"], [f"a{k}"])]
        cur = f"a{k}"
        if k + 1 < len(layers):
            nodes.append(helper.make_node("Relu", [cur], [f"r{k}"]))
            cur = f"r{k}"
    nodes.append(helper.make_node("Identity", [cur], ["y"]))
    n_in, n_out = layers[0][0].shape[1], layers[-1][0].shape[0]
    graph = helper.make_graph(
        nodes, "net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, n_in])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, n_out])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, str(path))


def forward(layers, x):
    """The network as written (float32 weights), evaluated in float64."""
    a = np.asarray(x, dtype=np.float64)
    for k, (w, b) in enumerate(layers):
        a = w.astype(np.float32).astype(np.float64) @ a + b.astype(np.float32).astype(np.float64)
        if k + 1 < len(layers):
            a = np.maximum(a, 0.0)
    return a


def random_property(rng, n_in, n_out):
    """An input box and one output conjunction: y_i - y_j >= c or y_i >= c."""
    lines = [f"(declare-const X_{i} Real)" for i in range(n_in)]
    lines += [f"(declare-const Y_{j} Real)" for j in range(n_out)]
    box = []
    for i in range(n_in):
        lo = rng.uniform(-1, 0.5)
        hi = lo + rng.uniform(0.05, 1)
        box.append((lo, hi))
        lines += [f"(assert (>= X_{i} {lo!r}))", f"(assert (<= X_{i} {hi!r}))"]
    atoms = []
    for _ in range(rng.integers(1, 3)):
        i, j = rng.choice(n_out, 2, replace=False)
        c = float(rng.uniform(-0.5, 0.5))
        atoms.append((int(i), int(j), c))
        lines.append(f"(assert (>= (- Y_{i} Y_{j}) {c!r}))")
    return "\n".join(lines) + "\n", box, atoms


def marabou_verdict(net, prop):
    network = Marabou.read_onnx(str(net))
    options = Marabou.createOptions(timeoutInSeconds=TIMEOUT, verbosity=0)
    code, _, _ = network.solve(verbose=False, options=options, propertyFilename=str(prop))
    return code.lower()


def test_verdicts_equal_marabous(tmp_path):
    rng = np.random.default_rng(20261203)
    counts = {"sat": 0, "unsat": 0}
    for k in range(INSTANCES):
        n_in = int(rng.integers(1, 4))
        sizes = [n_in] + [int(rng.integers(3, 9))] * int(rng.integers(1, 3)) + [3]
        layers = random_layers(rng, sizes)
        net = tmp_path / f"net{k}.onnx"
        write_onnx(layers, net)
        text, box, atoms = random_property(rng, n_in, 3)
        prop = tmp_path / f"prop{k}.vnnlib"
        prop.write_text(text)
        p = subprocess.run([mavis_bin(), "nn", "verify", str(net), str(prop), "--format", "json",
                            "--timeout", str(TIMEOUT)], capture_output=True, text=True)
        assert p.returncode in (0, 1), p.stderr
        report = json.loads(p.stdout)
        ours = report["results"]["vnncomp"]
        theirs = marabou_verdict(net, prop)
        if ours == "sat":
            x = report["results"]["counterexample"]["input"]
            y = forward(layers, x)
            assert all(lo <= v <= hi for v, (lo, hi) in zip(x, box)), (k, x, box)
            for i, j, c in atoms:
                assert y[i] - y[j] >= c - 1e-5 * (1 + abs(c)), (k, x, y, atoms)
        if theirs in ("sat", "unsat"):
            assert ours == theirs, f"instance {k}: mavis {ours}, Marabou {theirs}\n{text}"
            counts[ours] += 1
    print(f"test_marabou: {INSTANCES} instances, agreed on {counts['sat']} sat and {counts['unsat']} unsat")
    # The suite must exercise both answers.
    assert counts["sat"] > 0 and counts["unsat"] > 0, counts
