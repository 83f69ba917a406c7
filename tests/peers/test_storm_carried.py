"""The properties an export carries (issue 34): `mavis swarm export --props`
writes them beside a PRISM model (a properties file) and into a JANI model
(its "properties"); Storm (stormpy) reads them from there, not from this
test, checks them over the rationals and must get mavis's own exact values
(`swarm check --exact` with the same properties) and verdicts.

Storm has no step-bounded `G` (in PRISM or JANI syntax), so the cases leave
it out (the PRISM file still writes `G<=k`, which PRISM reads)."""

import json
import subprocess
from fractions import Fraction

import pytest
from foraging_prism import SWARM_REWARDS
from swarm_peer import EX, mavis_bin

stormpy = pytest.importorskip("stormpy")

PROBABILITIES = [
    'Pmax=? [ F<13 "deposited2" ]',
    'Pmin=? [ F<=10 "deposited1" ]',
    'Pmin=? [ !"deposited2" U<=10 "deposited1" ]',
    'Pmax=? [ X "deposited1" ]',
    'Pmax=? [ F "deposited2" ]',
    'Pmax=? [ G !"deposited2" ]',
    'P<=0.9 [ F<13 "deposited2" ]',
    'P>=1/3 [ F<=10 "deposited1" ]',
]
REWARDS = [
    'R{"steps"}min=? [ F "deposited2" ]',
    'R{"work"}max=? [ C<=6 ]',
    'R{"work"}min=? [ I=5 ]',
    'R{"work"}<=4 [ C<=3 ]',
]


def model_with_rewards(tmp_path):
    path = tmp_path / "foraging_rewards.swarm"
    path.write_text((EX / "foraging.swarm").read_text() + SWARM_REWARDS)
    return path


CASES = [
    ("small", lambda tmp: EX / "foraging_small.swarm", "foraging_small.faults", "2", PROBABILITIES),
    ("rewards", model_with_rewards, "foraging.faults", "2", REWARDS),
]


def run(*args):
    r = subprocess.run([mavis_bin(), *args], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return r


def mavis_answers(model, faults, agents, props_file):
    """Per property, mavis's exact value (a Fraction) or, for a bound, its
    verdict as a bool."""
    r = run("--format", "json", "swarm", "check", str(model), "--faults", str(faults), "--set", "pf=0.4", "--agents", agents, "--props", str(props_file), "--exact")
    out = []
    for p in json.loads(r.stdout)["results"]["properties"]:
        if p.get("verdict") in ("holds", "violated"):
            out.append(p["verdict"] == "holds")
        else:
            out.append(Fraction(p["exact"]))
    return out


def storm_answers(model, properties):
    """Storm's exact answer of each property at the (one) initial state."""
    built = stormpy.build_model[stormpy.Rational](model, properties)
    assert len(built.initial_states) == 1
    out = []
    for p in properties:
        result = stormpy.model_checking(built, p)
        value = result[built.initial_states[0]]
        if result.is_qualitative():
            out.append(value)
            continue
        # Storm's exact value (the bounds it attaches to `G` are not the
        # value's: 0 [1162/94529654419005, ...] on S(2)).
        out.append(Fraction(str(value.value)))
    return out


@pytest.mark.parametrize("name,model,faults,agents,props", CASES, ids=[c[0] for c in CASES])
def test_storm_checks_the_carried_properties_and_gets_mavis_values(tmp_path, name, model, faults, agents, props):
    model = model(tmp_path)
    faults = EX / faults
    props_file = tmp_path / "given.props"
    props_file.write_text("\n".join(props) + "\n")
    ours = mavis_answers(model, faults, agents, props_file)
    assert len(ours) == len(props)
    common = ["swarm", "export", str(model), "--faults", str(faults), "--set", "pf=0.4", "--agents", agents, "--props", str(props_file)]

    prism = tmp_path / "m.prism"
    run(*common, "--to", "prism", "-o", str(prism))
    carried = (tmp_path / "m.props").read_text()
    program = stormpy.parse_prism_program(str(prism))
    parsed = stormpy.parse_properties(carried, program)
    assert len(parsed) == len(props), carried
    assert storm_answers(program, parsed) == ours, carried

    jani_path = tmp_path / "m.jani"
    run(*common, "--to", "jani", "-o", str(jani_path))
    jani, jani_props = stormpy.parse_jani_model(str(jani_path))
    assert [p.get_name() for p in jani_props] == [f"p{i}" for i in range(1, len(props) + 1)]
    assert storm_answers(jani, jani_props) == ours
