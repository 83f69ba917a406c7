"""Reward properties (Rmin/Rmax over F, C<=k and I=k, state and action
rewards) of the seed's foraging swarm against Storm (stormpy) on the
independent PRISM encoding of foraging_prism.py, whose reward structures are
written by hand beside the swarm file's (SWARM_REWARDS): Storm's exact value
(a model built over the rationals) must lie in mavis's certified f64 interval
(of width at most the precision) or equal its f64 value for the step-bounded
forms, and equal mavis's exact value."""

import json
import os
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from foraging_prism import SWARM_REWARDS, prism_concrete

stormpy = pytest.importorskip("stormpy")

REPO = Path(__file__).resolve().parents[2]
EX = REPO / "examples" / "foraging"
FAULTS = str(EX / "foraging.faults")
PROPS = [
    'R{"steps"}min=? [ F "deposited2" ]',
    'R{"steps"}max=? [ F "deposited2" ]',
    'R{"work"}min=? [ F "deposited2" ]',
    'R{"work"}max=? [ F "deposited2" ]',
    'R{"work"}max=? [ C<=12 ]',
    'R{"work"}min=? [ C<=12 ]',
    'R{"work"}max=? [ I=9 ]',
    'R{"work"}min=? [ I=9 ]',
]


def mavis_bin():
    if os.environ.get("MAVIS_BIN"):
        return os.environ["MAVIS_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    return str(Path(target) / "release" / "mavis")


def swarm_with_rewards(tmp_path):
    path = tmp_path / "foraging_rewards.swarm"
    path.write_text((EX / "foraging.swarm").read_text() + SWARM_REWARDS)
    return str(path)


def mavis(*args):
    r = subprocess.run([mavis_bin(), "--format", "json", "swarm", *args], capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)["results"]["properties"][0]


def storm_exact(path, prop):
    program = stormpy.parse_prism_program(str(path))
    props = stormpy.parse_properties(prop, program)
    model = stormpy.build_model[stormpy.Rational](program, props)
    result = stormpy.model_checking(model, props[0])
    return Fraction(str(result.get_value(model.initial_states[0])))


# Storm over the rationals takes minutes per reward property from S(4) on,
# so the exact comparison stops at S(3).
@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("prop", PROPS)
def test_reward_values_equal_storm(tmp_path, n, prop):
    prism = tmp_path / f"s{n}.prism"
    prism.write_text(prism_concrete(n, Fraction(2, 5), rewards=True))
    theirs = storm_exact(prism, prop)
    model = swarm_with_rewards(tmp_path)
    args = ["check", model, "--faults", FAULTS, "--set", "pf=2/5", "--agents", str(n), "--prop", prop]
    got = mavis(*args)
    if "[ F" in prop:
        lo, hi = got["interval"]
        assert got["method"] == "interval iteration"
        assert lo <= float(theirs) <= hi and hi - lo <= 1e-6, (lo, float(theirs), hi)
    else:
        assert got["value"] == pytest.approx(float(theirs), rel=1e-12, abs=1e-12)
    exact = mavis(*args, "--exact")
    assert Fraction(exact["exact"]) == theirs


@pytest.mark.parametrize("prop", ['R{"work"}min=? [ F "deposited2" ]', 'R{"work"}max=? [ C<=12 ]'])
def test_the_prism_export_carries_the_rewards(tmp_path, prop):
    """Storm on mavis's own PRISM export of S(3) (its action rewards on the
    per-agent actions) gives the value of the hand-written encoding."""
    model = swarm_with_rewards(tmp_path)
    out = tmp_path / "s3.prism"
    r = subprocess.run(
        [mavis_bin(), "swarm", "export", model, "--faults", FAULTS, "--set", "pf=2/5", "--agents", "3", "--to", "prism", "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert 'rewards "work"' in out.read_text()
    hand = tmp_path / "hand.prism"
    hand.write_text(prism_concrete(3, Fraction(2, 5), rewards=True))
    assert storm_exact(out, prop) == storm_exact(hand, prop)
