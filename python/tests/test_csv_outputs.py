"""pandas.read_csv reads every CSV mavis writes, as it is: `nis table
--table-format csv` (and its merge), `swarm sweep --out` and the summary of
`nn verify --instances`; the values read are the JSON report's."""
import io
import subprocess
from fractions import Fraction

import pandas as pd

from cli_reports import REPO, cli_json, mavis_bin

GUARDING = "examples/guarding/guarding.nis"
SPECS = ["forall v1, v2: EX^{k} (alive, v1) & (alive, v2)", "forall v1, v2: AX^{k} (alive, v1) & (alive, v2)"]


def mavis(*args, cwd=REPO):
    proc = subprocess.run([str(mavis_bin()), *args], cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_nis_table_csv_is_one_table_with_a_spec_column(tmp_path):
    grid = ["--k", "1..3", "--agents", "2..3"]
    spec_args = [a for s in SPECS for a in ("--spec", s)]
    csv = mavis("nis", "table", GUARDING, *spec_args, *grid, "--table-format", "csv")
    frame = pd.read_csv(io.StringIO(csv))
    assert list(frame.columns) == ["spec", "n \\ k", "1", "2", "3"]
    assert len(frame) == len(SPECS) * 2
    _, report = cli_json("nis", "table", GUARDING, *spec_args, *grid)
    for cell in report["results"]["cells"]:
        spec = SPECS[0] if "EX" in cell["spec"] else SPECS[1]
        row = frame[(frame["spec"] == spec) & (frame["n \\ k"] == cell["agents"])]
        assert len(row) == 1
        assert row.iloc[0][str(cell["k"])].startswith("T" if cell["holds"] else "F")
    # The merge of shards draws the same CSV.
    parts = []
    for i in (1, 2):
        part = tmp_path / f"part{i}.json"
        mavis("nis", "table", GUARDING, *spec_args, *grid, "--shard", f"{i}/2", "--format", "json", "-o", str(part))
        parts.append(str(part))
    merged = mavis("merge", *parts, "--table-format", "csv", "--no-times")
    unsharded = mavis("nis", "table", GUARDING, *spec_args, *grid, "--table-format", "csv", "--no-times")
    assert merged == unsharded
    assert pd.read_csv(io.StringIO(merged)).shape == frame.shape


def test_swarm_sweep_csv_has_decimals_and_the_exact_values(tmp_path):
    prefix = tmp_path / "sweep"
    _, report = cli_json("swarm", "sweep", "examples/foraging/foraging_small.swarm",
                         "--faults", "examples/foraging/foraging_small.faults",
                         "--prop", 'Pmax=? [ F<k "deposited2" ]', "--sweep", "pf=0:0.2:0.4",
                         "--k", "9..10", "--agents", "2", "--out", str(prefix))
    frame = pd.read_csv(f"{prefix}.csv")
    assert list(frame.columns) == ["pf", "k", "Pmax", "pf exact"]
    assert frame["pf"].dtype.kind == "f" and frame["Pmax"].dtype.kind == "f"
    assert list(frame["pf exact"].astype(str)) == ["0", "0", "1/5", "1/5", "2/5", "2/5"]
    for (_, row), want in zip(frame.iterrows(), report["results"]["rows"]):
        assert row["pf"] == float(Fraction(row["pf exact"])) == want["value"]
        assert (row["k"], row["Pmax"]) == (want["k"], want["p"])


def test_the_instances_summary_reads_as_it_is(tmp_path):
    bench = tmp_path / "bench"
    bench.mkdir()
    for name in ("policy_1_4_4_2.onnx", "policy_1_4_4_2.vnnlib"):
        (bench / name).write_bytes((REPO / "tests/fixtures" / name).read_bytes())
    (bench / "instances.csv").write_text("policy_1_4_4_2.onnx,policy_1_4_4_2.vnnlib,60\n")
    out = tmp_path / "results"
    mavis("nn", "verify", "--instances", str(bench / "instances.csv"), "--out-dir", str(out))
    frame = pd.read_csv(out / "summary.csv")
    assert list(frame.columns) == ["line", "network", "property", "timeout", "result", "verdict", "time_s", "resumed"]
    assert frame.iloc[0]["result"] == "unsat" and frame.iloc[0]["verdict"] == "holds"
    assert frame["time_s"].dtype.kind == "f" and bool(frame.iloc[0]["resumed"]) is False
