"""`mavis swarm`: probabilistic swarms with faults (Lomuscio, Pirovano,
IJCAI 2020). `agents` is an int or one int per template."""
from __future__ import annotations

from typing import Any, Literal, Mapping, Optional, Sequence, Union

from . import _call
from ._call import PathLike, Repeat
from ._report import Report

__all__ = ["check", "sweep", "export", "ExportFormat"]

#: `to=` of `export`.
ExportFormat = Literal["prism", "jani"]

Agents = Optional[Union[int, Sequence[int]]]


def _model(faults, set, faulty_fraction) -> dict:
    return {"faults": faults, "set": _call.assignments(set), "faulty_fraction": faulty_fraction}


def check(model: PathLike, *, faults: Optional[PathLike] = None, props: Optional[PathLike] = None,
          prop: Union[None, str, Sequence[str]] = None, agents: Agents = None,
          abstract: bool = False, threshold: Optional[int] = None, exact: bool = False,
          witness: bool = False, max_states: Optional[int] = None,
          set: Optional[Mapping[str, Any]] = None, faulty_fraction: Optional[Union[float, str]] = None,
          timeout: Optional[float] = None, threads: Optional[int] = None) -> Report:
    """Checks properties on S(agents), or for every number of agents with
    `abstract=True` (`mavis swarm check`).

    >>> mavis.swarm.check("examples/foraging/foraging.swarm", faults="examples/foraging/foraging.faults",
    ...                   prop='Pmax=? [ F<13 "deposited2" ]', agents=2, exact=True).results["properties"][0]["exact"]
    '0'
    """
    props_given = Repeat([prop] if isinstance(prop, str) else list(prop or []))
    options = {"props": props, "prop": props_given, "agents": agents, "abstract": abstract,
               "threshold": threshold, "exact": exact, "witness": witness,
               "max_states": max_states, **_model(faults, set, faulty_fraction)}
    return _call.run(_call.argv("swarm", "check", [model], options, timeout, threads))


def sweep(model: PathLike, prop: str, sweep: str, k: Union[str, range, tuple[int, int]], *,
          faults: Optional[PathLike] = None, agents: Agents = None, threshold: Optional[int] = None,
          out: Optional[PathLike] = None, max_states: Optional[int] = None,
          set: Optional[Mapping[str, Any]] = None, faulty_fraction: Optional[Union[float, str]] = None,
          timeout: Optional[float] = None, threads: Optional[int] = None) -> Report:
    """Max p against k and a swept constant (`mavis swarm sweep`); `sweep` is
    "NAME=START:STEP:END", `k` is "LO..HI", a range or (LO, HI).

    >>> mavis.swarm.sweep("examples/foraging/foraging.swarm", 'Pmax=? [ F<k "deposited2" ]',
    ...                   sweep="pf=0:0.5:1", k=(8, 10), agents=2,
    ...                   faults="examples/foraging/foraging.faults").results["rows"][0]["k"]
    8
    """
    if isinstance(k, tuple):
        k = f"{k[0]}..{k[1]}"
    options = {"prop": prop, "sweep": sweep, "k": k, "agents": agents, "threshold": threshold,
               "out": out, "max_states": max_states, **_model(faults, set, faulty_fraction)}
    return _call.run(_call.argv("swarm", "sweep", [model], options, timeout, threads))


def export(model: PathLike, *, to: ExportFormat = "prism", agents: Agents = None, abstract: bool = False,
           threshold: Optional[int] = None, output: Optional[PathLike] = None,
           faults: Optional[PathLike] = None, set: Optional[Mapping[str, Any]] = None,
           faulty_fraction: Optional[Union[float, str]] = None,
           timeout: Optional[float] = None) -> Report:
    """Exports S(agents) or the abstract model to PRISM or JANI (`mavis swarm
    export`); without `output` the file is the report's `output`.

    >>> mavis.swarm.export("examples/foraging/foraging.swarm", agents=3, to="jani",
    ...                    faults="examples/foraging/foraging.faults")["output"][:1]
    '{'
    """
    options = {"agents": agents, "abstract": abstract, "threshold": threshold, "to": to,
               "output": output, **_model(faults, set, faulty_fraction)}
    return _call.run(_call.argv("swarm", "export", [model], options, timeout))
