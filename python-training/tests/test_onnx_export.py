import numpy as np
import onnx
import onnxruntime as ort
import pytest

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
from onnx_export import ExportError, build_model, export_onnx, forward_float32, load_weights, model_bytes
from qnet import QNet

COMMITTED = REPO / "networks" / "guarding.onnx"
INPUTS = [h / 4 for h in range(5)] + [0.1, 0.33, 0.6, 0.875]


def ort_eval(path, x):
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return sess.run(["q"], {"x": np.array([[x]], dtype=np.float32)})[0]


@pytest.mark.parametrize("path_kind", ["committed", "fresh"])
def test_numpy_forward_matches_onnxruntime(tmp_path, path_kind):
    if path_kind == "committed":
        path = COMMITTED
    else:
        path = tmp_path / "fresh.onnx"
        export_onnx(QNet.initial(np.random.default_rng(3)), path)
    weights = load_weights(path)
    for x in INPUTS:
        ours = forward_float32(weights, np.array([[x]]))
        theirs = ort_eval(path, x)
        assert theirs.shape == (1, 2) and theirs.dtype == np.float32
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=0)


def test_float64_training_net_matches_exported_float32(tmp_path):
    net = QNet.initial(np.random.default_rng(5))
    path = tmp_path / "n.onnx"
    export_onnx(net, path)
    for x in INPUTS:
        np.testing.assert_allclose(net.forward(np.array([[x]])), ort_eval(path, x), rtol=1e-5)


def test_graph_structure():
    model = onnx.load(str(COMMITTED))
    onnx.checker.check_model(model)
    assert [n.op_type for n in model.graph.node] == ["Gemm", "Relu", "Gemm", "Relu", "Gemm"]
    for n in model.graph.node:
        if n.op_type == "Gemm":
            assert {a.name: a.i for a in n.attribute} == {"transB": 1}
    assert [(o.domain, o.version) for o in model.opset_import] == [("", 13)]
    assert model.producer_name == "mavis-python-training" and model.producer_version == "1"
    assert all(t.data_type == onnx.TensorProto.FLOAT for t in model.graph.initializer)
    (inp,), (out,) = model.graph.input, model.graph.output
    assert inp.name == "x" and out.name == "q"
    assert [d.dim_value for d in inp.type.tensor_type.shape.dim] == [1, 1]
    assert [d.dim_value for d in out.type.tensor_type.shape.dim] == [1, 2]
    shapes = [tuple(w.shape) for w, _ in load_weights(COMMITTED)]
    assert shapes == [(4, 1), (4, 4), (2, 4)]


def test_export_bytes_are_deterministic():
    a = model_bytes(QNet.initial(np.random.default_rng(11)))
    b = model_bytes(QNet.initial(np.random.default_rng(11)))
    assert a == b


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf, 1e39])
def test_export_refuses_non_finite_weights(tmp_path, bad):
    net = QNet.initial(np.random.default_rng(0))
    w, b = net.weights[1]
    w = w.copy()
    w[2, 1] = bad
    net.weights[1] = (w, b)
    with pytest.raises(ExportError, match="non-finite"):
        export_onnx(net, tmp_path / "bad.onnx")
    with pytest.raises(ExportError):
        build_model(net)
    assert not (tmp_path / "bad.onnx").exists()
