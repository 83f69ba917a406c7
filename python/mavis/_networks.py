"""Networks as a path, ONNX bytes, weight arrays or a PyTorch module, for
the native module."""
from __future__ import annotations

import inspect
import io
import os
import sys
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


def _torch() -> Any:
    """torch if the caller has imported it (a module given to mavis was made
    with it), else None: mavis never imports torch itself for this test."""
    return sys.modules.get("torch")


def _sequential_layers(module: Any, torch: Any) -> Optional[list[tuple[Any, Any]]]:
    """The (W, b) of a `torch.nn.Sequential` of Linear layers with a ReLU
    between each two (Identity, Dropout and Flatten of a flat input aside:
    they change nothing at inference), else None."""
    if not isinstance(module, torch.nn.Sequential):
        return None
    skipped = (torch.nn.Identity, torch.nn.Dropout, torch.nn.Flatten)
    parts = [m for m in module if not isinstance(m, skipped)]
    if len(parts) % 2 == 0:
        return None
    layers = []
    for i, m in enumerate(parts):
        if i % 2 == 1:
            if not isinstance(m, torch.nn.ReLU):
                return None
            continue
        if not isinstance(m, torch.nn.Linear):
            return None
        bias = m.bias if m.bias is not None else torch.zeros(m.out_features)
        layers.append((m.weight, bias))
    return layers


def from_torch(module: Any, what: str = "network", input_size: Optional[int] = None) -> "_native.Network":
    """A PyTorch module: a Sequential of Linear and ReLU layers is read
    from its weights; any other module is exported to ONNX in memory
    (`torch.onnx.export` on an input of `input_size` values, by default the
    first Linear layer's `in_features`) and read as ONNX."""
    torch = _torch()
    layers = _sequential_layers(module, torch)
    if layers is not None:
        return from_layers(layers, what)
    if input_size is None:
        first = next((m for m in module.modules() if isinstance(m, torch.nn.Linear)), None)
        if first is None:
            raise _native.InputError(f"{what}: a PyTorch module without a Linear layer: pass "
                                     f"mavis.nn.from_torch(module, input_size=...)")
        input_size = int(first.in_features)
    data = io.BytesIO()
    options = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}
    training = module.training
    module.eval()
    try:
        with torch.no_grad():
            torch.onnx.export(module, (torch.zeros(1, input_size),), data, opset_version=13, **options)
    except Exception as e:  # the exporter's own errors are many and version-dependent
        raise _native.InputError(f"{what}: torch.onnx.export failed: {e}") from None
    finally:
        module.train(training)
    try:
        return _native.Network.from_onnx(data.getvalue())
    except _native.InputError as e:
        raise _native.InputError(f"{what}: the module's ONNX export: {e}") from None


def network(value: NetworkLike, what: str = "network") -> "_native.Network":
    """A checked network from a path, ONNX bytes, (W, b) layers, a PyTorch
    module or a Network."""
    if isinstance(value, _native.Network):
        return value
    torch = _torch()
    if torch is not None and isinstance(value, torch.nn.Module):
        return from_torch(value, what)
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
