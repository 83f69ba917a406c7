#!/usr/bin/env python3
"""mavis and Marabou side by side on VNN-LIB instances (ACAS Xu by default).

Runs `mavis nn verify NET PROP --timeout T` and Marabou (maraboupy, each
instance in its own process with the same timeout) one after the other on
each instance, and prints one Markdown table: verdict and wall time per
instance and tool, the ratio of the times, solved counts, and any
disagreement between decided verdicts.

The instances are not part of the repository: bring VNN-COMP 2021's
benchmarks (github.com/stanleybak/vnncomp2021, benchmarks/acasxu/) to a
directory of your own, e.g. /work/peers/vnncomp2021, and pass it with
--benchmarks. maraboupy is a measurement peer, never a dependency of mavis:
install it in a venv (`pip install maraboupy`).

Example:
  .venv/bin/python benches/vnn_marabou.py --benchmarks /work/peers/vnncomp2021/benchmarks/acasxu \
      --nets 1_1,2_1 --props 1,2,3,4 --timeout 30 --mavis target/release/mavis
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

MARABOU_RUNNER = r"""
import sys, warnings
warnings.filterwarnings("ignore")
from maraboupy import Marabou
net, prop, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3])
network = Marabou.read_onnx(net)
options = Marabou.createOptions(timeoutInSeconds=timeout, verbosity=0)
exit_code, _, _ = network.solve(verbose=False, options=options, propertyFilename=prop)
print("RESULT", exit_code)
"""


def run_mavis(binary, net, prop, timeout):
    """(verdict, seconds) of one mavis run."""
    start = time.monotonic()
    p = subprocess.run(
        [binary, "nn", "verify", net, prop, "--timeout", str(timeout), "--format", "json"],
        capture_output=True, text=True, timeout=timeout + 30,
    )
    seconds = time.monotonic() - start
    try:
        verdict = json.loads(p.stdout)["results"]["vnncomp"]
    except (ValueError, KeyError):
        verdict = f"error (exit {p.returncode})"
    return verdict, seconds


def run_marabou(python, net, prop, timeout):
    """(verdict, seconds) of one Marabou run in its own process."""
    start = time.monotonic()
    try:
        p = subprocess.run(
            [python, "-c", MARABOU_RUNNER, net, prop, str(timeout)],
            capture_output=True, text=True, timeout=timeout + 30,
        )
    except subprocess.TimeoutExpired:
        return "timeout", time.monotonic() - start
    seconds = time.monotonic() - start
    verdict = f"error (exit {p.returncode})"
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            verdict = line.split(" ", 1)[1].strip().lower()
    if verdict not in ("sat", "unsat"):
        verdict = "timeout" if seconds >= timeout or verdict == "timeout" else verdict
    return verdict, seconds


def decided(v):
    return v in ("sat", "unsat")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--benchmarks", required=True, help="directory with the ACAS Xu .onnx and prop_N.vnnlib files")
    ap.add_argument("--nets", default="1_1,2_1,3_3,4_5,5_9", help="networks as i_j, comma-separated, or 'all'")
    ap.add_argument("--props", default="1,2,3,4")
    ap.add_argument("--timeout", type=int, default=30, help="seconds per instance and tool")
    ap.add_argument("--mavis", default="target/release/mavis")
    ap.add_argument("--python", default=sys.executable, help="the Python with maraboupy")
    ap.add_argument("--no-marabou", action="store_true")
    args = ap.parse_args()
    nets = ([f"{a}_{b}" for a in range(1, 6) for b in range(1, 10)]
            if args.nets == "all" else args.nets.split(","))
    rows, ratios = [], []
    solved = {"mavis": 0, "Marabou": 0}
    disagreements = 0
    print(f"| instance | mavis | mavis s | Marabou | Marabou s | mavis/Marabou |")
    print(f"|---|---|---|---|---|---|")
    for p in args.props.split(","):
        for n in nets:
            net = os.path.join(args.benchmarks, f"ACASXU_run2a_{n}_batch_2000.onnx")
            prop = os.path.join(args.benchmarks, f"prop_{p}.vnnlib")
            mv, ms = run_mavis(args.mavis, net, prop, args.timeout)
            kv, ks = ("-", math.nan) if args.no_marabou else run_marabou(args.python, net, prop, args.timeout)
            solved["mavis"] += decided(mv)
            solved["Marabou"] += decided(kv)
            ratio = "-"
            if decided(mv) and decided(kv):
                ratios.append(ms / ks)
                ratio = f"{ms / ks:.2f}"
                if mv != kv:
                    disagreements += 1
                    ratio += " DISAGREE"
            print(f"| {n} prop {p} | {mv} | {ms:.2f} | {kv} | {ks:.2f} | {ratio} |", flush=True)
            rows.append((n, p, mv, ms, kv, ks))
    total = len(rows)
    print()
    print(f"solved within {args.timeout} s: mavis {solved['mavis']} of {total}, Marabou {solved['Marabou']} of {total}")
    if ratios:
        gm = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(f"time ratio mavis/Marabou on the {len(ratios)} instances both solved: "
              f"geometric mean {gm:.2f}, min {min(ratios):.2f}, max {max(ratios):.2f}")
    print(f"disagreements between decided verdicts: {disagreements}")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
