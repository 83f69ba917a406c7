"""Errors as Python reports them: `InputError` located by attributes, and
messages that name the function's parameters instead of the CLI's flags.

The Rust side reports bad input with the CLI's message (clap's for a bad
option, `file:line:column: ...` for a bad model); this module rewrites the
option names (`--input <VALUES>` becomes `inputs=`), drops the CLI's usage
line and its "try '--help'", and sets `file`, `line` and `column` on the
exception from the first `file:line:column` of the message.
"""
from __future__ import annotations

import contextlib
import re
from typing import Iterator, Mapping, Optional

from . import _native

InputError = _native.InputError
InternalError = _native.InternalError

# Every InputError has the attributes, None when the message names no place.
InputError.file = None
InputError.line = None
InputError.column = None

# CLI option names whose Python parameter is spelled otherwise.
PARAMETERS = {"input": "inputs", "network": "networks"}

_FLAG = re.compile(r"(?<![\w-])'?--([a-z][a-z0-9-]*)"
                   r"(?:[ =](?:<[A-Za-z_.]+>(?:\.\.\.)?|[A-Z][A-Z_]+\b|(\d[\d.]*\b)))?'?")
_HELP = re.compile(r"\s*For more information, try '--help'\.?\s*$")
_USAGE = re.compile(r"\n+Usage: [^\n]*(\n[^\n]+)*")
_PLACE = re.compile(r"(?P<file>[^\s:'\"`()]+):(?P<line>\d+)(?::(?P<column>\d+))?")


def python_message(message: str, names: Optional[Mapping[str, str]] = None) -> str:
    """The CLI's message with Python's names: `--foo-bar <X>` as `foo_bar=`.

    >>> python_message("error: invalid value 'x' for '--input <VALUES>': bad\\n\\nFor more information, try '--help'.")
    "invalid value 'x' for inputs=: bad"
    >>> python_message("no input given: use --input VALUES or --csv FILE")
    'no input given: use inputs= or csv='
    >>> python_message("more than --max-states 2")
    'more than max_states=2'
    """
    table = {**PARAMETERS, **(names or {})}

    def parameter(m: "re.Match[str]") -> str:
        name = m.group(1).replace("-", "_")
        return table.get(name, name) + "=" + (m.group(2) or "")

    text = _HELP.sub("", message)
    text = _USAGE.sub("", text)
    text = re.sub(r"^error: ", "", text.strip())
    return _FLAG.sub(parameter, text).strip()


def located(error: BaseException, names: Optional[Mapping[str, str]] = None) -> BaseException:
    """An InputError with Python's message and its place as attributes."""
    message = python_message(str(error), names)
    new = InputError(message)
    place = _PLACE.search(message)
    if place:
        new.file = place.group("file")
        new.line = int(place.group("line"))
        new.column = int(place.group("column")) if place.group("column") else None
    return new


@contextlib.contextmanager
def translated(names: Optional[Mapping[str, str]] = None) -> Iterator[None]:
    """Re-raises an InputError from the native module in Python's terms."""
    try:
        yield
    except InputError as e:
        raise located(e, names) from None
