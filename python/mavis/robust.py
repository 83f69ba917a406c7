"""`mavis robust`: robust strategies for metric automata (Majumdar, Render,
Tabuada, arXiv 2011), and parity games."""
from __future__ import annotations

from typing import Any, Literal, Mapping, Optional, Union

from . import _call
from ._call import PathLike
from ._report import Report

__all__ = ["solve", "check", "parity", "faults", "convert", "Solver"]

#: `solver=` of `parity`.
Solver = Literal["zielonka", "spm"]


def solve(model: PathLike, *, max_sigma: Optional[float] = None,
          strategy_out: Optional[PathLike] = None, set: Optional[Mapping[str, Any]] = None,
          timeout: Optional[float] = None) -> Report:
    """An optimally robust strategy: sigma, the strategy, the bound per state
    (`mavis robust solve`).

    >>> r = mavis.robust.solve("examples/robust/grid_reach.ma")
    >>> r.verdict, r.results["sigma"]
    ('holds', ...)
    """
    options = {"set": _call.assignments(set), "max_sigma": max_sigma, "strategy_out": strategy_out}
    return _call.run(_call.argv("robust", "solve", [model], options, timeout))


def check(model: PathLike, strategy: PathLike, *, max_sigma: Optional[float] = None,
          set: Optional[Mapping[str, Any]] = None, timeout: Optional[float] = None) -> Report:
    """The robustness bound of a memoryless reachability strategy (`mavis
    robust check`).

    >>> mavis.robust.check("examples/robust/grid_reach.ma", strategy="examples/robust/naive.strat").verdict
    'holds'
    """
    options = {"strategy": strategy, "set": _call.assignments(set), "max_sigma": max_sigma}
    return _call.run(_call.argv("robust", "check", [model], options, timeout))


def parity(game: PathLike, *, solver: Optional[Solver] = None, solution: Optional[PathLike] = None,
           timeout: Optional[float] = None) -> Report:
    """Solves a PGSolver parity game, with strategies for both players
    (`mavis robust parity`); `solver`: "zielonka" or "spm".

    >>> r = mavis.robust.parity("examples/robust/game.pg", solver="spm")
    >>> r.results["won_by_even"] == mavis.robust.parity("examples/robust/game.pg").results["won_by_even"]
    True
    """
    options = {"solver": solver, "solution": solution}
    return _call.run(_call.argv("robust", "parity", [game], options, timeout))


def faults(model: PathLike, period: Union[str, range, tuple[int, int]] = (1, 10), *,
           plot: Optional[PathLike] = None, set: Optional[Mapping[str, Any]] = None,
           timeout: Optional[float] = None) -> Report:
    """Transient faults at most once every T steps: the bound against T
    (`mavis robust faults`); `period` is (LO, HI), a range or "LO..HI".

    >>> rows = mavis.robust.faults("examples/robust/icy_ramp.ma", period=(1, 8)).results["rows"]
    >>> len(rows)
    8
    """
    if isinstance(period, tuple):
        period = f"{period[0]}..{period[1]}"
    options = {"period": period, "plot": plot, "set": _call.assignments(set)}
    return _call.run(_call.argv("robust", "faults", [model], options, timeout))


def convert(model: PathLike, output: PathLike, *, set: Optional[Mapping[str, Any]] = None) -> Report:
    """Writes a metric automaton in the compact binary form `.mab`, which
    every robust command reads fast (`mavis robust convert`).

    >>> import os, tempfile
    >>> out = os.path.join(tempfile.mkdtemp(), "grid_reach.mab")
    >>> _ = mavis.robust.convert("examples/robust/grid_reach.ma", out)
    >>> mavis.robust.solve(out).verdict
    'holds'
    """
    options = {"output": output, "set": _call.assignments(set)}
    return _call.run(_call.argv("robust", "convert", [model], options))
