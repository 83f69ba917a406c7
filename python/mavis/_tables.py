"""Reports as pandas DataFrames: the tables, sweeps, batches and lists of
queries a report carries, one row per cell, row, input or query. pandas is
an optional dependency, imported only here and only when a frame is asked
for."""
from __future__ import annotations

import importlib
from typing import Any, Mapping, Sequence

# The list of a report's results that is its table, in the order looked for:
# `nis table` cells, sweep and fault rows, queries of several specs or of a
# timed model, swarm properties, the agent counts `nis simulates` tried.
TABLE_KEYS = ("cells", "rows", "queries", "properties", "tried")


def pandas() -> Any:
    """The pandas module, or an ImportError that says what to install."""
    try:
        # Imported by name: pandas is optional, and its type stubs too.
        return importlib.import_module("pandas")
    except ImportError:
        raise ImportError("to_dataframe() needs pandas, an optional dependency of mavis: "
                          "pip install pandas") from None


def frame(rows: Sequence[Mapping[str, Any]]) -> Any:
    return pandas().DataFrame([dict(r) for r in rows])


def flat(value: Any, prefix: str = "", lists: bool = False) -> dict[str, Any]:
    """Nested dicts and lists as one level: {"env": {"t": 1}} as {"env.t": 1},
    {"agents": [{"h": 2}]} as {"agents[0].h": 2}; a list of numbers or names
    stays one value (an input vector is one cell) unless `lists`; None
    under a prefix is left out (an action at a trace's last step).

    >>> flat({"env": {"t": 1}, "agents": [{"h": 2}], "x": [0.5, 1.0]})
    {'env.t': 1, 'agents[0].h': 2, 'x': [0.5, 1.0]}
    >>> flat({"action": {"agents": ["rest", "guard"], "env": "idle"}}, lists=True)
    {'action.agents[0]': 'rest', 'action.agents[1]': 'guard', 'action.env': 'idle'}
    """
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for k, v in value.items():
            out.update(flat(v, f"{prefix}.{k}" if prefix else str(k), lists))
        return out
    if isinstance(value, list) and (lists or any(isinstance(v, (Mapping, list)) for v in value)):
        out = {}
        for i, v in enumerate(value):
            out.update(flat(v, f"{prefix}[{i}]", lists))
        return out
    return {} if value is None and prefix else {prefix: value}


def _nn_eval(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A batch: per input a row, inputs `x0, x1, ...` and outputs `y0, ...`."""
    rows = []
    for x, y in zip(results["inputs"], results["outputs"]):
        row = {f"x{i}": v for i, v in enumerate(x)}
        row.update({f"y{j}": v for j, v in enumerate(y)})
        rows.append(row)
    return rows


def _nn_bounds(results: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per stage (interval, symbolic, ..., exact) and output: lo and hi."""
    stages = list(results.get("stages", []))
    if results.get("exact"):
        stages.append({"name": "exact", **results["exact"]})
    return [{"stage": s.get("name"), "output": j, **flat(o)}
            for s in stages for j, o in enumerate(s.get("outputs", []))]


def rows_of(engine: str, command: str, results: Any) -> list[dict[str, Any]]:
    """The table of a report's results, one dict per row."""
    if not isinstance(results, Mapping):
        raise ValueError(f"{engine} {command}: the report has no results to tabulate")
    if (engine, command) == ("nn", "eval"):
        return _nn_eval(results)
    if (engine, command) == ("nn", "bounds"):
        return _nn_bounds(results)
    for key in TABLE_KEYS:
        rows = results.get(key)
        if isinstance(rows, list) and rows and all(isinstance(r, Mapping) for r in rows):
            return [flat(r) for r in rows]
    # A single answer is a table of one row: its scalar results.
    row = {k: v for k, v in flat(results).items() if not isinstance(v, (list, Mapping))}
    if not row:
        raise ValueError(f"{engine} {command}: the report has no table")
    return [row]
