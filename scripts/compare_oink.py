#!/usr/bin/env python3
"""Runs mavis and Oink on the same PGSolver games, one after the other (docs/robust.md).
Usage: compare_oink.py GAME.pg:zs ...  (z: Zielonka columns, s: progress measures columns).
Prints a Markdown table of solve times (parse excluded for both)."""
import json, re, subprocess, sys, os
MAVIS = os.environ.get("MAVIS", "target/release/mavis")
OINK = os.environ.get("OINK", "oink")  # built from github.com/trolando/oink, outside the repository
GAMES = [a.split(":") for a in sys.argv[1:]]  # file:solvers(z,s)

def mavis(path, solver):
    try:
        out = subprocess.run([MAVIS, "robust", "parity", "--format", "json", "--solver", solver, "--timeout", "300", path],
                             capture_output=True, text=True, timeout=400).stdout
        st = json.loads(out)["stats"]
        return st.get("solve_s"), st.get("verify_s")
    except Exception as e:
        return None, None

def oink(path, flag, extra):
    try:
        out = subprocess.run([OINK, flag, "-z", "300"] + extra + [path], capture_output=True, text=True, timeout=400).stdout
    except subprocess.TimeoutExpired:
        return None
    m = re.search(r"solving took ([0-9.e+-]+) sec", out)
    return float(m.group(1)) if m else None

fmt = lambda x: "no answer (timeout or error)" if x is None else f"{x:.3f}"
print("| game | mavis zielonka (+ verify) | oink uzlk --no | mavis spm | oink tspm --no | oink spm --no |")
print("|---|---|---|---|---|---|")
for path, which in GAMES:
    row = [os.path.basename(path)]
    if "z" in which:
        s, v = mavis(path, "zielonka")
        row += [f"{fmt(s)} (+ {fmt(v)})", fmt(oink(path, "--uzlk", ["--no"]))]
    else:
        row += ["-", "-"]
    if "s" in which:
        s, v = mavis(path, "spm")
        row += [f"{fmt(s)} (+ {fmt(v)})", fmt(oink(path, "--tspm", ["--no"])), fmt(oink(path, "--spm", ["--no"]))]
    else:
        row += ["-", "-", "-"]
    print("| " + " | ".join(row) + " |", flush=True)
