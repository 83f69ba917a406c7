"""Type stubs of the native module `mavis._native` (Rust, src/python/)."""
from os import PathLike
from typing import Any, Optional, Sequence, Union

__version__: str

class InputError(Exception):
    """Bad input or usage (the CLI's exit status 2). The message names the
    function's parameters; `file`, `line` and `column` locate the problem
    when it is in a file (None otherwise)."""
    file: Optional[str]
    line: Optional[int]
    column: Optional[int]

class InternalError(Exception):
    """A failure of mavis itself (the CLI's exit status 3 without a report)."""

class Network:
    """A checked feed-forward ReLU network."""

    @staticmethod
    def from_file(path: str) -> Network:
        """Reads an ONNX file.

        >>> mavis.Network.from_file("networks/guarding.onnx").input_size
        1
        """
    @staticmethod
    def from_onnx(bytes: bytes) -> Network:
        """Reads ONNX bytes.

        >>> mavis.Network.from_onnx(open("networks/guarding.onnx", "rb").read()).output_size
        2
        """
    @staticmethod
    def from_layers(layers: Sequence[tuple[Sequence[Sequence[float]], Sequence[float]]]) -> Network:
        """Layers (W, b), W of shape outputs x inputs; ReLU after each layer but the last.

        >>> mavis.Network.from_layers([([[1.0], [-1.0]], [0.0, 0.5]), ([[1.0, 1.0]], [0.0])]).eval([0.25])
        [0.5]
        """
    def to_onnx(self) -> bytes:
        """The network as ONNX bytes (opset 13), read back as the same network.

        >>> net = mavis.Network.from_layers([([[2.0]], [1.0])])
        >>> mavis.Network.from_onnx(net.to_onnx()).eval([0.5])
        [2.0]
        """
    @property
    def input_size(self) -> int: ...
    @property
    def output_size(self) -> int: ...
    def eval(self, input: Sequence[float]) -> list[float]:
        """The outputs on one input, in f64.

        >>> mavis.Network.from_file("networks/guarding.onnx").eval([0.75])
        [...]
        """

class NisModel:
    """A checked `.nis` model (see `mavis.nis.Model`)."""

    @staticmethod
    def load(path: Union[str, PathLike[str]], networks: Optional[dict[str, Network]] = None,
             constants: Sequence[str] = ...) -> NisModel:
        """Reads and checks a model; `constants` are NAME=VALUE.

        >>> mavis._native.NisModel.load("examples/guarding/guarding.nis")
        """
    @property
    def path(self) -> str: ...
    @property
    def network_names(self) -> list[str]: ...
    def run(self, argv: list[str], networks: Optional[dict[str, Network]] = None
            ) -> tuple[dict[str, Any], str, list[str]]:
        """Runs a `nis` command line on this model: (the JSON report as
        Python values, text, notes).

        >>> m.run(["mavis", "nis", "check", m.path, "--agents", "3", "--spec", SPEC, "--format", "json"])
        """

def run(argv: list[str], networks: Optional[dict[str, Network]] = None
        ) -> tuple[dict[str, Any], str, list[str]]:
    """Runs a command line as the `mavis` binary would: (the JSON report as
    Python values, what `json.loads` gives for `--format json`; text; notes).

    >>> mavis._native.run(["mavis", "lang", "eval", "1/3 + 0.15", "--format", "json"])
    """
