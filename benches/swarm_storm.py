"""Times mavis and Storm side by side on the same exported swarm models, in
one run: build + check Pmax=? [ F<20 "deposited2" ] (wall time and peak
resident memory of each process). Usage:

    .venv/bin/python benches/swarm_storm.py [N ...]      (default: 3 4 and the abstract model)

MAVIS_BIN selects the binary (default target/release/mavis)."""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EX = REPO / "examples" / "foraging"
PROP = 'Pmax=? [ F<20 "deposited2" ]'
BIN = os.environ.get("MAVIS_BIN") or str(Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release" / "mavis")

STORM = """
import sys, time, stormpy
t0 = time.perf_counter()
if sys.argv[1].endswith(".jani"):
    jani, _ = stormpy.parse_jani_model(sys.argv[1])
    props = stormpy.parse_properties(sys.argv[2])
    options = stormpy.BuilderOptions()
    options.set_build_all_labels()
    m = stormpy.build_model(jani, options=options)
else:
    p = stormpy.parse_prism_program(sys.argv[1])
    props = stormpy.parse_properties(sys.argv[2], p)
    m = stormpy.build_model(p, props)
t1 = time.perf_counter()
r = stormpy.model_checking(m, props[0])
v = max(r.get_value(i) for i in m.initial_states)
t2 = time.perf_counter()
print(f"{v} {m.nr_states} {m.nr_transitions} {t1 - t0:.3f} {t2 - t1:.3f}")
"""


def timed(cmd):
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    out = proc.stdout.read()
    if os.waitstatus_to_exitcode(status) not in (0, 1, 3):
        raise SystemExit(f"{cmd[0]} failed: {proc.stderr.read()}")
    return wall, usage.ru_maxrss / 1024.0, out


def main():
    sizes = sys.argv[1:] or ["3", "4", "abstract"]
    common = [str(EX / "foraging.swarm"), "--faults", str(EX / "foraging.faults"), "--set", "pf=0.4"]
    print("| model | tool | value | wall s | peak MiB |")
    print("|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            where = ["--abstract"] if n == "abstract" else ["--agents", n]
            # The abstract model is explicit: Storm builds its JANI export (states as
            # locations) far faster than the one-module PRISM text.
            to = "jani" if n == "abstract" else "prism"
            path = os.path.join(tmp, f"foraging_{n}.{to}")
            subprocess.run([BIN, "swarm", "export", *common, *where, "--to", to, "-o", path], check=True, capture_output=True)
            wall, mem, out = timed([BIN, "-q", "swarm", "check", *common, *where, "--prop", PROP])
            print(f"| {n} | mavis | {out.strip().splitlines()[0].split(': ')[-1]} | {wall:.2f} | {mem:.0f} |")
            wall, mem, out = timed([sys.executable, "-c", STORM, path, PROP])
            print(f"| {n} | Storm (stormpy 2.0.0, {to.upper()} export) | {out.split()[0]} | {wall:.2f} | {mem:.0f} |")


if __name__ == "__main__":
    main()
