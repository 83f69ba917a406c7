"""Times mavis and Storm side by side, in one run, on the seed's foraging
swarm (examples/foraging/foraging.swarm and foraging.faults, pf = 0.4):
build + check Pmax=? [ F<20 "deposited2" ], wall time, CPU time (user +
system; on a machine shared with other jobs the fairer figure) and peak
resident memory of each tool's process (os.wait4's rusage). Storm (stormpy) reads
the independent PRISM encoding of tests/peers/foraging_prism.py, written by
hand from the paper, not mavis's export. Usage:

    .venv/bin/python benches/swarm_storm.py [CASE ...]

CASE is a size n (f64), `abstract` (the set abstraction, f64), `exactN`
(S(N) in exact rational arithmetic on both sides, pf = 2/5), or `dropN` /
`stepsN`: S(N), pf = 2/5, an unbounded property in f64 against Storm's
sound mode (stormpy.environments.sound(), absolute precision 1e-6), built
with the reward structures of SWARM_REWARDS: `drop` is
Pmax=? [ !"deposited1" U state_1_1=6 ] (robot 1 drops its food before the
first deposit), `steps` is R{"steps"}min=? [ F "deposited2" ] (the expected
steps until two deposits). Default: 5 abstract exact4. MAVIS_BIN selects the binary (default
$CARGO_TARGET_DIR/release/mavis); STORM_TIMEOUT (seconds, default 1800)
bounds each Storm run. The values of the two tools must agree (1e-9 in f64,
equal fractions in exact mode, meeting intervals in sound mode), or the
script fails."""

import json
import os
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "peers"))
from foraging_prism import SWARM_REWARDS, prism_concrete, prism_set_abstraction  # noqa: E402

EX = REPO / "examples" / "foraging"
PROP = 'Pmax=? [ F<20 "deposited2" ]'
BIN = os.environ.get("MAVIS_BIN") or str(Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release" / "mavis")
STORM_TIMEOUT = float(os.environ.get("STORM_TIMEOUT", "1800"))

# Storm in its own process, so that its peak memory is its own. Built with the
# property (Storm then makes the target states absorbing: its best case).
STORM = """
import sys, stormpy
import stormpy.environments
exact = sys.argv[3] == "exact"
p = stormpy.parse_prism_program(sys.argv[1])
props = stormpy.parse_properties(sys.argv[2], p)
m = stormpy.build_model[stormpy.Rational](p, props) if exact else stormpy.build_model(p, props)
if sys.argv[3] == "sound":
    env = stormpy.environments.sound()
    env.solver().min_max().relative_termination_criterion = False
    env.solver().min_max().precision = stormpy.Rational("1/1000000")
    b = stormpy.model_checking(m, props[0], environment=env)[m.initial_states[0]]
    print(f"[{b.lower},{b.upper}]", m.nr_states)
else:
    r = stormpy.model_checking(m, props[0])
    print(r.get_value(m.initial_states[0]), m.nr_states)
"""

# The sound cases: (mavis's property, Storm's); the PRISM encoding has no
# label "deposited1" and names robot 1's state state1.
SOUND = {
    "drop": ('Pmax=? [ !"deposited1" U state_1_1=6 ]', 'Pmax=? [ !(food>0) U state1=6 ]'),
    "steps": ('R{"steps"}min=? [ F "deposited2" ]',) * 2,
}


def run(cmd, timeout=None):
    """Runs cmd, returning (wall s, CPU s, peak MiB, stdout) or None past the timeout.
    The child is reaped by wait4, whose rusage is that child's alone."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True)
        deadline = None if timeout is None else t0 + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if deadline is not None and time.perf_counter() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                proc.returncode = -9
                return None
            time.sleep(0.02)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode not in (0, 1, 3):
            raise SystemExit(f"{cmd[0]} failed ({proc.returncode}): {err.read()}")
        return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, out.read()


def case(name, tmp):
    """(label, mavis arguments, PRISM text, mode, mavis's property, Storm's)
    of one CASE; mode is f64, exact or sound."""
    common = [str(EX / "foraging.swarm"), "--faults", str(EX / "foraging.faults")]
    if name == "abstract":
        return "abstraction", [*common, "--set", "pf=0.4", "--abstract"], prism_set_abstraction(0.4), "f64", PROP, PROP
    if name.startswith("exact"):
        n = int(name[5:])
        text = prism_concrete(n, Fraction(2, 5))
        return f"S({n}) exact", [*common, "--set", "pf=2/5", "--agents", str(n), "--exact"], text, "exact", PROP, PROP
    kind = name.rstrip("0123456789")
    if kind in SOUND:
        n = int(name[len(kind) :])
        model = Path(tmp) / "foraging_rewards.swarm"
        model.write_text((EX / "foraging.swarm").read_text() + SWARM_REWARDS)
        args = [str(model), *common[1:], "--set", "pf=2/5", "--agents", str(n)]
        text = prism_concrete(n, Fraction(2, 5), rewards=True)
        return f"S({n}) {SOUND[kind][0]}", args, text, "sound", *SOUND[kind]
    n = int(name)
    return f"S({n})", [*common, "--set", "pf=0.4", "--agents", str(n)], prism_concrete(n, 0.4), "f64", PROP, PROP


def agree(ours, theirs, mode):
    """The two tools' answers agree: equal fractions (exact), 1e-9 (f64), or
    mavis's interval [lo, hi] meeting Storm's sound bounds (sound)."""
    if mode == "exact":
        return Fraction(theirs) == ours
    if mode == "f64":
        return abs(float(theirs) - ours) <= 1e-9
    lo, hi = (float(x) for x in theirs.strip("[]").split(","))
    slack = 1e-12 * max(1.0, abs(hi))
    return ours[0] - slack <= hi and lo <= ours[1] + slack


def mavis_value(report, mode):
    prop = report["results"]["properties"][0]
    if mode == "exact":
        return Fraction(prop.get("exact") or prop["abstract_bound_exact"])
    if mode == "sound":
        return tuple(prop["interval"])
    return prop["value"] if prop.get("value") is not None else prop["abstract_bound"]


def main():
    cases = sys.argv[1:] or ["5", "abstract", "exact4"]
    print("| model | tool | states | value | wall s | CPU s | peak MiB |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in cases:
            label, args, text, mode, ours_prop, storm_prop = case(name, tmp)
            got = run([BIN, "--format", "json", "swarm", "check", *args, "--prop", ours_prop])
            wall, cpu, mem, out = got
            report = json.loads(out)
            ours = mavis_value(report, mode)
            shown = f"{ours} ({float(ours)})" if mode == "exact" else f"{ours}"
            print(f"| {label} | mavis | {report['stats']['states']:,} | {shown} | {wall:.2f} | {cpu:.2f} | {mem:.0f} |", flush=True)
            path = os.path.join(tmp, f"foraging_{name}.prism")
            Path(path).write_text(text)
            got = run([sys.executable, "-c", STORM, path, storm_prop, mode], timeout=STORM_TIMEOUT)
            if got is None:
                print(f"| {label} | Storm (stormpy 2.0.0) | - | stopped after {STORM_TIMEOUT:.0f} s | - | - | - |", flush=True)
                continue
            wall, cpu, mem, out = got
            value, states = out.split()
            if not agree(ours, value, mode):
                raise SystemExit(f"{label}: mavis {ours} but Storm {value}")
            print(f"| {label} | Storm (stormpy 2.0.0) | {int(states):,} | {value} | {wall:.2f} | {cpu:.2f} | {mem:.0f} |", flush=True)


if __name__ == "__main__":
    main()
