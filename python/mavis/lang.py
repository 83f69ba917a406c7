"""`mavis lang`: the shared expression language."""
from __future__ import annotations

from typing import Any, Mapping, Optional

from . import _call
from ._report import Report

__all__ = ["eval"]


def eval(expr: str, set: Optional[Mapping[str, Any]] = None) -> Report:
    """Evaluates a closed expression exactly (`mavis lang eval`).

    >>> mavis.lang.eval("clamp(3 - 2*N, 0, 4)", set={"N": 1}).results["value"]
    '1'
    """
    return _call.run(_call.argv("lang", "eval", [expr], {"set": _call.assignments(set)}))
