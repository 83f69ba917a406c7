"""The `mavis` binary on the same inputs as the package: $MAVIS_BIN, else
target/release/mavis."""
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def mavis_bin() -> Path:
    path = Path(os.environ.get("MAVIS_BIN") or REPO / "target" / "release" / "mavis")
    if not path.is_file():
        pytest.fail(f"the mavis binary is missing at {path}: build it (cargo build --release) or set MAVIS_BIN")
    return path


def cli_json(*args: str) -> tuple[int, dict]:
    """The CLI's exit status and JSON (report or error object), run from the repository root."""
    proc = subprocess.run([str(mavis_bin()), *args, "--format", "json"], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    return proc.returncode, json.loads(proc.stdout)


def is_timing(key: str) -> bool:
    """Timings (`stats`, `*time*_s`) are the only values that differ between two runs of a verb."""
    return key == "stats" or ("time" in key and key.endswith("_s"))


# A duration inside a rendered text (a table's cells read "T 0.001s").
DURATION = re.compile(r"\d+\.\d+ ?s\b")


def comparable(value):
    """A report with its timings removed: timing keys, and durations written
    into rendered text (the table's cells), which differ from run to run."""
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if not is_timing(k)}
    if isinstance(value, (list, tuple)):
        return [comparable(v) for v in value]
    if isinstance(value, str):
        return DURATION.sub("<time>", value)
    return value
