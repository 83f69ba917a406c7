#!/usr/bin/env python3
"""ARCH-COMP's VCAS benchmark (AINNCS category) with both pilots: VENMAS's
nondeterministic one (single_agent.nis: three accelerations per advisory, or
keeping the climbrate) and ARCH-COMP's deterministic "central" one
(arch_comp.nis). Initial set: h in [-133, -129], climbrate each of -19.5,
-22.5, -25.5, -28.5 ft/s, tau = 25, previous advisory COC; safety
|h| > 100 ft after k = 1..10 seconds.

    python3 examples/vcas/arch_comp.py write DIR     # DIR/PILOT_V0.nis and DIR/PILOT_all.nis
    python3 examples/vcas/arch_comp.py table [--bin PATH] [--k 1..10] [--timeout S] [--only PILOT_V0]

`table` runs `mavis nis check MODEL --agents 1 --spec 'AX^k safe'` on every
model (one row per pilot and climbrate, and one per pilot over all four
climbrates at once, the competition's instance) and prints a markdown table
of verdicts, wall times and how each was decided.
"""

import argparse
import re
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import variants  # noqa: E402 (the runner and the cell format are shared)

CLIMBRATES = [-19.5, -22.5, -25.5, -28.5]
PILOTS = {"venmas": "single_agent.nis", "central": "arch_comp.nis"}
V_LINE = r"var v : real\[-2500..2500\] [^;]*;"


def model_text(pilot, v0):
    """The model of `pilot` from climbrate `v0` (None: all four)."""
    text = (HERE / PILOTS[pilot]).read_text()
    text = text.replace('"../../networks/', f'"{variants.REPO}/networks/')
    init = "in {" + ", ".join(map(str, CLIMBRATES)) + "}" if v0 is None else f"= {v0}"
    text, count = re.subn(V_LINE, f"var v : real[-2500..2500] {init};", text)
    assert count == 1
    text, count = re.subn(r"var h : real\[-3000..3000\] [^;]*;", "var h : real[-3000..3000] in [-133..-129];", text)
    assert count == 1
    return f"// ARCH-COMP's VCAS, {pilot} pilot, climbrate {init} (examples/vcas/arch_comp.py)\n" + text


def name(pilot, v0):
    return f"{pilot}_{'all' if v0 is None else v0}"


ROWS = [(p, v0) for p in PILOTS for v0 in CLIMBRATES + [None]]


def write(directory):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    for pilot, v0 in ROWS:
        (directory / f"{name(pilot, v0)}.nis").write_text(model_text(pilot, v0))
    return directory


def table(args):
    lo, hi = (int(x) for x in args.k.split(".."))
    ks = range(lo, hi + 1)
    directory = write(tempfile.mkdtemp(prefix="vcas_arch_"))
    rows = [r for r in ROWS if args.only in (None, name(*r))]
    print("| pilot, climbrate | " + " | ".join(f"k = {k}" for k in ks) + " |")
    print("|---|" + "---|" * len(ks))
    for pilot, v0 in rows:
        path = directory / f"{name(pilot, v0)}.nis"
        cells = [variants.cell(variants.run(args.bin, path, k, args.timeout)) for k in ks]
        print(f"| {pilot}, {'all four' if v0 is None else v0} | " + " | ".join(cells) + " |", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", required=True)
    w = sub.add_parser("write")
    w.add_argument("dir")
    t = sub.add_parser("table")
    t.add_argument("--bin", default=str(variants.REPO / "target" / "release" / "mavis"))
    t.add_argument("--k", default="1..10")
    t.add_argument("--timeout", type=float, default=60)
    t.add_argument("--only")
    args = p.parse_args()
    if args.verb == "write":
        print(write(args.dir))
    else:
        table(args)


if __name__ == "__main__":
    sys.exit(main())
