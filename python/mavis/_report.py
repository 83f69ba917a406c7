"""The report of a run: the CLI's JSON report as a dict."""
from __future__ import annotations

from typing import Any, Optional

EXIT_STATUS = {"holds": 0, "violated": 1, "unknown": 3}


class Report(dict):
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

    def __init__(self, data: dict, text: str = "", notes: Optional[list] = None):
        super().__init__(data)
        self.text = text
        self.notes = list(notes or [])

    @property
    def verdict(self) -> Optional[str]:
        """"holds", "violated", "unknown", or None for a query without a verdict."""
        return self.get("verdict")

    @property
    def holds(self) -> bool:
        return self.get("verdict") == "holds"

    @property
    def results(self) -> Any:
        return self.get("results")

    @property
    def witness(self) -> Any:
        return self.get("witness")

    @property
    def stats(self) -> dict:
        return self.get("stats", {})

    @property
    def warnings(self) -> list:
        return self.get("warnings", [])

    @property
    def exit_code(self) -> int:
        """The CLI's exit status for this report (0 without a verdict)."""
        return EXIT_STATUS.get(self.get("verdict"), 0)

    def __str__(self) -> str:
        return self.text.rstrip("\n")

    def __repr__(self) -> str:
        return f"Report({dict.__repr__(self)})"
