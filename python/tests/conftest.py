"""The `mavis` package's tests compare every function with the `mavis`
binary on the same inputs (cli_reports.py)."""
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def at_repo_root(monkeypatch):
    """Relative paths mean the same to the package and to the CLI."""
    monkeypatch.chdir(REPO)
