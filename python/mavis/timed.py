"""`mavis timed`: agents with timed periodic tasks (Arcile, Devillers,
Klaudel, Fundamenta Informaticae 2020)."""
from __future__ import annotations

from typing import Any, Literal, Mapping, Optional, Sequence, Union

from . import _call
from ._call import PathLike, Repeat
from ._report import Report

__all__ = ["validate", "check", "convert", "export", "Semantics", "Search", "Target"]

#: `semantics=`.
Semantics = Literal["plain", "accelerated"]
#: `search=`: the order states are explored in.
Search = Literal["bfs", "dfs", "layered", "best-first"]
#: `to=` of `export`.
Target = Literal["uppaal", "tchecker"]


def validate(model: PathLike, set: Optional[Mapping[str, Any]] = None) -> Report:
    """Checks that a model is a MAPT (`mavis timed validate`).

    >>> [a["name"] for a in mavis.timed.validate("examples/cav/platoon2.mapt").results["agents"]]
    ['road', 'car1', 'car2']
    """
    return _call.run(_call.argv("timed", "validate", [model], {"set": _call.assignments(set)}))


def check(model: PathLike, query: Optional[str] = None, *, name: Union[None, str, Sequence[str]] = None,
          semantics: Optional[Semantics] = None, search: Optional[Search] = None,
          memory: Optional[str] = None, horizon: Union[None, int, float, str] = None,
          pacemaker: Optional[str] = None, minimize: Optional[str] = None,
          maximize: Optional[str] = None, random: bool = False, seed: Optional[int] = None,
          max_states: Optional[int] = None, set: Optional[Mapping[str, Any]] = None,
          timeout: Optional[float] = None, threads: Optional[int] = None) -> Report:
    """Answers EF/AG/nested/max/min queries: `query`, the file's queries
    named `name`, or all of them (`mavis timed check`). `horizon`: time
    units (100) or pacemaker periods ("5p"); `search`: "bfs", "dfs",
    "layered" or "best-first".

    >>> mavis.timed.check("examples/cav/platoon2.mapt", "EF x2 - x1 < 1", search="layered").verdict
    'holds'
    """
    names = Repeat([name] if isinstance(name, str) else list(name or []))
    options = {"semantics": semantics, "search": search, "memory": memory, "horizon": horizon,
               "pacemaker": pacemaker, "minimize": minimize, "maximize": maximize,
               "random": random, "seed": seed, "max_states": max_states,
               "set": _call.assignments(set), "query": query, "name": names}
    return _call.run(_call.argv("timed", "check", [model], options, timeout, threads))


def convert(model: PathLike, output: Optional[PathLike] = None) -> Report:
    """Converts between the `.mapt` text form and the JSON form (`mavis timed
    convert`); without `output` the converted file is the report's `output`.

    >>> mavis.timed.convert("examples/cav/platoon2.mapt")["output"][:1]
    '{'
    """
    return _call.run(_call.argv("timed", "convert", [model], {"output": output}))


def export(model: PathLike, to: Target, output: Optional[PathLike] = None,
           set: Optional[Mapping[str, Any]] = None) -> Report:
    """Exports to Uppaal XML (`to="uppaal"`) or TChecker (`to="tchecker"`)
    (`mavis timed export`).

    >>> print(mavis.timed.export("examples/cav/platoon2.mapt", to="tchecker")["output"])
    # ...
    """
    options = {"to": to, "output": output, "set": _call.assignments(set)}
    return _call.run(_call.argv("timed", "export", [model], options))
