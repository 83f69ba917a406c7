#!/usr/bin/env python3
"""Runs mavis and Oink on the same random PGSolver games, in one run (docs/robust.md).

Usage: compare_oink.py [--quick] [--games DIR] [--timeout S] [--only NODES:PRIOS ...] [--also pp tl ...]

Writes seeded random games (priorities 0..p-1, owners at random, 2..4 distinct
successors per node) into DIR (kept between runs), solves each with mavis's
Zielonka and progress measures (`mavis robust parity`, every solution verified
by mavis) and with Oink's Zielonka (`--zlk -w -1`, sequential, and the
unoptimised `--uzlk`) and progress measures (`--spm`, `--tspm`), all with
`--no` so that Oink solves the game as written; `--also pp tl` adds Oink's
priority promotion and tangle learning (or any other of its solvers) as columns. Checks that every solver that
answered gives every node the same winner, and prints a Markdown table of solve
times in seconds (parsing excluded for both tools) with the machine, the date
and the load average before and after; the solution files of a disagreement
are kept beside the game (GAME.COLUMN.sol), and the row says which nodes differ
or which file misses nodes. Games of at most 10^5 nodes are solved
--repeat times by every solver and the least time is shown (millisecond times
on a shared machine are mostly scheduling noise). Exit 1 if two winners differ.

MAVIS (default target/release/mavis, or $CARGO_TARGET_DIR/release/mavis) and
OINK (default `oink` on PATH; build it from its public repository, outside
this one) name the binaries.
"""
import argparse
import json
import os
import platform
import random
import re
import subprocess
import sys
import time

# (nodes, priorities, solvers): z = Zielonka columns, s = progress measures columns.
SUITE = [
    (10_000, 3, "zs"),
    (10_000, 10, "zs"),
    (10_000, 10_000, "z"),
    (100_000, 3, "zs"),
    (100_000, 10_000, "z"),
    (1_000_000, 3, "z"),
    (1_000_000, 1_000, "z"),
]
QUICK = [(10_000, 3, "zs"), (10_000, 10, "zs"), (100_000, 1_000, "z")]


def default_mavis():
    if "MAVIS" in os.environ:
        return os.environ["MAVIS"]
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    return os.path.join(target, "release", "mavis")


def write_game(path, n, prios, seed):
    """A seeded random game in PGSolver's format, `parity N;` with N the largest id."""
    rng = random.Random(seed)
    lines = [f"parity {n - 1};\n"]
    for v in range(n):
        k = rng.randint(2, 4)
        succ = sorted(set(rng.randrange(n) for _ in range(k)))
        lines.append(f"{v} {rng.randrange(prios)} {rng.randrange(2)} {','.join(map(str, succ))};\n")
    tmp = path + ".part"
    with open(tmp, "w") as f:
        f.writelines(lines)
    os.replace(tmp, path)


def read_winners(path, n):
    """Winners from a `paritysol` file (mavis's or Oink's); None if a node is missing."""
    won = bytearray(b"\x02" * n)
    with open(path) as f:
        for line in f:
            if line.startswith("paritysol"):
                continue
            parts = line.replace(";", " ").split()
            if len(parts) >= 2:
                won[int(parts[0])] = int(parts[1])
    return None if 2 in won else bytes(won)


def compare(winners, n):
    """"equal (k solvers)", or what differs: a solution file that misses nodes
    (cut short) is named apart from two complete files that disagree, with
    the number of nodes and the first few."""
    cut = sorted(c for c, w in winners.items() if w is None)
    whole = {c: w for c, w in winners.items() if w is not None}
    if not cut and len(set(whole.values())) <= 1:
        return f"equal ({len(winners)} solvers)"
    notes = [f"{c}: nodes missing" for c in cut]
    cols = sorted(whole)
    for c in cols[1:]:
        nodes = [v for v in range(n) if whole[c][v] != whole[cols[0]][v]]
        if nodes:
            notes.append(f"{c} vs {cols[0]}: {len(nodes)} nodes, first {nodes[:5]}")
    return "DIFFER (" + "; ".join(notes) + ")"


def run_mavis(mavis, path, solver, sol, timeout):
    cmd = [mavis, "robust", "parity", "--format", "json", "--solver", solver,
           "--timeout", str(timeout), "--solution", sol, path]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60)
        st = json.loads(p.stdout)["stats"]
        if "verify_s" not in st:
            return None, None
        return st.get("solve_s"), st.get("verify_s")
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        return None, None


def run_oink(oink, path, flags, sol, timeout):
    cmd = [oink, *flags, "--no", "-z", str(timeout), path, sol]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 60).stdout
    except subprocess.TimeoutExpired:
        return None
    m = re.search(r"solving took ([0-9.e+-]+) sec", out)
    return float(m.group(1)) if m and os.path.exists(sol) else None


def fmt(x):
    return "no answer" if x is None else f"{x:.3f}"


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{platform.node()}, {os.cpu_count()} cores, {cpu}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="three small games only")
    ap.add_argument("--games", default="/tmp/mavis_oink_games")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per solver run")
    ap.add_argument("--only", nargs="*", help="NODES:PRIOS[:zs] games instead of the suite")
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--repeat", type=int, default=3, help="runs per solver on games of <= 10^5 nodes")
    ap.add_argument("--also", nargs="*", default=[], metavar="SOLVER",
                    help="more of Oink's solvers as columns, e.g. pp tl (run as --pp, --tl)")
    a = ap.parse_args()
    mavis, oink = default_mavis(), os.environ.get("OINK", "oink")
    suite = QUICK if a.quick else SUITE
    if a.only:
        suite = []
        for s in a.only:
            parts = s.split(":")
            suite.append((int(parts[0]), int(parts[1]), parts[2] if len(parts) > 2 else "zs"))
    os.makedirs(a.games, exist_ok=True)
    print(f"machine: {machine()}; date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    print()
    extra = "".join(f" oink --{x} |" for x in a.also)
    print("| game (nodes, priorities) | mavis zielonka (+ verify) | oink --zlk -w -1 | oink --uzlk "
          f"| mavis spm (+ verify) | oink --spm | oink --tspm |{extra} winners |")
    print("| --- " * (8 + len(a.also)) + "|")
    disagree = False
    for n, p, which in suite:
        path = os.path.join(a.games, f"rand_{n}_{p}_{a.seed}.pg")
        if not os.path.exists(path):
            write_game(path, n, p, a.seed + n + p)
        repeat = a.repeat if n <= 100_000 else 1
        plan = []  # (column, run with a solution file)
        if "z" in which:
            plan.append(("mz", lambda sol: run_mavis(mavis, path, "zielonka", sol, a.timeout)))
            plan.append(("oz", lambda sol: run_oink(oink, path, ["--zlk", "-w", "-1"], sol, a.timeout)))
            plan.append(("ou", lambda sol: run_oink(oink, path, ["--uzlk"], sol, a.timeout)))
        if "s" in which:
            plan.append(("ms", lambda sol: run_mavis(mavis, path, "spm", sol, a.timeout)))
            plan.append(("os", lambda sol: run_oink(oink, path, ["--spm"], sol, a.timeout)))
            plan.append(("ot", lambda sol: run_oink(oink, path, ["--tspm"], sol, a.timeout)))
        for x in a.also:
            plan.append((x, lambda sol, x=x: run_oink(oink, path, [f"--{x}"], sol, a.timeout)))
        runs = []  # (column, seconds or (solve, verify), solution file of the last run)
        for col, run in plan:
            sol = f"{path}.{col}.sol"
            times = [run(sol) for _ in range(repeat)]
            key = lambda t: float("inf") if t is None or (isinstance(t, tuple) and t[0] is None) else (t[0] if isinstance(t, tuple) else t)
            runs.append((col, min(times, key=key), sol))
        got = {}
        winners = {}
        for col, t, sol in runs:
            answered = t is not None and (not isinstance(t, tuple) or t[0] is not None)
            got[col] = t
            if answered and os.path.exists(sol):
                winners[col] = read_winners(sol, n)
        verdict = compare(winners, n)
        if verdict.startswith("equal"):
            for _, _, sol in runs:
                if os.path.exists(sol):
                    os.remove(sol)
        else:
            # The solution files stay beside the game, to be looked at.
            disagree = True
        def m(col):
            t = got.get(col)
            if col not in got:
                return "-"
            s, v = t
            return f"{fmt(s)} (+ {fmt(v)})" if s is not None else "no answer"
        def o(col):
            return "-" if col not in got else fmt(got[col])
        extra = "".join(f" {o(x)} |" for x in a.also)
        print(f"| {n}, {p} | {m('mz')} | {o('oz')} | {o('ou')} | {m('ms')} | {o('os')} | {o('ot')} |{extra} {verdict} |",
              flush=True)
    print()
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    sys.exit(1 if disagree else 0)


if __name__ == "__main__":
    main()
