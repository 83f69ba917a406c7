"""Export a QNet to ONNX (Gemm transB=1 + Relu, float32, opset 13) deterministically."""
from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from qnet import QNet

PRODUCER_NAME = "mavis-python-training"
PRODUCER_VERSION = "1"
OPSET = 13
IR_VERSION = 8
INPUT_NAME = "x"
OUTPUT_NAME = "q"


class ExportError(ValueError):
    """The network cannot be exported (for example, it has NaN or infinite weights)."""


def float32_weights(net: QNet) -> list[tuple[np.ndarray, np.ndarray]]:
    """The weights as float32, refusing NaN/inf (before and after the cast)."""
    out = []
    for i, (w, b) in enumerate(net.weights):
        for name, arr in (("W", w), ("b", b)):
            arr = np.asarray(arr)
            with np.errstate(over="ignore", invalid="ignore"):
                bad = ~np.isfinite(arr) | ~np.isfinite(arr.astype(np.float32))
            if bad.any():
                raise ExportError(
                    f"refusing to export: layer {i} {name} has non-finite values (NaN or inf, "
                    f"or too large for float32) at {np.argwhere(bad).tolist()}; "
                    "training diverged or the weights are corrupt"
                )
        out.append((np.ascontiguousarray(w, dtype=np.float32), np.ascontiguousarray(b, dtype=np.float32)))
    return out


def build_model(net: QNet) -> onnx.ModelProto:
    weights = float32_weights(net)
    initializers, nodes = [], []
    current = INPUT_NAME
    last = len(weights) - 1
    for i, (w, b) in enumerate(weights):
        w_name, b_name = f"W{i}", f"b{i}"
        initializers.append(numpy_helper.from_array(w, name=w_name))
        initializers.append(numpy_helper.from_array(b, name=b_name))
        gemm_out = OUTPUT_NAME if i == last else f"z{i}"
        nodes.append(helper.make_node("Gemm", [current, w_name, b_name], [gemm_out], name=f"gemm{i}", transB=1))
        current = gemm_out
        if i != last:
            relu_out = f"a{i}"
            nodes.append(helper.make_node("Relu", [gemm_out], [relu_out], name=f"relu{i}"))
            current = relu_out
    n_in = weights[0][0].shape[1]
    n_out = weights[-1][0].shape[0]
    graph = helper.make_graph(
        nodes,
        "guarding_policy",
        [helper.make_tensor_value_info(INPUT_NAME, TensorProto.FLOAT, [1, n_in])],
        [helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, [1, n_out])],
        initializer=initializers,
    )
    model = helper.make_model(
        graph,
        producer_name=PRODUCER_NAME,
        producer_version=PRODUCER_VERSION,
        opset_imports=[helper.make_opsetid("", OPSET)],
    )
    model.ir_version = IR_VERSION
    onnx.checker.check_model(model)
    return model


def model_bytes(net: QNet) -> bytes:
    return build_model(net).SerializeToString(deterministic=True)


def export_onnx(net: QNet, path: str | Path) -> str:
    """Write the ONNX file; return its sha256 (hex)."""
    data = model_bytes(net)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return hashlib.sha256(data).hexdigest()


def forward_float32(weights: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """Reference float32 forward pass of the exported network (numpy)."""
    a = np.asarray(x, dtype=np.float32).reshape(-1, weights[0][0].shape[1])
    for i, (w, b) in enumerate(weights):
        a = (a.astype(np.float64) @ w.astype(np.float64).T + b.astype(np.float64)).astype(np.float32)
        if i < len(weights) - 1:
            a = np.maximum(a, np.float32(0.0))
    return a


def load_weights(path: str | Path) -> list[tuple[np.ndarray, np.ndarray]]:
    """Read back the Gemm weights of a file written by `export_onnx`."""
    model = onnx.load(str(path))
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    layers = []
    for node in model.graph.node:
        if node.op_type == "Gemm":
            layers.append((inits[node.input[1]], inits[node.input[2]]))
    return layers
