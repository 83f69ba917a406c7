#!/usr/bin/env python3
"""VerticalCAS over wider initial sets (issue 32): the single-aircraft
scenario of single_agent.nis with an altitude box of 300 ft either side of
the border or straddling 0, a climb-rate interval, a tau interval, each
previous advisory, and a box mixing them.

    python3 examples/vcas/variants.py write DIR          # the models, DIR/NAME.nis
    python3 examples/vcas/variants.py table [--bin PATH] [--k 1..6] [--timeout S] [--only NAME]

`table` runs `mavis nis check DIR/NAME.nis --agents 1 --spec 'AX^k safe'` on
each model and prints a markdown table of verdicts, wall times and MILP sizes.
The models differ from single_agent.nis only in the initial values of the
environment (and in network paths, made absolute).
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ADVISORIES = ["COC", "DNC", "DND", "DES1500", "CL1500", "SDES1500", "SCL1500", "SDES2500", "SCL2500"]

# name: (h interval, v interval, tau interval, previous advisory)
DEFAULT = ((-133, -129), (-19.5, -19.5), (25, 25), "COC")
VARIANTS = {
    "default": DEFAULT,
    "alt_below": ((-450, -150), (-19.5, -19.5), (25, 25), "COC"),
    "alt_above": ((150, 450), (-19.5, -19.5), (25, 25), "COC"),
    "alt_straddle": ((-250, 250), (-19.5, -19.5), (25, 25), "COC"),
    "climb": ((-133, -129), (-39.5, -19.5), (25, 25), "COC"),
    "tau": ((-133, -129), (-19.5, -19.5), (15, 35), "COC"),
    **{f"prev_{a}": ((-133, -129), (-19.5, -19.5), (25, 25), a) for a in ADVISORIES[1:]},
    "mixed": ((-250, -100), (-30, -10), (20, 30), "COC"),
}


def interval(name, lo, hi):
    return f"= {lo};" if lo == hi else f"in [{lo}..{hi}];"


def model_text(name):
    (h, v, tau, prev) = VARIANTS[name]
    text = (HERE / "single_agent.nis").read_text()
    text = text.replace('"../../networks/', f'"{REPO}/networks/')
    subs = [
        (r"var h : real\[-3000..3000\] [^;]*;", f"var h : real[-3000..3000] {interval('h', *h)}"),
        (r"var v : real\[-2500..2500\] [^;]*;", f"var v : real[-2500..2500] {interval('v', *v)}"),
        (r"var tau : real\[0..40\] [^;]*;", f"var tau : real[0..40] {interval('tau', *tau)}"),
        (r"(var prev : \{[^}]*\}) = pCOC;", rf"\1 = p{prev};"),
    ]
    for pattern, repl in subs:
        text, count = re.subn(pattern, repl, text)
        assert count == 1, pattern
    return f"// variant {name} of single_agent.nis (examples/vcas/variants.py)\n" + text


def write(directory):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for name in VARIANTS:
        (directory / f"{name}.nis").write_text(model_text(name))
    return directory


def run(binary, path, k, timeout):
    cmd = [binary, "--format", "json", "nis", "check", str(path), "--agents", "1",
           "--spec", f"AX^{k} safe", "--timeout", str(timeout)]
    start = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    try:
        report = json.loads(r.stdout)
    except json.JSONDecodeError:
        return {"verdict": f"error {r.returncode}", "wall": wall, "stats": {}}
    report["wall"] = wall
    return report


def cell(report):
    s = report.get("stats", {})
    sizes = f"{s.get('milp_binaries', 0)} bin, {s.get('network_copies', 0)} copies"
    how = "falsified" if s.get("falsify_traces") else sizes
    return f"{report['verdict']}, {report['wall']:.2f} s ({how})"


def table(args):
    lo, hi = (int(x) for x in args.k.split(".."))
    ks = range(lo, hi + 1)
    directory = write(tempfile.mkdtemp(prefix="vcas_variants_"))
    names = [args.only] if args.only else list(VARIANTS)
    print("| variant | " + " | ".join(f"k = {k}" for k in ks) + " |")
    print("|---|" + "---|" * len(ks))
    for name in names:
        cells = [cell(run(args.bin, directory / f"{name}.nis", k, args.timeout)) for k in ks]
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", required=True)
    w = sub.add_parser("write")
    w.add_argument("dir")
    t = sub.add_parser("table")
    t.add_argument("--bin", default=str(REPO / "target" / "release" / "mavis"))
    t.add_argument("--k", default="1..6")
    t.add_argument("--timeout", type=float, default=60)
    t.add_argument("--only")
    args = p.parse_args()
    if args.verb == "write":
        print(write(args.dir))
    else:
        table(args)


if __name__ == "__main__":
    sys.exit(main())
