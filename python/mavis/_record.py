"""Read-only views of a report's JSON objects with their keys as attributes:
`Record` (witness parts) and `Stats` (a run's counts and timings)."""
from __future__ import annotations

import copy
from typing import Any, Iterator, Mapping


class Record(Mapping[str, Any]):
    """A JSON object of the report, read-only: its keys are attributes
    (`step.time`) and, as before, items (`step["time"]`); `to_dict()` is the
    JSON object itself (a copy). Subclasses give some keys Python types."""

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]):
        object.__setattr__(self, "_data", dict(data))

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: the JSON keys, then an error
        # that lists them (a misspelt name is not silently None).
        if name.startswith("__") or name == "_data":
            raise AttributeError(name)
        try:
            return self._data[name]
        except KeyError:
            keys = ", ".join(sorted(self._data)) or "none"
            raise AttributeError(f"{type(self).__name__} has no {name!r} (it has: {keys})") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self._data,))

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | {k for k in self._data if k.isidentifier()})

    def to_dict(self) -> dict[str, Any]:
        """The JSON object, as `json.loads` reads the CLI's report (a copy)."""
        return copy.deepcopy(self._data)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._data!r})"


class Stats(Record):
    """A run's counts and timings as attributes (`r.stats.time_s`,
    `r.stats.states`), the keys of the report's `stats`; a statistic that
    does not apply to the run is absent (AttributeError names those there
    are). `timed_out` is always there: True when the time-out cut the run.

    >>> r = mavis.nis.check("examples/guarding/guarding.nis", "forall v1: AX^1 (alive, v1)", agents=2)
    >>> r.stats.timed_out, r.stats.time_s > 0, "time_s" in r.stats
    (False, True, True)
    """

    __slots__ = ()

    @property
    def timed_out(self) -> bool:
        """Whether the time-out cut the run (what it found is kept)."""
        return bool(self._data.get("timed_out", False))
