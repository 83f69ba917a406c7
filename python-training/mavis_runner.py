"""Run `mavis nis verify|check` and interpret the answer, in process or not.

In process (`run_query_inprocess`, the default of `verify_in_loop.py`): the
`mavis` Python package (`pip install .` at the repository root) checks a model
loaded once against the network's weight arrays; no file, no process start.
As a fallback without the package (`run_query`): the `mavis` binary, with the
network in an ONNX file, `--format json` on stdout.

Both give the same JSON report and the CLI's exit status:
0 (holds), 1 (violated), 2 (bad input or usage) or 3 (unknown: time-out, limits,
internal error).  Only 0 and 1 are verdicts; everything else, including output that
is not the expected JSON or disagrees with the exit status, is an error.
"""
from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

REPO = Path(__file__).resolve().parent.parent
EXIT_MEANING = {0: "holds", 1: "violated", 2: "bad input or usage", 3: "unknown (time-out, limits or internal)"}


class MavisNotFound(RuntimeError):
    pass


def find_mavis(explicit: Optional[str] = None) -> Path:
    """--mavis, else $MAVIS_BIN, else <repo>/target/release/mavis."""
    if explicit:
        candidate, origin = Path(explicit), "--mavis"
    elif os.environ.get("MAVIS_BIN"):
        candidate, origin = Path(os.environ["MAVIS_BIN"]), "MAVIS_BIN"
    else:
        candidate, origin = REPO / "target" / "release" / "mavis", "the default location"
    if not candidate.is_file() or not os.access(candidate, os.X_OK):
        raise MavisNotFound(
            f"mavis binary not found or not executable at {candidate} (from {origin}); "
            "build it with `cargo build --release` or set MAVIS_BIN to its path"
        )
    return candidate


@dataclass
class QueryResult:
    command: str  # "verify" or "check"
    spec: str
    agents: Optional[int]
    status: str  # "holds", "violated" or "error"
    exit_code: Optional[int]
    holds_for_all_n: Optional[bool] = None
    emergence_threshold: Optional[int] = None
    time_s: Optional[float] = None  # mavis's own stats.time_s
    wall_s: float = 0.0
    error: str = ""
    warnings: list = field(default_factory=list)

    @property
    def is_verdict(self) -> bool:
        return self.status in ("holds", "violated")


def build_argv(mavis: Path, command: str, model: Path, network: Path, spec: str,
               agents: Optional[int] = None, network_name: str = "policy") -> list[str]:
    if command not in ("verify", "check"):
        raise ValueError(f"unknown mavis nis command {command!r}")
    argv = [str(mavis), "nis", command, str(model), "--network", f"{network_name}={network}",
            "--spec", spec, "--format", "json"]
    if command == "check":
        if agents is None or agents < 1:
            raise ValueError("nis check needs a number of agents >= 1")
        argv += ["--agents", str(agents)]
    return argv


def interpret(command: str, spec: str, agents: Optional[int], exit_code: int, stdout: str,
              stderr: str, wall_s: float) -> QueryResult:
    res = QueryResult(command=command, spec=spec, agents=agents, status="error", exit_code=exit_code, wall_s=wall_s)
    report = None
    try:
        report = json.loads(stdout)
    except (json.JSONDecodeError, TypeError):
        pass
    if isinstance(report, dict):
        res.warnings = [str(w) for w in report.get("warnings", []) if w is not None]
        stats = report.get("stats")
        if isinstance(stats, dict) and isinstance(stats.get("time_s"), (int, float)):
            res.time_s = float(stats["time_s"])
    detail = (stderr or "").strip().splitlines()
    detail = detail[-1] if detail else "; ".join(res.warnings)

    if exit_code not in (0, 1):
        meaning = EXIT_MEANING.get(exit_code, "unexpected exit status")
        res.error = f"exit {exit_code}: {meaning}" + (f": {detail}" if detail else "")
        return res
    if not isinstance(report, dict):
        res.error = f"exit {exit_code} but stdout is not one JSON object: {stdout[:200]!r}"
        return res
    if report.get("tool") != "mavis" or report.get("command") != command:
        res.error = (f"unexpected report (tool={report.get('tool')!r}, command={report.get('command')!r}, "
                     f"expected mavis/{command})")
        return res
    expected = EXIT_MEANING[exit_code]
    if report.get("verdict") != expected:
        res.error = f"exit {exit_code} ({expected}) disagrees with the report's verdict {report.get('verdict')!r}"
        return res
    results = report.get("results")
    if not isinstance(results, dict):
        res.error = "report has no results object"
        return res
    if command == "verify":
        hfa, thr = results.get("holds_for_all_n"), results.get("emergence_threshold")
        if hfa is not None and not isinstance(hfa, bool):
            res.error = f"results.holds_for_all_n is not a boolean or null: {hfa!r}"
            return res
        if thr is not None and (isinstance(thr, bool) or not isinstance(thr, int)):
            res.error = f"results.emergence_threshold is not an integer or null: {thr!r}"
            return res
        res.holds_for_all_n, res.emergence_threshold = hfa, thr
    else:
        holds = results.get("holds")
        if not isinstance(holds, bool) or holds != (exit_code == 0):
            res.error = f"results.holds ({holds!r}) disagrees with exit {exit_code}"
            return res
        if agents is not None and results.get("agents") not in (None, agents):
            res.error = f"results.agents ({results.get('agents')!r}) is not the requested {agents}"
            return res
    res.status = expected
    return res


def inprocess_available() -> bool:
    """Whether the `mavis` Python package is installed."""
    try:
        import mavis  # noqa: F401
    except ImportError:
        return False
    return True


def load_model(model: Path):
    """The `mavis.nis.Model`, read and checked once; each query gives its network."""
    import mavis
    return mavis.nis.Model.load(model)


def run_query_inprocess(model, command: str, layers, spec: str, agents: Optional[int] = None,
                        timeout: Optional[float] = None, network_name: str = "policy") -> QueryResult:
    """`command` on a `mavis.nis.Model` with the network given as (W, b) layers."""
    import mavis
    if command not in ("verify", "check"):
        raise ValueError(f"unknown mavis nis command {command!r}")
    if command == "check" and (agents is None or agents < 1):
        raise ValueError("nis check needs a number of agents >= 1")
    kwargs = {"agents": agents} if command == "check" else {}
    call = model.check if command == "check" else model.verify
    start = time.perf_counter()
    try:
        report = call(spec, networks={network_name: layers}, timeout=timeout, **kwargs)
    except mavis.InputError as e:
        return QueryResult(command=command, spec=spec, agents=agents, status="error", exit_code=2,
                           wall_s=time.perf_counter() - start, error=f"exit 2: {EXIT_MEANING[2]}: {e}")
    except mavis.InternalError as e:
        return QueryResult(command=command, spec=spec, agents=agents, status="error", exit_code=3,
                           wall_s=time.perf_counter() - start, error=f"exit 3: {EXIT_MEANING[3]}: {e}")
    wall = time.perf_counter() - start
    return interpret(command, spec, agents, report.exit_code, json.dumps(report), "", wall)


def run_query(mavis: Path, command: str, model: Path, network: Path, spec: str,
              agents: Optional[int] = None, timeout: Optional[float] = None) -> QueryResult:
    argv = build_argv(mavis, command, model, network, spec, agents)
    start = time.perf_counter()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return QueryResult(command=command, spec=spec, agents=agents, status="error", exit_code=None,
                           wall_s=time.perf_counter() - start, error=f"timed out after {timeout} s")
    except OSError as e:
        return QueryResult(command=command, spec=spec, agents=agents, status="error", exit_code=None,
                           wall_s=time.perf_counter() - start, error=f"could not run {argv[0]}: {e}")
    wall = time.perf_counter() - start
    return interpret(command, spec, agents, proc.returncode, proc.stdout, proc.stderr, wall)
