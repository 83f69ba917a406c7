#!/usr/bin/env python3
"""Train the guarding policy and verify every N-th episode's network with mavis.

    python verify_in_loop.py --verify-every 100 --episodes 1500 \\
        --spec 'forall v1,v2: EX^3 ((alive,v1) & (alive,v2))' --check-agents 3 \\
        --csv loop.csv --plot loop.png --keep-best best.onnx

At each checkpoint every --spec is verified for all n (`nis verify`), and checked
for each --check-agents N (`nis check --agents N`), with the current network.
In process by default: the `mavis` Python package checks the model, loaded once,
against the network's float32 weights (the values its ONNX export holds).
Without the package, or with --backend subprocess or --mavis, the network is
exported to a temporary ONNX file for `mavis nis verify MODEL --network
policy=TMP --format json`.  One CSV row is written per query.  Exit statuses 2
and 3 (and unreadable reports) are logged as errors, never as verdicts.
"""
from __future__ import annotations

import argparse
import csv
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from mavis_runner import (REPO, MavisNotFound, QueryResult, find_mavis, inprocess_available,  # noqa: E402
                          load_model, run_query, run_query_inprocess)
from onnx_export import export_onnx, float32_weights, model_bytes  # noqa: E402
from train_guarding import add_training_args, config_from_args, train  # noqa: E402

DEFAULT_MODEL = REPO / "examples" / "guarding" / "guarding.nis"
DEFAULT_SPECS = ("forall v1,v2: EX^3 ((alive,v1) & (alive,v2))",)
CSV_FIELDS = ("episode", "average_return", "command", "spec", "agents", "status", "holds_for_all_n",
              "emergence_threshold", "time_s", "wall_s", "exit_code", "error")


def csv_value(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


class VerificationLoop:
    """The training callback: export, verify, log, pick the best, decide whether to stop."""

    def __init__(self, mavis: Path | None, model: Path, specs, check_agents, csv_path: Path, workdir: Path,
                 stop_when_holds: bool = False, keep_best: Path | None = None, timeout: float | None = None,
                 log=print):
        """`mavis`: the binary to run, or None to check in process."""
        self.mavis, self.model, self.specs = mavis, model, list(specs)
        self.loaded = load_model(model) if mavis is None else None
        self.check_agents = list(check_agents)
        self.csv_path, self.workdir = csv_path, workdir
        self.stop_when_holds, self.keep_best, self.timeout = stop_when_holds, keep_best, timeout
        self.log = log
        self.rows: list[dict] = []
        self.best = None  # (score, episode)
        self.stopped_at = None
        csv_path.parent.mkdir(parents=True, exist_ok=True)
        with csv_path.open("w", newline="") as f:
            csv.DictWriter(f, fieldnames=CSV_FIELDS).writeheader()

    def _append(self, episode: int, avg: float, r: QueryResult) -> None:
        row = {"episode": episode, "average_return": round(avg, 6), "command": r.command, "spec": r.spec,
               "agents": r.agents, "status": r.status, "holds_for_all_n": r.holds_for_all_n,
               "emergence_threshold": r.emergence_threshold, "time_s": r.time_s,
               "wall_s": round(r.wall_s, 6), "exit_code": r.exit_code, "error": r.error}
        self.rows.append(row)
        with self.csv_path.open("a", newline="") as f:
            csv.DictWriter(f, fieldnames=CSV_FIELDS).writerow({k: csv_value(v) for k, v in row.items()})

    def _queries(self, net, onnx_path: Path) -> list[QueryResult]:
        if self.loaded is not None:
            layers = float32_weights(net)

            def query(command, spec, agents=None):
                return run_query_inprocess(self.loaded, command, layers, spec, agents, timeout=self.timeout)
        else:
            export_onnx(net, onnx_path)

            def query(command, spec, agents=None):
                return run_query(self.mavis, command, self.model, onnx_path, spec, agents=agents,
                                 timeout=self.timeout)
        results = []
        for spec in self.specs:
            results.append(query("verify", spec))
            for n in self.check_agents:
                results.append(query("check", spec, n))
        return results

    def __call__(self, episode: int, net, avg_return: float) -> bool:
        onnx_path = self.workdir / f"checkpoint_{episode}.onnx"
        results = self._queries(net, onnx_path)
        for r in results:
            self._append(episode, avg_return, r)
        parts = []
        for r in results:
            where = "all n" if r.command == "verify" else f"n={r.agents}"
            text = r.status if r.is_verdict else f"ERROR ({r.error})"
            if r.command == "verify" and r.is_verdict:
                text += f", threshold={r.emergence_threshold}"
            t = r.time_s if r.time_s is not None else r.wall_s
            parts.append(f"[{r.command} {where}] {text} in {t:.3f}s")
        self.log(f"episode {episode}: average return {avg_return:.3f}; " + "; ".join(parts))

        verified = [r for r in results if r.command == "verify"]
        verify_holds = sum(r.status == "holds" for r in verified)
        holds = sum(r.status == "holds" for r in results)
        score = (verify_holds, holds, avg_return)  # all-n verdicts first, then checks, then return
        if self.keep_best is not None and holds > 0 and (self.best is None or score > self.best[0]):
            self.best = (score, episode)
            self.keep_best.parent.mkdir(parents=True, exist_ok=True)
            self.keep_best.write_bytes(model_bytes(net))
            self.log(f"  kept as best verified checkpoint -> {self.keep_best}")
        onnx_path.unlink(missing_ok=True)
        if self.stop_when_holds and any(r.status == "holds" for r in verified):
            self.stopped_at = episode
            self.log(f"  a property holds for all n: stopping at episode {episode}")
            return True
        return False


def plot(rows: list[dict], path: Path, log=print) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib is not installed (pip install -r python-training/requirements-plot.txt): no plot")
        return False
    episodes = sorted({r["episode"] for r in rows})
    ret = {r["episode"]: r["average_return"] for r in rows}
    queries = list(dict.fromkeys((r["command"], r["spec"], r["agents"]) for r in rows))
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(8, 3 + 0.4 * len(queries)),
                                   gridspec_kw={"height_ratios": [2, max(1, len(queries))]})
    ax1.plot(episodes, [ret[e] for e in episodes], marker="o")
    ax1.set_ylabel("average return")
    colours = {"holds": "tab:green", "violated": "tab:red", "error": "tab:gray"}
    for i, q in enumerate(queries):
        for status, colour in colours.items():
            xs = [r["episode"] for r in rows if (r["command"], r["spec"], r["agents"]) == q and r["status"] == status]
            ax2.scatter(xs, [i] * len(xs), c=colour, label=status if i == 0 else None, marker="s")
    ax2.set_yticks(range(len(queries)))
    ax2.set_yticklabels([f"{c} {'all n' if a is None else f'n={a}'}: {s}" for c, s, a in queries], fontsize=7)
    ax2.set_xlabel("episode")
    ax2.set_ylim(-0.5, len(queries) - 0.5)
    ax2.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_training_args(p)
    p.add_argument("--verify-every", type=int, required=True, help="verify every N episodes")
    p.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="NIS model (default: %(default)s)")
    p.add_argument("--spec", action="append", default=None, help="bICTL sentence (repeatable)")
    p.add_argument("--check-agents", type=int, action="append", default=[],
                   help="also run `nis check --agents N` (repeatable)")
    p.add_argument("--backend", choices=("auto", "in-process", "subprocess"), default="auto",
                   help="in process through the mavis Python package, or the mavis binary "
                        "(auto: in process when the package is installed and --mavis is not given)")
    p.add_argument("--mavis", default=None, help="mavis binary for --backend subprocess "
                                                 "(default: $MAVIS_BIN, else target/release/mavis)")
    p.add_argument("--timeout", type=float, default=None, help="seconds per mavis call")
    p.add_argument("--csv", type=Path, default=Path("verify_in_loop.csv"))
    p.add_argument("--plot", type=Path, default=None, help="PNG plot (needs matplotlib)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--stop-when-holds", action="store_true", help="stop at the first checkpoint where a --spec holds")
    g.add_argument("--keep-best", type=Path, default=None, help="write the best verified checkpoint's ONNX here")
    a = p.parse_args(argv)
    try:
        cfg = config_from_args(a)
        cfg.validate()
    except ValueError as e:
        p.error(str(e))
    if a.verify_every < 1:
        p.error(f"--verify-every must be >= 1 (got {a.verify_every})")
    if any(n < 1 for n in a.check_agents):
        p.error("--check-agents must be >= 1")
    if a.timeout is not None and a.timeout <= 0:
        p.error("--timeout must be > 0")
    if not a.model.is_file():
        p.error(f"model file not found: {a.model}")
    in_process = a.backend == "in-process" or (a.backend == "auto" and a.mavis is None and inprocess_available())
    if in_process and not inprocess_available():
        p.error("--backend in-process: the mavis Python package is not installed (pip install . at the repository root)")
    mavis = None
    if not in_process:
        try:
            mavis = find_mavis(a.mavis)
        except MavisNotFound as e:
            p.error(str(e))
    specs = a.spec or list(DEFAULT_SPECS)
    with tempfile.TemporaryDirectory(prefix="mavis-loop-") as tmp:
        try:
            loop = VerificationLoop(mavis, a.model, specs, a.check_agents, a.csv, Path(tmp),
                                    stop_when_holds=a.stop_when_holds, keep_best=a.keep_best,
                                    timeout=a.timeout)
        except Exception as e:  # mavis.InputError: the model does not load
            if type(e).__name__ != "InputError":
                raise
            p.error(f"{a.model}: {e}")
        train(cfg, callback=loop, every=a.verify_every)
    print(f"log: {a.csv} ({len(loop.rows)} queries)")
    errors = sum(r["status"] == "error" for r in loop.rows)
    if errors:
        print(f"{errors} queries ended in errors (see the error column)")
    if a.keep_best is not None:
        print(f"best verified checkpoint: episode {loop.best[1]} -> {a.keep_best}" if loop.best
              else "no checkpoint had a property that holds: nothing kept")
    if a.plot is not None and loop.rows:
        if plot(loop.rows, a.plot):
            print(f"plot: {a.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
