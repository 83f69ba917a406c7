"""The report of a run: the CLI's JSON report as a dict."""
from __future__ import annotations

from typing import Any, Literal, Optional, cast

#: A verdict: "holds", "violated", or "unknown" (a time-out, a limit, or a
#: question the method cannot settle).
Verdict = Literal["holds", "violated", "unknown"]

EXIT_STATUS = {"holds": 0, "violated": 1, "unknown": 3}


class Report(dict):  # type: ignore[type-arg]
    """The JSON report of `mavis ... --format json`, key for key (`tool`,
    `version`, `engine`, `command`, `model`, `verdict` when there is one,
    `results`, `witness` when there is one, `output` for a file written to
    standard output, `stats`, `warnings`), plus the text rendering and notes.

    `print(report)` prints the CLI's text output; a verdict is a value, never
    an exception.

    >>> import mavis
    >>> r = mavis.lang.eval("1/3 + 0.15")
    >>> r.results["value"]
    '29/60'
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
    def results(self) -> Any:
        return self.get("results")

    @property
    def witness(self) -> Any:
        return self.get("witness")

    @property
    def stats(self) -> dict[str, Any]:
        """Counts and timings of the run (`stats["timed_out"]` at a time-out)."""
        return cast("dict[str, Any]", self.get("stats", {}))

    @property
    def warnings(self) -> list[str]:
        return cast("list[str]", self.get("warnings", []))

    @property
    def exit_code(self) -> int:
        """The CLI's exit status for this report (0 without a verdict)."""
        return EXIT_STATUS.get(self.get("verdict") or "", 0)

    def __str__(self) -> str:
        return self.text.rstrip("\n")

    def __repr__(self) -> str:
        return f"Report({dict.__repr__(self)})"
