"""`mavis nis`: neural interpreted systems of unknown size (Kouvaros et al.,
IJCAI 2024). Each function is the CLI verb of the same name and returns its
JSON report as a `mavis.Report`.

Networks (`networks={"policy": ...}`) are a path, ONNX bytes, a list of
(W, b) layers (numpy arrays, PyTorch tensors or lists; W of shape outputs x
inputs, ReLU after every layer but the last), or a `mavis.Network`.
Constants are `set={"NAME": value}` (the CLI's `--set`).

Parse once, check many times (here with the bundled network's weights
and the same weights scaled, as a training loop would pass checkpoints):

>>> import onnx, onnx.numpy_helper
>>> g = onnx.load("networks/guarding.onnx").graph
>>> w = {t.name: onnx.numpy_helper.to_array(t) for t in g.initializer}
>>> layers = [(w[n.input[1]], w[n.input[2]]) for n in g.node if n.op_type == "Gemm"]
>>> m = mavis.nis.Model.load("examples/guarding/guarding.nis")
>>> for scale in (1.0, 2.0):
...     r = m.check("forall v1, v2: EX^2 (alive, v1) & (alive, v2)", agents=3,
...                 networks={"policy": [(scale * W, scale * b) for W, b in layers]})
...     print(scale, r.verdict)
1.0 holds
2.0 holds
"""
from __future__ import annotations

import os
from typing import Any, Literal, Mapping, Optional, Sequence, Union

from . import _call, _errors, _native, _networks
from ._call import PathLike, Repeat
from ._networks import NetworkLike
from ._report import Report

__all__ = ["Model", "check", "table", "simulates", "verify", "emergence",
           "Engine", "ZeroOne", "Simulation", "TableFormat"]

Networks = Optional[Mapping[str, NetworkLike]]
#: `engine=`: the explicit-state checker, the MILP encoding, or both (compared).
Engine = Literal["explicit", "milp", "both"]
#: `zero_one=`: how the zero-one encoding of the MILP is chosen.
ZeroOne = Literal["auto", "slots"]
#: `simulation=`: search the simulating M(n), or take the bound of the monotonicity lemma.
Simulation = Literal["search", "bound"]
#: `table_format=`.
TableFormat = Literal["text", "markdown", "csv"]
Ints = Union[int, range, Sequence[int], str]
#: One sentence, or several: decided in turn, one report with an entry each
#: (`results["queries"]`) and their conjunction as the verdict.
Specs = Union[str, Sequence[str]]


def _specs(spec: Specs) -> Repeat:
    return Repeat([spec] if isinstance(spec, str) else list(spec))


def _check(spec, agents, abstract, engine, no_symmetry_breaking, zero_one, counts,
           falsify_samples) -> dict:
    return {"spec": _specs(spec), "agents": agents, "abstract": abstract, "engine": engine,
            "no_symmetry_breaking": no_symmetry_breaking, "zero_one": zero_one, "counts": counts,
            "falsify_samples": falsify_samples}


def _table(spec, k, agents, abstract, engine, no_symmetry_breaking, zero_one, table_format,
           falsify_samples) -> dict:
    return {"spec": _specs(spec), "k": k, "agents": agents, "abstract": abstract, "engine": engine,
            "no_symmetry_breaking": no_symmetry_breaking, "zero_one": zero_one,
            "table_format": table_format, "falsify_samples": falsify_samples}


def _simulates(indexed, depth, agents, reverse, cap) -> dict:
    return {"indexed": indexed, "depth": depth, "agents": agents, "reverse": reverse, "cap": cap}


def _verify(spec, engine, no_symmetry_breaking, zero_one, cap, simulation) -> dict:
    return {"spec": _specs(spec), "engine": engine, "no_symmetry_breaking": no_symmetry_breaking,
            "zero_one": zero_one, "cap": cap, "simulation": simulation}


class Model:
    """A `.nis` model read and checked once, then checked many times; each
    call may replace networks (same inputs and outputs) without re-reading
    the model.

    >>> m = mavis.nis.Model.load("examples/guarding/guarding.nis")
    >>> m.check("forall v1, v2: EX^3 (alive, v1) & (alive, v2)", agents=3).verdict
    'holds'
    """

    def __init__(self, native: "_native.NisModel"):
        self._native = native

    @classmethod
    def load(cls, path: PathLike, networks: Networks = None,
             set: Optional[Mapping[str, Any]] = None) -> "Model":
        """Reads the model file; `networks` replace the files it names.

        >>> onnx_bytes = open("networks/guarding.onnx", "rb").read()
        >>> m = mavis.nis.Model.load("examples/guarding/guarding.nis", networks={"policy": onnx_bytes})
        >>> m.network_names
        ['policy']
        """
        constants = list(_call.assignments(set))
        with _errors.translated():
            return cls(_native.NisModel.load(os.fspath(path), _networks.in_memory(networks) or None,
                                             constants))

    @property
    def path(self) -> str:
        return os.fspath(self._native.path)

    @property
    def network_names(self) -> list[str]:
        return list(self._native.network_names)

    def _run(self, verb: str, options: dict, networks: Networks, timeout, threads) -> Report:
        line = _call.argv("nis", verb, [self.path], options, timeout, threads)
        with _errors.translated():
            return _call.report(self._native.run(line, _networks.in_memory(networks) or None))

    def check(self, spec: Specs, agents: Optional[int] = None, *, abstract: bool = False,
              engine: Optional[Engine] = None, no_symmetry_breaking: bool = False,
              zero_one: Optional[ZeroOne] = None, counts: bool = False, networks: Networks = None,
              timeout: Optional[float] = None, threads: Optional[int] = None,
              falsify_samples: Optional[int] = None) -> Report:
        """As `mavis.nis.check`, on this model.

        >>> m = mavis.nis.Model.load("examples/guarding/guarding.nis")
        >>> m.check("forall v1, v2: EX^3 (alive, v1) & (alive, v2)", agents=3, engine="milp").verdict
        'holds'
        """
        return self._run("check", _check(spec, agents, abstract, engine, no_symmetry_breaking,
                                         zero_one, counts, falsify_samples), networks, timeout,
                         threads)

    def table(self, spec: Specs, k: Ints = range(1, 7), agents: Optional[Ints] = None,
              *, abstract: bool = False, engine: Optional[Engine] = None,
              no_symmetry_breaking: bool = False, zero_one: Optional[ZeroOne] = None,
              table_format: Optional[TableFormat] = None, networks: Networks = None,
              timeout: Optional[float] = None, threads: Optional[int] = None,
              falsify_samples: Optional[int] = None) -> Report:
        """As `mavis.nis.table`, on this model.

        >>> m = mavis.nis.Model.load("examples/guarding/guarding.nis")
        >>> r = m.table("forall v1, v2: EX^{k} (alive, v1) & (alive, v2)", k=range(1, 4), agents=[2, 3])
        >>> [(c["k"], c["agents"], c["holds"]) for c in r.results["cells"]]
        [(1, 2, True), (2, 2, True), (3, 2, False), (1, 3, True), (2, 3, True), (3, 3, True)]
        """
        return self._run("table", _table(spec, k, agents, abstract, engine, no_symmetry_breaking,
                                         zero_one, table_format, falsify_samples), networks,
                         timeout, threads)

    def simulates(self, indexed: int, depth: int, agents: Optional[int] = None, *,
                  reverse: bool = False, cap: Optional[int] = None, networks: Networks = None,
                  timeout: Optional[float] = None, threads: Optional[int] = None) -> Report:
        """As `mavis.nis.simulates`, on this model.

        >>> m = mavis.nis.Model.load("examples/guarding/guarding.nis")
        >>> m.simulates(indexed=2, depth=3).results["min_n"]
        4
        """
        return self._run("simulates", _simulates(indexed, depth, agents, reverse, cap), networks,
                         timeout, threads)

    def verify(self, spec: Specs, *, engine: Optional[Engine] = None, no_symmetry_breaking: bool = False,
               zero_one: Optional[ZeroOne] = None, cap: Optional[int] = None,
               simulation: Optional[Simulation] = None, networks: Networks = None,
               timeout: Optional[float] = None, threads: Optional[int] = None) -> Report:
        """As `mavis.nis.verify`, on this model.

        >>> m = mavis.nis.Model.load("examples/guarding/guarding.nis")
        >>> m.verify("forall v1, v2: EX^3 (alive, v1) & (alive, v2)", networks={"policy": "networks/guarding.onnx"}).verdict
        'violated'
        """
        return self._run("verify", _verify(spec, engine, no_symmetry_breaking, zero_one, cap,
                                           simulation), networks, timeout, threads)

    def emergence(self, spec: Specs, *, engine: Optional[Engine] = None,
                  no_symmetry_breaking: bool = False, zero_one: Optional[ZeroOne] = None,
                  cap: Optional[int] = None, simulation: Optional[Simulation] = None,
                  networks: Networks = None, timeout: Optional[float] = None,
                  threads: Optional[int] = None) -> Report:
        """As `mavis.nis.emergence`, on this model.

        >>> m = mavis.nis.Model.load("examples/guarding/guarding.nis")
        >>> m.emergence("forall v1, v2: EX^3 (alive, v1) & (alive, v2)").results["emergence_threshold"]
        3
        """
        return self._run("emergence", _verify(spec, engine, no_symmetry_breaking, zero_one, cap,
                                              simulation), networks, timeout, threads)

    def __repr__(self) -> str:
        return f"mavis.nis.Model({self.path!r})"


def _run(model: Union[PathLike, Model], verb: str, options: dict, networks: Networks,
         set: Optional[Mapping[str, Any]], timeout, threads) -> Report:
    if isinstance(model, Model):
        if set:
            raise _native.InputError("set= is fixed when a Model is loaded: pass it to Model.load")
        return model._run(verb, options, networks, timeout, threads)
    paths, in_memory = _networks.split(networks)
    options = {**options, "network": Repeat(f"{k}={v}" for k, v in paths.items()),
               "set": _call.assignments(set)}
    return _call.run(_call.argv("nis", verb, [model], options, timeout, threads), in_memory)


def check(model: Union[PathLike, Model], spec: Specs, agents: Optional[int] = None, *,
          abstract: bool = False, engine: Optional[Engine] = None, no_symmetry_breaking: bool = False,
          zero_one: Optional[ZeroOne] = None, counts: bool = False, networks: Networks = None,
          set: Optional[Mapping[str, Any]] = None, timeout: Optional[float] = None,
          threads: Optional[int] = None, falsify_samples: Optional[int] = None) -> Report:
    """Decides phi[m] on the concrete system M(agents), or on the abstract
    M_ab(m) with `abstract=True` (`mavis nis check`). `engine`: "explicit",
    "milp" or "both"; `zero_one`: "auto" or "slots"; `falsify_samples`: how
    many simulated runs look for a witness or counterexample before a MILP
    (0: the MILP alone).

    >>> r = mavis.nis.check("examples/guarding/guarding.nis", agents=3, engine="milp",
    ...                     spec="forall v1, v2: EX^3 (alive, v1) & (alive, v2)")
    >>> r.verdict, r.results["holds"]
    ('holds', True)

    Several sentences give one report, an entry each, their conjunction as the verdict:

    >>> r = mavis.nis.check("examples/guarding/guarding.nis", agents=3,
    ...                     spec=["forall v1, v2: EX^2 (alive, v1) & (alive, v2)",
    ...                           "forall v1: AX^1 (alive, v1)"])
    >>> r.verdict, [q["verdict"] for q in r.results["queries"]]
    ('violated', ['holds', 'violated'])
    """
    return _run(model, "check", _check(spec, agents, abstract, engine, no_symmetry_breaking,
                                       zero_one, counts, falsify_samples), networks, set, timeout,
                threads)


def table(model: Union[PathLike, Model], spec: Specs, k: Ints = range(1, 7),
          agents: Optional[Ints] = None, *, abstract: bool = False, engine: Optional[Engine] = None,
          no_symmetry_breaking: bool = False, zero_one: Optional[ZeroOne] = None,
          table_format: Optional[TableFormat] = None, networks: Networks = None,
          set: Optional[Mapping[str, Any]] = None, timeout: Optional[float] = None,
          threads: Optional[int] = None, falsify_samples: Optional[int] = None) -> Report:
    """Verdicts and times over a grid of depths k and agent counts
    (`mavis nis table`); `{k}` in a spec stands for the depth. `k` and
    `agents` are an int, a range, a list, or the CLI's text ("1..6").

    >>> r = mavis.nis.table("examples/guarding/guarding.nis", k=range(1, 4), agents=[2, 3],
    ...                     spec="forall v1, v2: EX^{k} (alive, v1) & (alive, v2)")
    >>> [c["holds"] for c in r.results["cells"]]
    [True, True, False, True, True, True]
    """
    return _run(model, "table", _table(spec, k, agents, abstract, engine, no_symmetry_breaking,
                                       zero_one, table_format, falsify_samples), networks, set,
                timeout, threads)


def simulates(model: Union[PathLike, Model], indexed: int, depth: int, agents: Optional[int] = None,
              *, reverse: bool = False, cap: Optional[int] = None, networks: Networks = None,
              set: Optional[Mapping[str, Any]] = None, timeout: Optional[float] = None,
              threads: Optional[int] = None) -> Report:
    """Bounded simulation (Definition 14) between M_ab(indexed) and
    M(agents); without `agents`, the least one (`mavis nis simulates`).

    >>> r = mavis.nis.simulates("examples/guarding/guarding.nis", indexed=2, depth=3)
    >>> [(t["agents"], t["simulates"]) for t in r.results["tried"]]
    [(2, False), (3, False), (4, True)]
    """
    return _run(model, "simulates", _simulates(indexed, depth, agents, reverse, cap), networks, set,
                timeout, threads)


def verify(model: Union[PathLike, Model], spec: Specs, *, engine: Optional[Engine] = None,
           no_symmetry_breaking: bool = False, zero_one: Optional[ZeroOne] = None,
           cap: Optional[int] = None, simulation: Optional[Simulation] = None, networks: Networks = None,
           set: Optional[Mapping[str, Any]] = None, timeout: Optional[float] = None,
           threads: Optional[int] = None) -> Report:
    """Verifies a sentence for every number of agents (Corollaries 1 and 2;
    `mavis nis verify`). `simulation`: "search" or "bound".

    >>> r = mavis.nis.verify("examples/guarding/guarding.nis",
    ...                      spec="forall v1, v2: EX^3 (alive, v1) & (alive, v2)")
    >>> r.results["holds_for_all_n"], r.results["emergence_threshold"]
    (False, 3)
    """
    return _run(model, "verify", _verify(spec, engine, no_symmetry_breaking, zero_one, cap,
                                         simulation), networks, set, timeout, threads)


def emergence(model: Union[PathLike, Model], spec: Specs, *, engine: Optional[Engine] = None,
              no_symmetry_breaking: bool = False, zero_one: Optional[ZeroOne] = None,
              cap: Optional[int] = None, simulation: Optional[Simulation] = None,
              networks: Networks = None, set: Optional[Mapping[str, Any]] = None,
              timeout: Optional[float] = None, threads: Optional[int] = None) -> Report:
    """The emergence threshold of a sentence alone (`mavis nis emergence`).

    >>> mavis.nis.emergence("examples/guarding/guarding.nis",
    ...                     spec="forall v1, v2: EX^3 (alive, v1) & (alive, v2)").verdict
    'holds'
    """
    return _run(model, "emergence", _verify(spec, engine, no_symmetry_breaking, zero_one, cap,
                                            simulation), networks, set, timeout, threads)
