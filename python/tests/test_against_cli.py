"""Every function of the package against the CLI's JSON report on the same
inputs: equal verdicts, results, witnesses, models and warnings (timings
differ from run to run and are left out)."""
import os
import subprocess
import tempfile

import pytest

import mavis
from cli_reports import cli_json, comparable, mavis_bin

GUARDING = "examples/guarding/guarding.nis"
SPEC = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)"
POLICY = "tests/fixtures/policy_1_4_4_2.onnx"
MLP = "tests/fixtures/mlp_2_16_16_3.onnx"
SWARM = "examples/foraging/foraging.swarm"
FAULTS = "examples/foraging/foraging.faults"
PLATOON = "examples/cav/platoon2.mapt"
GRID = "examples/robust/grid_reach.ma"
GRID_MAB = os.path.join(tempfile.gettempdir(), "mavis_test_against_cli_grid_reach.mab")

CASES = {
    "lang eval": (lambda: mavis.lang.eval("clamp(3 - 2*N, 0, 4)", set={"N": 1}),
                  ["lang", "eval", "clamp(3 - 2*N, 0, 4)", "--set", "N=1"]),
    "nn info": (lambda: mavis.nn.info(POLICY), ["nn", "info", POLICY]),
    "nn eval": (lambda: mavis.nn.eval(MLP, inputs=[[0.1, 0.2], [-1, 1]]),
                ["nn", "eval", MLP, "--input", "0.1,0.2", "--input", "-1,1"]),
    "nn bounds": (lambda: mavis.nn.bounds(POLICY, box="[0,1]", lp_tighten=True),
                  ["nn", "bounds", POLICY, "--box", "[0,1]", "--lp-tighten"]),
    "nn verify": (lambda: mavis.nn.verify(POLICY, "tests/fixtures/policy_1_4_4_2.vnnlib", milp_unstable=2),
                  ["nn", "verify", POLICY, "tests/fixtures/policy_1_4_4_2.vnnlib", "--milp-unstable", "2"]),
    "nis check": (lambda: mavis.nis.check(GUARDING, SPEC, agents=3, engine="milp"),
                  ["nis", "check", GUARDING, "--spec", SPEC, "--agents", "3", "--engine", "milp"]),
    "nis check violated": (
        lambda: mavis.nis.check(GUARDING, "forall v1, v2: AX^3 (alive, v1) & (alive, v2)", agents=2),
        ["nis", "check", GUARDING, "--spec", "forall v1, v2: AX^3 (alive, v1) & (alive, v2)", "--agents", "2"]),
    "nis check abstract": (lambda: mavis.nis.check(GUARDING, SPEC, abstract=True, counts=True),
                           ["nis", "check", GUARDING, "--spec", SPEC, "--abstract", "--counts"]),
    "nis table": (lambda: mavis.nis.table(GUARDING, "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)",
                                          k=range(1, 4), agents=[2, 3]),
                  ["nis", "table", GUARDING, "--spec", "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)",
                   "--k", "1..3", "--agents", "2,3"]),
    "nis simulates": (lambda: mavis.nis.simulates(GUARDING, indexed=2, depth=3),
                      ["nis", "simulates", GUARDING, "--indexed", "2", "--depth", "3"]),
    "nis verify": (lambda: mavis.nis.verify(GUARDING, SPEC), ["nis", "verify", GUARDING, "--spec", SPEC]),
    "nis verify bound": (lambda: mavis.nis.verify(GUARDING, SPEC, simulation="bound", engine="milp"),
                         ["nis", "verify", GUARDING, "--spec", SPEC, "--simulation", "bound",
                          "--engine", "milp"]),
    "nis emergence": (lambda: mavis.nis.emergence(GUARDING, SPEC), ["nis", "emergence", GUARDING, "--spec", SPEC]),
    "swarm check": (lambda: mavis.swarm.check(SWARM, faults=FAULTS, prop='Pmax=? [ F<13 "deposited2" ]',
                                              agents=2, exact=True, witness=True),
                    ["swarm", "check", SWARM, "--faults", FAULTS, "--prop", 'Pmax=? [ F<13 "deposited2" ]',
                     "--agents", "2", "--exact", "--witness"]),
    "swarm check abstract": (
        lambda: mavis.swarm.check(SWARM, faults=FAULTS, props="examples/foraging/foraging.props", abstract=True),
        ["swarm", "check", SWARM, "--faults", FAULTS, "--props", "examples/foraging/foraging.props",
         "--abstract"]),
    "swarm sweep": (lambda: mavis.swarm.sweep(SWARM, 'Pmax=? [ F<k "deposited2" ]', sweep="pf=0:0.5:1",
                                              k=(8, 9), agents=2, faults=FAULTS),
                    ["swarm", "sweep", SWARM, "--prop", 'Pmax=? [ F<k "deposited2" ]', "--sweep", "pf=0:0.5:1",
                     "--k", "8..9", "--agents", "2", "--faults", FAULTS]),
    "swarm export": (lambda: mavis.swarm.export(SWARM, agents=2, to="jani", faults=FAULTS),
                     ["swarm", "export", SWARM, "--agents", "2", "--to", "jani", "--faults", FAULTS]),
    "timed validate": (lambda: mavis.timed.validate(PLATOON), ["timed", "validate", PLATOON]),
    "timed check": (lambda: mavis.timed.check(PLATOON, "EF x2 - x1 < 1", search="layered"),
                    ["timed", "check", PLATOON, "--query", "EF x2 - x1 < 1", "--search", "layered"]),
    "timed check file queries": (lambda: mavis.timed.check(PLATOON, horizon="6p"),
                                 ["timed", "check", PLATOON, "--horizon", "6p"]),
    "timed convert": (lambda: mavis.timed.convert(PLATOON), ["timed", "convert", PLATOON]),
    "timed export": (lambda: mavis.timed.export(PLATOON, to="uppaal"),
                     ["timed", "export", PLATOON, "--to", "uppaal"]),
    "robust solve": (lambda: mavis.robust.solve(GRID), ["robust", "solve", GRID]),
    "robust check": (lambda: mavis.robust.check(GRID, strategy="examples/robust/naive.strat"),
                     ["robust", "check", GRID, "--strategy", "examples/robust/naive.strat"]),
    "robust parity": (lambda: mavis.robust.parity("examples/robust/game.pg", solver="spm"),
                      ["robust", "parity", "examples/robust/game.pg", "--solver", "spm"]),
    "robust convert": (lambda: mavis.robust.convert(GRID, GRID_MAB),
                       ["robust", "convert", GRID, "--output", GRID_MAB]),
    "robust faults": (lambda: mavis.robust.faults("examples/robust/icy_ramp.ma", period=(1, 4)),
                      ["robust", "faults", "examples/robust/icy_ramp.ma", "--period", "1..4"]),
}

@pytest.mark.parametrize("name", sorted(CASES))
def test_function_gives_the_cli_report(name):
    call, args = CASES[name]
    report = call()
    status, expected = cli_json(*args)
    assert report.exit_code == status
    assert (report["engine"], report["command"]) == tuple(args[:2])
    assert report.get("verdict") == expected.get("verdict")
    assert comparable(dict(report)) == comparable(expected)
    assert report.stats.keys() == expected["stats"].keys()


def cli_verbs():
    """(engine, verb) for every verb the binary's --help lists."""
    verbs = set()
    for engine in ("lang", "nn", "nis", "swarm", "timed", "robust"):
        text = subprocess.run([str(mavis_bin()), engine, "--help"], capture_output=True, text=True).stdout
        listed = text.split("Commands:")[1].split("Options:")[0]
        for line in listed.splitlines():
            words = line.split()
            if words and words[0] != "help" and line.startswith("  ") and not line.startswith("   "):
                verbs.add((engine, words[0]))
    return verbs


def test_every_verb_of_the_cli_is_covered():
    verbs = {tuple(args[:2]) for _, args in CASES.values()}
    assert verbs == cli_verbs()
    for engine, verb in verbs:
        assert callable(getattr(getattr(mavis, engine), verb))


def test_verify_gives_the_papers_answer():
    """The call of issue 16's Done-when: the existential EX^3 property fails
    for n = 2 with emergence threshold 3 (the NIS paper's section 4, and
    examples/guarding/README.md); print() shows the CLI's text."""
    r = mavis.nis.verify(GUARDING, spec=SPEC)
    assert r.verdict == "violated"
    assert r.results["holds_for_all_n"] is False and r.results["emergence_threshold"] == 3
    assert str(r).splitlines()[0] == (
        "VIOLATED for some n: forall v1, v2: EX^3 ((alive, v1) & (alive, v2)); emergence threshold: 3")
