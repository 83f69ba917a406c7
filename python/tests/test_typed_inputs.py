"""numpy in: batches, boxes, networks as arrays for the `nn` verbs; errors
in Python's terms (parameters, not flags; places as attributes); local
robustness against a brute force; time-outs with partial results; the
quick start as shipped; gzip-compressed VNN-COMP files."""
import gzip
import itertools
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import numpy_helper

import mavis
from cli_reports import REPO, cli_json, comparable

MLP = "tests/fixtures/mlp_2_16_16_3.onnx"
POLICY = "tests/fixtures/policy_1_4_4_2.onnx"


def layers_of(path):
    """(W, b) of each Gemm of an ONNX file (transB = 1: W is outputs x inputs)."""
    model = onnx.load(str(REPO / path))
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    out = []
    for node in model.graph.node:
        if node.op_type == "Gemm":
            trans_b = {a.name: a.i for a in node.attribute}.get("transB", 0)
            w = inits[node.input[1]]
            out.append((w if trans_b else w.T, inits[node.input[2]]))
    return out


def onnxruntime_outputs(path, x):
    session = onnxruntime.InferenceSession(str(REPO / path))
    feed = {session.get_inputs()[0].name: np.asarray(x, dtype=np.float32)}
    return session.run(None, feed)[0]


def test_a_2d_array_is_a_batch_and_agrees_with_onnxruntime():
    x = np.array([[0.1, 0.2], [-1.0, 1.0], [0.5, -0.25]])
    r = mavis.nn.eval(MLP, inputs=x)
    outputs = np.array(r.results["outputs"])
    assert outputs.shape == (3, 3)
    assert np.allclose(outputs, onnxruntime_outputs(MLP, x), atol=1e-5)
    # The same as the CLI on the same inputs, and as lists of lists.
    _, cli = cli_json("nn", "eval", MLP, "--input", "0.1,0.2", "--input", "-1,1", "--input", "0.5,-0.25")
    assert comparable(r.results) == comparable(cli["results"])
    assert comparable(mavis.nn.eval(MLP, inputs=x.tolist()).results) == comparable(r.results)
    # One input as a 1-D array.
    assert np.allclose(mavis.nn.eval(MLP, inputs=x[0]).results["outputs"], outputs[:1])


def test_networks_as_arrays_give_the_outputs_of_their_onnx_file():
    layers = layers_of(MLP)
    x = np.array([[0.3, -0.7], [1.5, 0.0]])
    by_file = mavis.nn.eval(MLP, inputs=x).results["outputs"]
    for net in (layers, [(w.tolist(), b.tolist()) for w, b in layers], mavis.Network.from_layers(
            [(w.tolist(), b.tolist()) for w, b in layers]), (REPO / MLP).read_bytes()):
        assert np.allclose(mavis.nn.eval(net, inputs=x).results["outputs"], by_file, rtol=0, atol=1e-12)
    # A network written by to_onnx evaluates like onnxruntime on the same weights.
    net = mavis.Network.from_layers([(w.tolist(), b.tolist()) for w, b in layers])
    session = onnxruntime.InferenceSession(net.to_onnx())
    ort = session.run(None, {session.get_inputs()[0].name: x})[0]
    assert np.allclose(ort, by_file, atol=1e-9)


def test_boxes_as_arrays_pairs_and_text_are_the_same_box():
    texts = {mavis.nn.box_text(b) for b in (
        (np.array([0.0, -1.0]), np.array([1.0, 2.0])),
        [(0, 1), (-1, 2)],
        np.array([[0.0, 1.0], [-1.0, 2.0]]),
    )}
    assert texts == {"[0.0,1.0]x[-1.0,2.0]"}
    by_arrays = mavis.nn.bounds(MLP, box=(np.array([0.0, -1.0]), np.array([1.0, 2.0])))
    by_text = mavis.nn.bounds(MLP, box="[0,1]x[-1,2]")
    assert comparable(by_arrays.results) == comparable(by_text.results)
    # The exact bounds contain every sampled output (brute force on a grid).
    grid = np.array(list(itertools.product(np.linspace(0, 1, 21), np.linspace(-1, 2, 21))))
    sampled = onnxruntime_outputs(MLP, grid)
    for j, o in enumerate(by_arrays.results["exact"]["outputs"]):
        assert o["lo"] - 1e-4 <= sampled[:, j].min() and sampled[:, j].max() <= o["hi"] + 1e-4


def test_errors_name_parameters_not_flags():
    with pytest.raises(mavis.InputError) as e:
        mavis.nn.eval(MLP, inputs=np.ones((2, 3)))
    message = str(e.value)
    assert "--" not in message and "help" not in message, message
    assert "input 1 has 3 values" in message
    with pytest.raises(mavis.InputError) as e:
        mavis.nis.check("examples/guarding/guarding.nis", "forall v1: EX^1 (alive, v1)", agents=2,
                        engine="fast")
    assert str(e.value).startswith("invalid value 'fast' for engine=\n"), str(e.value)
    assert "[possible values: explicit, milp, both]" in str(e.value)
    assert "--" not in str(e.value) and "try" not in str(e.value)
    with pytest.raises(mavis.InputError, match=r"^no input given: pass inputs="):
        mavis.nn.eval(MLP)
    with pytest.raises(mavis.InputError, match="box"):
        mavis.nn.bounds(MLP, box=[(0, 1, 2)])


def test_an_input_error_carries_its_place(tmp_path):
    prop = tmp_path / "bad.vnnlib"
    prop.write_text("".join(f"(declare-const {v} Real)\n" for v in ["X_0", "X_1", "Y_0", "Y_1", "Y_2"])
                    + "(assert (>= X_0 0))\n(assert (>= X_0 zero))\n")
    with pytest.raises(mavis.InputError) as e:
        mavis.nn.verify(MLP, prop)
    assert (e.value.file, e.value.line) == (str(prop), 7), str(e.value)
    assert isinstance(e.value.column, int) and e.value.column > 1
    assert f"{prop}:7:{e.value.column}" in str(e.value)
    with pytest.raises(mavis.InputError) as e:
        mavis.nn.info(tmp_path / "missing.onnx")
    assert e.value.file is None and e.value.line is None and e.value.column is None
    with pytest.raises(mavis.InputError) as e:
        mavis.nis.check("examples/guarding/guarding.nis", "forall v1: EX^1 (alve, v1)", agents=2)
    assert (e.value.file, e.value.line, e.value.column) == ("<spec>", 1, 17)


def brute_force_robust(layers, x, eps, label, n=41):
    """Whether label stays strictly the largest output on a grid of the box
    (a necessary condition: a violation on the grid is a real one)."""
    axes = [np.linspace(v - eps, v + eps, n) for v in x]
    for point in itertools.product(*axes):
        y = np.asarray(point, dtype=float)
        for i, (w, b) in enumerate(layers):
            y = w @ y + b
            if i + 1 < len(layers):
                y = np.maximum(y, 0)
        if np.delete(y, label).max() >= y[label]:
            return False, point
    return True, None


@pytest.mark.parametrize("eps", [0.01, 0.05, 0.2, 0.5])
def test_verify_robustness_agrees_with_a_brute_force(eps):
    layers = layers_of(MLP)
    x = np.array([0.1, 0.2])
    label = int(np.argmax(onnxruntime_outputs(MLP, [x])[0]))
    r = mavis.nn.verify_robustness(MLP, x, eps, label)
    robust_on_grid, point = brute_force_robust(layers, x, eps, label)
    if not robust_on_grid:
        assert r.verdict == "violated", (eps, point)
    if r.verdict == "violated":
        cex = np.array(r.witness["input"])
        assert np.all(np.abs(cex - x) <= eps + 1e-9)
        y = onnxruntime_outputs(MLP, [cex])[0]
        assert np.delete(y, label).max() >= y[label] - 1e-4
    else:
        assert r.verdict == "holds" and robust_on_grid
    # Arrays and the file decide the same.
    assert mavis.nn.verify_robustness(layers, x, eps, label).verdict == r.verdict


def test_a_timeout_gives_unknown_with_partial_results():
    """Exact bounds of a 6-48-48-48-4 network over [-1, 1]^6 take minutes
    (tests/deadline.rs): cut at 0.5 s, the verdict is unknown and the
    results keep the interval and symbolic stages, which contain every
    sampled output."""
    rng = np.random.default_rng(13)
    sizes = [6, 48, 48, 48, 4]
    layers = [(rng.uniform(-1, 1, (m, n)), rng.uniform(-0.1, 0.1, m)) for n, m in zip(sizes, sizes[1:])]
    r = mavis.nn.bounds(layers, box=(-1, 1), timeout=0.5)
    assert r.verdict == "unknown" and r.stats["timed_out"] is True
    stages = {s["name"]: s for s in r.results["stages"]}
    assert {"interval", "symbolic"} <= set(stages)
    x = rng.uniform(-1, 1, (200, 6))
    y = np.array(mavis.nn.eval(layers, inputs=x).results["outputs"])
    for j, o in enumerate(stages["symbolic"]["outputs"]):
        assert o["lo"] <= y[:, j].min() and y[:, j].max() <= o["hi"]


def test_gzip_networks_and_properties_are_read(tmp_path):
    net = tmp_path / "policy.onnx.gz"
    prop = tmp_path / "policy.vnnlib.gz"
    net.write_bytes(gzip.compress((REPO / POLICY).read_bytes()))
    prop.write_bytes(gzip.compress((REPO / "tests/fixtures/policy_1_4_4_2.vnnlib").read_bytes()))
    plain = mavis.nn.verify(POLICY, "tests/fixtures/policy_1_4_4_2.vnnlib")
    packed = mavis.nn.verify(net, prop)
    assert packed.verdict == plain.verdict == "holds"
    assert comparable(packed.results) == comparable(plain.results)


def test_the_quick_start_runs_and_python_readme_shows_it():
    """python/examples/quickstart.py (what scripts/wheel_check.sh runs with
    the wheel) runs, and python/README.md shows it verbatim."""
    example = (REPO / "python/examples/quickstart.py").read_text()
    body = example.split('"""', 2)[2].strip()
    assert body in (REPO / "python/README.md").read_text()
    out = subprocess.run([sys.executable, str(REPO / "python/examples/quickstart.py")], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "holds", out.stdout
    assert "InputError: input 1 has 3 values but net takes 2" in out.stdout, out.stdout
