"""`mavis nn`: ONNX networks. The verbs read an ONNX file; `net` may also be
ONNX bytes, written to a temporary file for the call. (To evaluate a
network given as arrays, use `mavis.Network.from_layers(...).eval(x)`.)"""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Iterator, Optional, Sequence, Union

from . import _call
from ._call import PathLike, Repeat
from ._report import Report

NetFile = Union[PathLike, bytes]


@contextlib.contextmanager
def _file(net: NetFile) -> Iterator[str]:
    if not isinstance(net, (bytes, bytearray, memoryview)):
        yield os.fspath(net)
        return
    with tempfile.TemporaryDirectory(prefix="mavis-nn-") as tmp:
        path = os.path.join(tmp, "network.onnx")
        with open(path, "wb") as f:
            f.write(bytes(net))
        yield path


def info(net: NetFile) -> Report:
    """Layers, sizes, parameter count and opset (`mavis nn info`).

    >>> mavis.nn.info("tests/fixtures/policy_1_4_4_2.onnx").results["input_size"]
    1
    """
    with _file(net) as path:
        return _call.run(_call.argv("nn", "info", [path], {}))


def eval(net: NetFile, inputs: Sequence[Union[float, Sequence[float]]] = (),
         csv: Optional[PathLike] = None) -> Report:
    """Evaluates the network in f64 on each input (`mavis nn eval`); an input
    is a vector, or one number for a one-input network.

    >>> mavis.nn.eval("tests/fixtures/mlp_2_16_16_3.onnx", inputs=[[0.1, 0.2], [-1, 1]]).results
    """
    vectors = Repeat(v if isinstance(v, (list, tuple)) else [v] for v in inputs)
    with _file(net) as path:
        return _call.run(_call.argv("nn", "eval", [path], {"input": vectors, "csv": csv}))


def bounds(net: NetFile, box: str, *, lp_tighten: bool = False, no_exact: bool = False,
           dump_lp: Optional[PathLike] = None, timeout: Optional[float] = None,
           threads: Optional[int] = None) -> Report:
    """Output bounds over an input box: interval, symbolic and exact (MILP)
    (`mavis nn bounds`). `box` is the CLI's text: `"[0,1]"` or `"[-1,1]x[0,2]"`.

    >>> mavis.nn.bounds("tests/fixtures/policy_1_4_4_2.onnx", box="[0,1]").results
    """
    with _file(net) as path:
        options = {"box": box, "lp_tighten": lp_tighten, "no_exact": no_exact, "dump_lp": dump_lp}
        return _call.run(_call.argv("nn", "bounds", [path], options, timeout, threads))


def verify(net: NetFile, prop: PathLike, *, vnncomp_output: Optional[PathLike] = None,
           milp_unstable: Optional[int] = None, no_lp_tighten: bool = False,
           split: Optional[str] = None, timeout: Optional[float] = None,
           threads: Optional[int] = None) -> Report:
    """Decides a VNN-LIB property (`mavis nn verify`): verdict "holds" (VNN-COMP
    unsat), "violated" with a replayed counterexample (sat), or "unknown".
    `split` is "influence" or "widest".

    >>> mavis.nn.verify("tests/fixtures/policy_1_4_4_2.onnx", "tests/fixtures/policy_1_4_4_2.vnnlib").verdict
    'holds'
    """
    with _file(net) as path:
        options = {"vnncomp_output": vnncomp_output, "milp_unstable": milp_unstable,
                   "no_lp_tighten": no_lp_tighten, "split": split}
        return _call.run(_call.argv("nn", "verify", [path, os.fspath(prop)], options, timeout, threads))
