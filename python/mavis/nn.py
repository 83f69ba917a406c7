"""`mavis nn`: feed-forward ReLU networks (ONNX), their outputs, bounds
and VNN-LIB properties.

A network `net` is a path (`.onnx`, or `.onnx.gz` as VNN-COMP ships them),
ONNX bytes, a list of (W, b) layers (numpy arrays, PyTorch tensors or lists;
W of shape outputs x inputs as `torch.nn.Linear.weight`, ReLU after every
layer but the last), a PyTorch module (`from_torch`; torch is optional), or
a `mavis.Network`. Inputs are numpy arrays or
lists: a 2-D array is a batch, one input a row.

>>> import mavis, numpy as np
>>> net = [(np.array([[1.0, -1.0], [-1.0, 1.0]]), np.zeros(2)), (np.eye(2), np.array([0.0, 0.25]))]
>>> mavis.nn.eval(net, inputs=np.array([[1.0, 0.0], [0.0, 0.5]])).results["outputs"]
[[1.0, 0.25], [0.0, 0.75]]
>>> r = mavis.nn.bounds(net, box=(np.zeros(2), np.ones(2)))
>>> [round(o["hi"], 6) for o in r.results["exact"]["outputs"]]
[1.0, 1.25]
>>> mavis.nn.verify_robustness(net, x=[1.0, 0.0], eps=0.1, label=0).verdict
'holds'
"""
from __future__ import annotations

import contextlib
import importlib
import math
import os
import tempfile
from typing import Any, Iterator, Literal, Optional, Sequence, Union

from . import _call, _errors, _native, _networks
from ._call import PathLike, Repeat
from ._networks import NetworkLike
from ._report import Report
from ._witness import Counterexample

__all__ = ["info", "eval", "bounds", "verify", "verify_robustness", "from_torch", "Box", "Split"]

#: Which input `verify` halves when it splits a box.
Split = Literal["influence", "widest"]

#: An input box: a pair of arrays `(lo, hi)`, a list of intervals
#: `[(lo0, hi0), (lo1, hi1), ...]` (or an n x 2 array), one interval
#: `(lo, hi)` of numbers for every input, or the CLI's text `"[0,1]x[-1,1]"`.
Box = Union[str, tuple[Any, Any], Sequence[Sequence[float]]]


@contextlib.contextmanager
def _file(net: NetworkLike, what: str = "net") -> Iterator[str]:
    """A file the CLI verb reads: the path itself, or the network written as
    ONNX into a temporary directory for the call."""
    if isinstance(net, (str, os.PathLike)):
        yield os.fspath(net)
        return
    if isinstance(net, (bytes, bytearray, memoryview)):
        data = bytes(net)
    else:
        data = _networks.network(net, what).to_onnx()
    with tempfile.TemporaryDirectory(prefix="mavis-nn-") as tmp:
        path = os.path.join(tmp, "network.onnx")
        with open(path, "wb") as f:
            f.write(data)
        try:
            yield path
        except _errors.InputError as e:
            # The temporary file means nothing to the caller: name the parameter.
            raise _errors.located(_errors.InputError(str(e).replace(path, what))) from None


def _plain(value: Any) -> Any:
    """numpy arrays, tensors and numpy scalars as Python lists and floats."""
    if hasattr(value, "detach"):  # a torch.Tensor
        value = value.detach().cpu().numpy()
    return value.tolist() if hasattr(value, "tolist") else value


def _number(value: Any, what: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise _errors.InputError(f"{what}: {value!r} is not a number") from None
    if not math.isfinite(x):
        raise _errors.InputError(f"{what}: {x} is not a finite number")
    return x


def _vector(value: Any, what: str) -> list[float]:
    value = _plain(value)
    if not isinstance(value, (list, tuple)):
        return [_number(value, what)]
    if any(isinstance(v, (list, tuple)) for v in value):
        raise _errors.InputError(f"{what}: expected a 1-D array of numbers")
    return [_number(v, what) for v in value]


def _batch(inputs: Any) -> list[list[float]]:
    """A 2-D array as its rows, a 1-D array or one number as one input."""
    rows = _plain(inputs)
    if isinstance(rows, (list, tuple)) and any(isinstance(r, (list, tuple)) or hasattr(r, "tolist")
                                               for r in rows):
        return [_vector(r, f"inputs[{i}]") for i, r in enumerate(rows)]
    if isinstance(rows, (list, tuple)) and not rows:
        return []
    return [_vector(rows, "inputs")]


def _interval(lo: Any, hi: Any, what: str) -> str:
    return f"[{_number(lo, what)!r},{_number(hi, what)!r}]"


def box_text(box: Box) -> str:
    """The CLI's text of a box (see `Box`).

    >>> box_text(([0, -1], [1, 1]))
    '[0.0,1.0]x[-1.0,1.0]'
    >>> box_text([(0, 1), (-1, 1)]) == box_text(([0, -1], [1, 1]))
    True
    >>> box_text((0, 0.5))
    '[0.0,0.5]'
    """
    if isinstance(box, str):
        return box
    if isinstance(box, tuple) and len(box) == 2:
        lo, hi = _plain(box[0]), _plain(box[1])
        if not isinstance(lo, (list, tuple)) and not isinstance(hi, (list, tuple)):
            return _interval(lo, hi, "box")
        lo, hi = _vector(lo, "box lo"), _vector(hi, "box hi")
        if len(lo) != len(hi):
            raise _errors.InputError(f"box: lo has {len(lo)} values, hi has {len(hi)}")
        return "x".join(_interval(a, b, f"box[{i}]") for i, (a, b) in enumerate(zip(lo, hi)))
    pairs = _plain(box)
    if not isinstance(pairs, (list, tuple)) or not pairs:
        raise _errors.InputError("box: expected (lo, hi) arrays or a list of (lo, hi) intervals")
    out = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise _errors.InputError(f"box[{i}]: expected an interval (lo, hi), got {pair!r}")
        out.append(_interval(pair[0], pair[1], f"box[{i}]"))
    return "x".join(out)


def info(net: NetworkLike) -> Report:
    """Layers, sizes, parameter count and opset (`mavis nn info`).

    >>> mavis.nn.info("tests/fixtures/policy_1_4_4_2.onnx").results["input_size"]
    1
    """
    with _file(net) as path:
        return _call.run(_call.argv("nn", "info", [path], {}))


def eval(net: NetworkLike, inputs: Any = (), csv: Optional[PathLike] = None) -> Report:
    """Evaluates the network in f64 on each input (`mavis nn eval`).
    `inputs` is a 2-D array (one input a row), one input (a 1-D array), or
    for a one-input network one number; `csv` a file of inputs, one a line.
    The results are `inputs` and `outputs`, one row per input.

    >>> r = mavis.nn.eval("tests/fixtures/mlp_2_16_16_3.onnx", inputs=np.array([[0.1, 0.2], [-1, 1]]))
    >>> np.asarray(r.results["outputs"]).shape
    (2, 3)
    """
    vectors = _batch(inputs)
    if not vectors and csv is None:
        raise _errors.InputError("no input given: pass inputs= (an array) or csv= (a file)")
    with _file(net) as path:
        return _call.run(_call.argv("nn", "eval", [path], {"input": Repeat(vectors), "csv": csv}))


def bounds(net: NetworkLike, box: Box, *, lp_tighten: bool = False, no_exact: bool = False,
           dump_lp: Optional[PathLike] = None, timeout: Optional[float] = None,
           threads: Optional[int] = None) -> Report:
    """Output bounds over an input box: interval, symbolic and exact (MILP)
    (`mavis nn bounds`). `box` is a pair of arrays `(lo, hi)`, a list of
    intervals `[(lo, hi), ...]`, or one interval for every input.

    >>> r = mavis.nn.bounds("tests/fixtures/policy_1_4_4_2.onnx", box=(0, 1))
    >>> interval, exact = r.results["stages"][0]["outputs"], r.results["exact"]["outputs"]
    >>> all(i["lo"] <= e["lo"] <= e["hi"] <= i["hi"] for i, e in zip(interval, exact))
    True
    """
    with _file(net) as path:
        options = {"box": box_text(box), "lp_tighten": lp_tighten, "no_exact": no_exact,
                   "dump_lp": dump_lp}
        return _call.run(_call.argv("nn", "bounds", [path], options, timeout, threads))


def verify(net: NetworkLike, prop: PathLike, *, vnncomp_output: Optional[PathLike] = None,
           milp_unstable: Optional[int] = None, no_lp_tighten: bool = False,
           split: Optional[Split] = None, timeout: Optional[float] = None,
           threads: Optional[int] = None) -> Report:
    """Decides a VNN-LIB property (`.vnnlib` or `.vnnlib.gz`; `mavis nn
    verify`): verdict "holds" (VNN-COMP unsat), "violated" with a replayed
    counterexample (sat), or "unknown" (at `timeout`, with the statistics
    of what was done).

    >>> mavis.nn.verify("tests/fixtures/policy_1_4_4_2.onnx", "tests/fixtures/policy_1_4_4_2.vnnlib").verdict
    'holds'
    """
    with _file(net) as path:
        options = {"vnncomp_output": vnncomp_output, "milp_unstable": milp_unstable,
                   "no_lp_tighten": no_lp_tighten, "split": split}
        return _call.run(_call.argv("nn", "verify", [path, os.fspath(prop)], options, timeout, threads))


def from_torch(module: Any, input_size: Optional[int] = None) -> "_native.Network":
    """A PyTorch module as a `mavis.Network` (torch is an optional
    dependency). A `torch.nn.Sequential` of Linear layers with a ReLU
    between each two is read from its weights, exactly; any other module is
    exported to ONNX in memory (`torch.onnx.export`, on an input of
    `input_size` values, by default its first Linear layer's in_features)
    and read as ONNX, which takes what `mavis nn` reads (Gemm, MatMul, Add,
    Relu, ...). Every function taking a network takes the module itself too.

    >>> import torch  # doctest: +SKIP
    >>> policy = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))  # doctest: +SKIP
    >>> y = mavis.nn.eval(policy, inputs=[0.1, 0.2]).results["outputs"][0]  # doctest: +SKIP
    >>> torch.allclose(torch.tensor(y), policy(torch.tensor([0.1, 0.2])).double(), atol=1e-6)  # doctest: +SKIP
    True
    """
    try:
        # Imported by name: torch is optional (so are its types).
        importlib.import_module("torch")
    except ImportError:
        raise ImportError("from_torch needs PyTorch, an optional dependency of mavis: "
                          "pip install torch") from None
    return _networks.from_torch(module, "module", input_size)


def robustness_property(x: Sequence[float], eps: float, label: int, outputs: int,
                        clip: Optional[tuple[float, float]] = None) -> str:
    """The VNN-LIB property of a local robustness query: the inputs within
    `eps` of `x` in the max norm (within `clip`), and an output other than
    `label` at least as large as `label`'s (the unsafe set).

    >>> print(robustness_property([0.5], 0.25, 1, 2))
    ; local robustness: label 1 within 0.25 of x (max norm)
    (declare-const X_0 Real)
    (declare-const Y_0 Real)
    (declare-const Y_1 Real)
    (assert (>= X_0 0.25))
    (assert (<= X_0 0.75))
    (assert (or (and (>= Y_0 Y_1))))
    """
    lines = [f"; local robustness: label {label} within {eps!r} of x (max norm)"]
    lines += [f"(declare-const X_{i} Real)" for i in range(len(x))]
    lines += [f"(declare-const Y_{j} Real)" for j in range(outputs)]
    for i, xi in enumerate(x):
        lo, hi = xi - eps, xi + eps
        if clip is not None:
            lo, hi = max(lo, clip[0]), min(hi, clip[1])
        lines += [f"(assert (>= X_{i} {lo!r}))", f"(assert (<= X_{i} {hi!r}))"]
    others = " ".join(f"(and (>= Y_{j} Y_{label}))" for j in range(outputs) if j != label)
    lines.append(f"(assert (or {others}))")
    return "\n".join(lines) + "\n"


def verify_robustness(net: NetworkLike, x: Any, eps: float, label: int, *,
                      clip: Optional[tuple[float, float]] = None,
                      timeout: Optional[float] = None, threads: Optional[int] = None) -> Report:
    """Local robustness: does every input within `eps` of `x` (max norm,
    within `clip` if given) keep output `label` strictly the largest? Decided
    as the VNN-LIB property `robustness_property` by `verify`: verdict
    "holds", or "violated" with a `mavis.Counterexample` (`witness.input`,
    whose outputs, replayed, put another output at least as high), or
    "unknown".

    >>> r = mavis.nn.verify_robustness("tests/fixtures/mlp_2_16_16_3.onnx", x=[0.1, 0.2], eps=0.5, label=0)
    >>> r.verdict, r.witness.output[0] <= max(r.witness.output[1:])
    ('violated', True)
    """
    point = _vector(x, "x")
    eps = _number(eps, "eps")
    if eps < 0:
        raise _errors.InputError(f"eps: {eps} is negative")
    network = _networks.network(net, "net")
    if len(point) != network.input_size:
        raise _errors.InputError(f"x has {len(point)} values, the network has {network.input_size} inputs")
    if not 0 <= label < network.output_size or network.output_size < 2:
        raise _errors.InputError(f"label {label} is not one of the network's "
                                 f"{network.output_size} outputs (at least 2 are needed)")
    with tempfile.TemporaryDirectory(prefix="mavis-robust-") as tmp:
        prop = os.path.join(tmp, "robustness.vnnlib")
        with open(prop, "w") as f:
            f.write(robustness_property(point, eps, label, network.output_size, clip))
        given = net if isinstance(net, (str, os.PathLike)) else network
        r = verify(given, prop, timeout=timeout, threads=threads)
    if r.verdict == "violated":
        _replay(network, r, label)
    return r


def _replay(network: "_native.Network", r: Report, label: int) -> None:
    """The counterexample's outputs, computed again here: another output at
    least as high as `label`'s (up to the verifier's tolerance)."""
    witness = r.witness
    if not isinstance(witness, Counterexample):
        raise _errors.InternalError("a violated robustness property without a counterexample")
    y = network.eval(witness.input)
    if max(v for j, v in enumerate(y) if j != label) < y[label] - 1e-6:
        raise _errors.InternalError(f"the counterexample does not replay: outputs {y}")
