"""Command lines for the native module: every function of the package is one
CLI verb, run in this process by the same Rust code as the `mavis` binary."""
from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Optional, Union

from . import _errors, _native
from ._report import Report

PathLike = Union[str, "os.PathLike[str]"]


class Repeat(list):  # type: ignore[type-arg]
    """An option given once per element (`--spec A --spec B`)."""


def value_text(value: Any) -> str:
    """One option value as the CLI reads it."""
    if isinstance(value, bool):
        raise TypeError("a flag takes no value")
    if isinstance(value, range):
        if value.step != 1 or len(value) == 0:
            raise ValueError(f"{value!r}: only non-empty ranges with step 1 are accepted")
        return f"{value.start}..{value.stop - 1}"
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (list, tuple)):
        return ",".join(value_text(v) for v in value)
    return str(value)


def assignments(values: Optional[Mapping[str, Any]]) -> Repeat:
    """`set={"N": 4}` as repeated `--set N=4`."""
    return Repeat(f"{k}={value_text(v)}" for k, v in (values or {}).items())


def argv(engine: str, verb: str, positional: Iterable[Any], options: Mapping[str, Any],
         timeout: Optional[float] = None, threads: Optional[int] = None) -> list[str]:
    """`mavis ENGINE VERB POSITIONAL... --option value ... --format json`.

    Option names are the CLI's with `-` for `_`; None and False leave an option
    out, True is a flag, a `Repeat` repeats the option.
    """
    line = ["mavis", engine, verb, *(value_text(p) for p in positional)]
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            line.append(flag)
        elif isinstance(value, Repeat):
            for v in value:
                line += [flag, value_text(v)]
        else:
            line += [flag, value_text(value)]
    if timeout is not None:
        line += ["--timeout", value_text(timeout)]
    if threads is not None:
        line += ["--threads", value_text(threads)]
    return line + ["--format", "json"]


def report(answer: tuple[dict[str, Any], str, list[str]]) -> Report:
    """The native module's answer (the JSON report as Python values, the
    text, the notes) as a `Report`."""
    data, text, notes = answer
    results = data.get("results")
    if isinstance(results, dict) and results.get("kind") in ("limit", "undetermined"):
        # A run stopped by a limit: its reason in Python's terms
        # (`max_states=`, not `--max-states`).
        results["reason"] = _errors.python_message(str(results.get("reason", "")))
        text = f"UNKNOWN: {results['reason']}\n"
    return Report(data, text=text, notes=list(notes))


def run(line: list[str], networks: Optional[dict[str, Any]] = None,
        names: Optional[Mapping[str, str]] = None) -> Report:
    """Runs a command line (the GIL is released meanwhile). Bad input raises
    `InputError` in Python's terms (`names`: CLI option to parameter, where
    they differ)."""
    with _errors.translated(names):
        return report(_native.run(line, networks or None))
