"""Unbounded properties (F, U, G without a step bound) of the seed's foraging
swarm against Storm (stormpy) on the independent PRISM encoding of
foraging_prism.py: Storm's exact value (a model built over the rationals)
must lie in mavis's certified f64 interval, of width at most the precision,
and equal mavis's exact value (policy iteration) to the last digit. For
every n, the abstraction's bound must be on the right side of each
concrete size's value."""

import json
import os
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from foraging_prism import prism_concrete

stormpy = pytest.importorskip("stormpy")

REPO = Path(__file__).resolve().parents[2]
EX = REPO / "examples" / "foraging"
MODEL, FAULTS = str(EX / "foraging.swarm"), str(EX / "foraging.faults")
PROPS = [
    'Pmax=? [ F "deposited2" ]',
    'Pmin=? [ F "deposited2" ]',
    'Pmax=? [ G !"deposited2" ]',
    'Pmin=? [ G !"deposited2" ]',
]


def mavis_bin():
    if os.environ.get("MAVIS_BIN"):
        return os.environ["MAVIS_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    return str(Path(target) / "release" / "mavis")


def mavis(*args):
    r = subprocess.run([mavis_bin(), "--format", "json", "swarm", *args], capture_output=True, text=True)
    assert r.returncode in (0, 1, 3), r.stderr
    return json.loads(r.stdout)


def storm_exact(tmp_path, n, prop):
    path = tmp_path / f"s{n}.prism"
    path.write_text(prism_concrete(n, Fraction(2, 5)))
    program = stormpy.parse_prism_program(str(path))
    props = stormpy.parse_properties(prop, program)
    model = stormpy.build_model[stormpy.Rational](program, props)
    result = stormpy.model_checking(model, props[0])
    return Fraction(str(result.get_value(model.initial_states[0])))


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("prop", PROPS)
def test_interval_and_exact_value_equal_storm(tmp_path, n, prop):
    theirs = storm_exact(tmp_path, n, prop)
    f64 = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=2/5", "--agents", str(n), "--prop", prop)
    got = f64["results"]["properties"][0]
    lo, hi = got["interval"]
    assert got["method"] == "interval iteration"
    assert lo <= float(theirs) <= hi and hi - lo <= 1e-6, (lo, float(theirs), hi)
    exact = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=2/5", "--agents", str(n), "--prop", prop, "--exact")
    got = exact["results"]["properties"][0]
    assert got["method"] == "policy iteration"
    assert Fraction(got["exact"]) == theirs


@pytest.mark.parametrize("prop", ['Pmax=? [ F "deposited2" ]', 'Pmin=? [ F "deposited2" ]'])
def test_the_abstract_bound_is_on_the_right_side_of_every_size(tmp_path, prop):
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=2/5", "--abstract", "--prop", prop)
    lo, hi = ours["results"]["properties"][0]["abstract_bound_interval"]
    for n in (2, 3):
        value = float(storm_exact(tmp_path, n, prop))
        if prop.startswith("Pmax"):
            assert value <= hi, (n, value, hi)
        else:
            assert value >= lo, (n, value, lo)
