"""The verification loop in process (the `mavis` Python package) against the
same loop through the real `mavis` binary: the same checkpoints get the same
verdicts, thresholds and errors."""
import csv
import os
from pathlib import Path

import pytest

mavis = pytest.importorskip("mavis", reason="the mavis Python package is not installed (pip install .)")

import mavis_runner as mr  # noqa: E402
import verify_in_loop as vil  # noqa: E402

SPECS = ("forall v1,v2: EX^3 ((alive,v1) & (alive,v2))", "forall v1,v2: EX^2 ((alive,v1) & (alive,v2))")
COMPARED = ("episode", "average_return", "command", "spec", "agents", "status", "holds_for_all_n",
            "emergence_threshold", "exit_code", "error")


def rows(path):
    with path.open() as f:
        return [{k: r[k] for k in COMPARED} for r in csv.DictReader(f)]


def loop(tmp_path, name, *extra):
    log = tmp_path / f"{name}.csv"
    args = ["--episodes", "40", "--verify-every", "20", "--csv", str(log), "--check-agents", "3",
            "--keep-best", str(tmp_path / f"{name}.onnx"), *extra]
    for spec in SPECS:
        args += ["--spec", spec]
    assert vil.main(args) == 0
    return rows(log)


def test_in_process_loop_matches_the_binary(tmp_path):
    binary = os.environ.get("MAVIS_BIN") or str(mr.REPO / "target" / "release" / "mavis")
    in_process = loop(tmp_path, "in", "--backend", "in-process")
    by_binary = loop(tmp_path, "bin", "--backend", "subprocess", "--mavis", binary)
    assert in_process == by_binary
    assert len(in_process) == 2 * len(SPECS) * 2
    assert all(r["status"] in ("holds", "violated") for r in in_process)
    assert (tmp_path / "in.onnx").read_bytes() == (tmp_path / "bin.onnx").read_bytes()


def test_in_process_errors_are_logged_not_raised(tmp_path):
    model = mr.load_model(mr.REPO / "examples" / "guarding" / "guarding.nis")
    r = mr.run_query_inprocess(model, "verify", [([[1.0]], [0.0])], SPECS[0])
    assert r.status == "error" and r.exit_code == 2 and "network `policy`" in r.error
    r = mr.run_query_inprocess(model, "verify", [([[1.0]] * 2, [0.0] * 2)], "forall v1: EX (alve, v1)")
    assert r.status == "error" and r.exit_code == 2 and "alve" in r.error
