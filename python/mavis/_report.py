"""The result of a run: verdict, typed witness and statistics, tables as
DataFrames, and the CLI's JSON report (`to_dict()`, or the report itself
as a dict)."""
from __future__ import annotations

import copy
from typing import Any, Literal, Optional, cast

from . import _tables, _witness
from ._record import Stats
from ._witness import Witness

#: A verdict: "holds", "violated", or "unknown" (a time-out, a limit, or a
#: question the method cannot settle).
Verdict = Literal["holds", "violated", "unknown"]

EXIT_STATUS = {"holds": 0, "violated": 1, "unknown": 3}


class Report(dict):  # type: ignore[type-arg]
    """The result of a run: `verdict` and `holds`, `witness` (a `Trace` of
    `Step`s, a `Counterexample`, or for `timed check` one trace per query by
    name; None when there is none), `stats` (a `Stats`: counts and timings
    as attributes), `results` (the verb's answer), `warnings`,
    `to_dataframe()` for tables, sweeps, batches and lists of queries, and
    `to_dict()`, the CLI's JSON report (`tool`, `version`, `engine`,
    `command`, `model`, `verdict` when there is one, `results`, `witness`
    when there is one, `output` for a file written to standard output,
    `stats`, `warnings`).

    A report is also that JSON report as a dict (`r["results"]`), and keeps
    the text rendering and notes: `print(report)` prints the CLI's text
    output. A verdict is a value, never an exception; at the time-out it is
    "unknown", with what was found before it.

    >>> import mavis
    >>> r = mavis.lang.eval("1/3 + 0.15")
    >>> r.results["value"]
    '29/60'
    >>> r = mavis.nis.check("examples/guarding/guarding.nis", "forall v1: AX^1 (alive, v1)", agents=2)
    >>> r.verdict, r.holds, r.witness.kind, len(r.witness.steps)
    ('violated', False, 'counterexample', 2)
    >>> r.witness.steps[0].state["agents"][0]
    {'h': 3, 'percept': 'volunteer'}
    >>> r.witness.steps[0].action
    {'agents': ['rest', 'rest'], 'env': 'env_idle'}
    """

    def __init__(self, data: dict[str, Any], text: str = "", notes: Optional[list[str]] = None):
        super().__init__(data)
        self.text = text
        self.notes = list(notes or [])

    @property
    def verdict(self) -> Optional[Verdict]:
        """"holds", "violated", "unknown", or None for a query without a verdict."""
        return cast(Optional[Verdict], self.get("verdict"))

    @property
    def holds(self) -> bool:
        """Whether the verdict is "holds"."""
        return self.get("verdict") == "holds"

    @property
    def timed_out(self) -> bool:
        """Whether the time-out cut the run (the verdict is then "unknown",
        and `results` keeps what was found before it)."""
        return self.stats.timed_out

    @property
    def results(self) -> Any:
        """The verb's answer, as in the JSON report."""
        return self.get("results")

    @property
    def witness(self) -> Optional[Witness]:
        """The replayed witness or counterexample as Python objects (None
        when the verdict has none); `to_dict()` of it is the JSON's."""
        return _witness.build(str(self.get("engine")), self.get("witness"))

    @property
    def stats(self) -> Stats:
        """Counts and timings of the run, as attributes (`stats.time_s`,
        `stats.timed_out`)."""
        return Stats(self.get("stats", {}))

    @property
    def warnings(self) -> list[str]:
        return cast("list[str]", self.get("warnings", []))

    @property
    def exit_code(self) -> int:
        """The CLI's exit status for this report (0 without a verdict)."""
        return EXIT_STATUS.get(self.get("verdict") or "", 0)

    def to_dict(self) -> dict[str, Any]:
        """The CLI's JSON report (`--format json`), as `json.loads` reads it (a copy)."""
        return copy.deepcopy(dict(self))

    def to_dataframe(self) -> Any:
        """The report's table as a pandas DataFrame (pandas is an optional
        dependency: without it, an ImportError says to install it). A row
        per cell of `nis table`, row of `swarm sweep` and `robust faults`,
        input of a `nn eval` batch (`x0, ...` and `y0, ...`), stage and
        output of `nn bounds`, query of several specs or of `timed check`,
        property of `swarm check`, agent count `nis simulates` tried; for
        any other report one row of its scalar results. Nested values are
        columns like `stats.time_s`.

        >>> r = mavis.nis.table("examples/guarding/guarding.nis", k=range(1, 4), agents=[2, 3],
        ...                     spec="forall v1, v2: EX^{k} (alive, v1) & (alive, v2)")
        >>> df = r.to_dataframe()
        >>> df.pivot(index="agents", columns="k", values="holds").values.tolist()
        [[True, True, False], [True, True, True]]
        """
        rows = _tables.rows_of(str(self.get("engine")), str(self.get("command")), self.results)
        return _tables.frame(rows)

    def __str__(self) -> str:
        return self.text.rstrip("\n")

    def __repr__(self) -> str:
        return f"Report({dict.__repr__(self)})"
