"""Witnesses as Python objects: a `Trace` of `Step`s whose `state` and
`action` are Python values (dicts of numbers, Booleans and names), and the
`Counterexample` of a network property.

They are built here, in one place, from the report's `witness` object. The
Rust engines keep typed witnesses only up to their verb layer, which writes
them into the report (some parts as text: a swarm state's columns, a timed
state's `V` and localities); those texts are read back here into values, by
the rules the verb layer writes them with (`name=value` separated by
spaces, `agent@locality`).
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Mapping, Optional, Union

from ._record import Record

_INT = re.compile(r"[+-]?\d+")
_FRACTION = re.compile(r"[+-]?\d+/\d+")


def value(text: Any) -> Any:
    """A value the report writes as text: an int, a Fraction for `p/q`, a
    float, a Boolean, else the text itself (a name).

    >>> [value(t) for t in ("3", "-1/5", "0.25", "true", "COC")]
    [3, Fraction(-1, 5), 0.25, True, 'COC']
    """
    if not isinstance(text, str):
        return text
    if _INT.fullmatch(text):
        return int(text)
    if _FRACTION.fullmatch(text):
        return Fraction(text)
    if text in ("true", "false"):
        return text == "true"
    try:
        return float(text)
    except ValueError:
        return text


def assignments(text: str, sep: str = "=") -> dict[str, Any]:
    """`x1=3 x2=5` (or `x1=3, x2=5`) as {"x1": 3, "x2": 5} (`sep="@"`:
    `car1@sense` as {"car1": "sense"}).

    >>> assignments("x1=3 x2=-1/2"), assignments("car1@sense car2@done", "@")
    ({'x1': 3, 'x2': Fraction(-1, 2)}, {'car1': 'sense', 'car2': 'done'})
    >>> assignments("state=1, t=0, d=0")
    {'state': 1, 't': 0, 'd': 0}
    """
    out = {}
    for word in re.split(r"[,\s]+", text.strip()):
        if not word:
            continue
        name, _, v = word.partition(sep)
        out[name] = value(v) if sep == "=" else v
    return out


def _cell(text: Any) -> Any:
    """A swarm state's column: an agent's or the environment's variables
    (`state=1, t=0, d=0`) as a dict, or one value."""
    return assignments(text) if isinstance(text, str) and "=" in text else value(text)


class Step(Record):
    """One step of a trace: `index` (0 is the initial state), the `state`
    reached (a dict of Python values) and the `action` taken from it (None
    at the last step, or what the engine names the move into this state for
    timed and swarm traces, whose rows list the move first). The step's
    other keys of the JSON are attributes too (`time`, `probability`, ...)."""

    __slots__ = ()

    @property
    def index(self) -> int:
        return int(self._data.get("step", 0))

    @property
    def state(self) -> dict[str, Any]:
        return _state(self._data)

    @property
    def action(self) -> Any:
        return _action(self._data)


def _local(agent: Mapping[str, Any]) -> dict[str, Any]:
    """A NIS agent's local state: its private variables and its percept."""
    return {**agent.get("private", {}), "percept": agent.get("percept")}


def _state(step: Mapping[str, Any]) -> dict[str, Any]:
    if "V" in step:  # timed: the valuation and each agent's locality
        return {"vars": assignments(step["V"]), "localities": assignments(step["localities"], "@")}
    if "zero_one" in step:  # the abstract M_ab(m), as the report writes it
        return {"agents": list(step["agents"]), "zero_one": list(step["zero_one"]), "env": step["env"]}
    if "agents" in step:  # a concrete NIS M(n)
        state = {"env": dict(step["env"]), "agents": [_local(a) for a in step["agents"]]}
        if "named" in step:
            state["named"] = {name: _local(a) for name, a in step["named"].items()}
        return state
    return dict(step.get("state", {}))


def _action(step: Mapping[str, Any]) -> Any:
    if "zero_one" in step:
        if step.get("actions") is None:
            return None
        return {"agents": list(step["actions"]), "zero_one": step.get("zero_one_action"),
                "env": step.get("env_action")}
    if "agents" in step and "V" not in step:
        if step.get("env_action") is None:
            return None
        action = {"agents": [a.get("action") for a in step["agents"]], "env": step["env_action"]}
        if "named" in step:
            action["named"] = {name: a.get("action") for name, a in step["named"].items()}
        return action
    return step.get("action")


class Trace(Record):
    """A witness or counterexample trace: `kind` ("witness",
    "counterexample", ...; None where the engine names none), `steps` (a
    list of `Step`), `branches` (a branching NIS witness has several; other
    traces one, `steps`), `initial` (the initial state where the report
    gives it apart from the steps), and `to_dataframe()`, a row per step."""

    __slots__ = ()

    @property
    def kind(self) -> Optional[str]:
        kind = self._data.get("kind")
        return None if kind is None else str(kind)

    @property
    def branches(self) -> list[list[Step]]:
        if "branches" in self._data:
            return [[Step(s) for s in b] for b in self._data["branches"]]
        return [self.steps]

    @property
    def steps(self) -> list[Step]:
        if "branches" in self._data:
            return [Step(s) for s in (self._data["branches"] or [[]])[0]]
        if "trace" in self._data:  # timed: the initial state is step 0
            rows = self._data["trace"]["steps"]
            return [Step({"step": k + 1, **row}) for k, row in enumerate(rows)]
        columns = self._data.get("columns", [])
        return [Step({**s, "state": dict(zip(columns, (_cell(v) for v in s["state"])))})
                for s in self._data.get("steps", [])]

    @property
    def initial(self) -> Optional[dict[str, Any]]:
        if "trace" in self._data:
            return _state(self._data["trace"]["initial"])
        steps = self.steps
        return steps[0].state if steps and steps[0].index == 0 else None

    def to_dataframe(self) -> Any:
        """The steps as a pandas DataFrame: `step`, the state's values (nested
        ones as `env.t`, `agents[0].h`), and the action (pandas is an
        optional dependency)."""
        from ._tables import frame, flat
        rows = []
        for s in self.steps:
            row: dict[str, Any] = {"step": s.index}
            row.update(flat(s.state, lists=True))
            row.update(flat({"action": s.action}, lists=True))
            rows.append(row)
        return frame(rows)


class Counterexample(Record):
    """An input on which a network property fails, replayed: `input` and
    `output` (lists of floats), and which `case` and `disjunct` of the
    property it violates."""

    __slots__ = ()

    @property
    def input(self) -> list[float]:
        return list(self._data["input"])

    @property
    def output(self) -> list[float]:
        return list(self._data["output"])


Witness = Union[Trace, Counterexample, dict[str, Trace]]


def build(engine: str, data: Any) -> Optional[Witness]:
    """The typed witness of a report's `witness` object (None if absent)."""
    if not isinstance(data, Mapping):
        return None
    if engine == "nn":
        return Counterexample(data)
    if engine == "timed":  # one trace per query that has one, by name
        return {name: Trace(t) for name, t in data.items()}
    return Trace(data)
