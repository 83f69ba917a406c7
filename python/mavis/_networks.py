"""Networks as a path, ONNX bytes, or weight arrays, for the native module."""
from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Sequence, Union

from . import _errors, _native

NetworkLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, "_native.Network",
                    Sequence[tuple[Any, Any]]]


def _plain(array: Any) -> Any:
    """numpy arrays and PyTorch tensors as nested lists of floats."""
    if hasattr(array, "detach"):  # a torch.Tensor
        array = array.detach().cpu().numpy()
    if hasattr(array, "tolist"):
        array = array.tolist()
    return array


def from_layers(layers: Sequence[tuple[Any, Any]], what: str = "network") -> "_native.Network":
    """Layers (W, b), W of shape (outputs, inputs) as `torch.nn.Linear.weight`;
    ReLU after every layer but the last."""
    plain = []
    for i, pair in enumerate(layers):
        try:
            w, b = pair
        except (TypeError, ValueError):
            raise _native.InputError(f"{what}: layer {i} is not a pair (W, b)") from None
        w, b = _plain(w), _plain(b)
        if not isinstance(w, list) or not all(isinstance(row, list) for row in w):
            raise _native.InputError(f"{what}: layer {i}: W must be a 2-D array (outputs x inputs)")
        if not isinstance(b, list) or any(isinstance(x, list) for x in b):
            raise _native.InputError(f"{what}: layer {i}: b must be a 1-D array")
        try:
            plain.append(([[float(x) for x in row] for row in w], [float(x) for x in b]))
        except (TypeError, ValueError) as e:
            raise _native.InputError(f"{what}: layer {i}: {e}") from None
    try:
        return _native.Network.from_layers(plain)
    except _native.InputError as e:
        raise _native.InputError(f"{what}: {e}") from None


def network(value: NetworkLike, what: str = "network") -> "_native.Network":
    """A checked network from a path, ONNX bytes, (W, b) layers or a Network."""
    if isinstance(value, _native.Network):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return _native.Network.from_onnx(bytes(value))
        except _native.InputError as e:
            raise _native.InputError(f"{what}: {e}") from None
    if isinstance(value, (str, os.PathLike)):
        with _errors.translated():
            return _native.Network.from_file(os.fspath(value))
    return from_layers(value, what)


def split(networks: Optional[Mapping[str, NetworkLike]]) -> tuple[dict, dict]:
    """Paths (given to the CLI as `--network NAME=PATH`, with its messages)
    and networks in memory, by name."""
    paths, in_memory = {}, {}
    for name, value in (networks or {}).items():
        if isinstance(value, (str, os.PathLike)):
            paths[name] = os.fspath(value)
        else:
            in_memory[name] = network(value, f"network `{name}`")
    return paths, in_memory


def in_memory(networks: Optional[Mapping[str, NetworkLike]]) -> dict:
    """Every network loaded into memory (a path is read here)."""
    return {name: network(value, f"network `{name}`") for name, value in (networks or {}).items()}
