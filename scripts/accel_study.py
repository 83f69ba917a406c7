#!/usr/bin/env python3
"""Acceleration against plain semantics on models with chosen features (docs/timed.md).

Usage: accel_study.py [--mavis PATH] [--seeds N] [--horizon H]

Writes seeded random MAPT models (agents in a chain of localities, each
transition in a window [a, b] inside the period, updates of two variables mod
3) in families that differ in one feature at a time, explores each fully with
`mavis timed check --semantics plain` and `--semantics accelerated` (bfs, the
query `AG x >= 0`, true, so the whole graph is built), and prints a Markdown
table of the distinct states of each semantics and their ratio, with the
verdicts (which must agree). Families:
  base     3 agents, periods 10..30, windows of width 0..period/2
  scaled   base with every constant times 5 (finer clock resolution)
  narrow   base with point windows [a, a]
  wide     base with windows [0, deadline] (every firing time allowed)
  agents5  base with 5 agents
Exit 1 if two verdicts differ.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile


def model(seed, agents=3, scale=1, windows="base"):
    r = random.Random(seed)
    lines = ["var x: int = 0;", "var y: int = 1;"]
    updates = ["do x := mod(x + 1, 3)", "do y := x", "when x = 0 do y := mod(y + 1, 3)", ""]
    for i in range(agents):
        period = r.randrange(10, 31)
        steps = r.randrange(1, 4)
        # Increasing cut points: transition k fires in [a_k, b_k], b_k <= a_{k+1}'s deadline.
        cuts = sorted(r.randrange(0, period + 1) for _ in range(2 * steps))
        lines.append(f"agent g{i} period {period * scale} {{")
        for k in range(steps):
            a, b = cuts[2 * k], cuts[2 * k + 1]
            if windows == "narrow":
                b = a
            elif windows == "wide":
                a, b = 0, cuts[2 * k + 1]
            for _ in range(r.randrange(1, 3)):
                up = r.choice(updates)
                lines.append(f"  l{k} -> l{k + 1} in [{a * scale}, {b * scale}] {up};")
        lines.append("}")
    return "\n".join(lines) + "\n"


FAMILIES = [
    ("base", dict()),
    ("scaled", dict(scale=5)),
    ("narrow", dict(windows="narrow")),
    ("wide", dict(windows="wide")),
    ("agents5", dict(agents=5)),
]


def states(mavis, path, semantics, horizon):
    cmd = [mavis, "--format", "json", "timed", "check", path, "--semantics", semantics,
           "--query", "AG x >= 0", "--max-states", "3000000"]
    if horizon:
        cmd += ["--horizon", str(horizon)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 1, 3):
        return None, None
    q = json.loads(out.stdout)["results"]["queries"][0]
    complete = q.get("complete", True)
    return (q["states"] if complete else None), q.get("verdict")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mavis", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "mavis"))
    ap.add_argument("--seeds", type=int, default=6)
    ap.add_argument("--horizon", type=int, default=0)
    a = ap.parse_args()
    print("| family | model | plain states | accelerated states | accelerated / plain | verdicts |")
    print("| --- | --- | --- | --- | --- | --- |")
    bad = False
    with tempfile.TemporaryDirectory() as d:
        for fam, kw in FAMILIES:
            for seed in range(a.seeds):
                path = os.path.join(d, f"{fam}{seed}.mapt")
                with open(path, "w") as f:
                    f.write(model(seed, **kw))
                p, vp = states(a.mavis, path, "plain", a.horizon)
                c, vc = states(a.mavis, path, "accelerated", a.horizon)
                ratio = f"{c / p:.2f}x" if p and c else "-"
                same = "equal" if vp == vc else f"DIFFER {vp} {vc}"
                bad |= vp != vc and p is not None and c is not None
                print(f"| {fam} | {seed} | {p or 'over limit'} | {c or 'over limit'} | {ratio} | {same} |", flush=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
