"""Reward properties (Rmin/Rmax over F, C<=k and I=k, state and action
rewards) of the seed's foraging swarm against Storm (stormpy) on the
independent PRISM encoding of foraging_prism.py, whose reward structures are
written by hand beside the swarm file's (SWARM_REWARDS): Storm's exact value
(a model built over the rationals) must lie in mavis's certified f64 interval
(of width at most the precision) or equal its f64 value for the step-bounded
forms, and equal mavis's exact value."""

from fractions import Fraction

import pytest
from foraging_prism import SWARM_REWARDS, prism_concrete
from swarm_peer import EX, assert_equals_storm_exact, export, storm_exact, storm_exact_jani

stormpy = pytest.importorskip("stormpy")

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


def swarm_with_rewards(tmp_path):
    path = tmp_path / "foraging_rewards.swarm"
    path.write_text((EX / "foraging.swarm").read_text() + SWARM_REWARDS)
    return str(path)


# Storm over the rationals takes minutes per reward property from S(4) on,
# so the exact comparison stops at S(3).
@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("prop", PROPS)
def test_reward_values_equal_storm(tmp_path, n, prop):
    prism = tmp_path / f"s{n}.prism"
    prism.write_text(prism_concrete(n, Fraction(2, 5), rewards=True))
    theirs = storm_exact(prism, prop)
    model = swarm_with_rewards(tmp_path)
    args = [model, "--faults", FAULTS, "--set", "pf=2/5", "--agents", str(n), "--prop", prop]
    assert_equals_storm_exact(args, theirs)


@pytest.mark.parametrize("to", ["prism", "jani"])
@pytest.mark.parametrize("prop", ['R{"work"}min=? [ F "deposited2" ]', 'R{"work"}max=? [ C<=12 ]', 'R{"steps"}max=? [ I=9 ]'])
def test_the_exports_carry_the_rewards(tmp_path, prop, to):
    """Storm on mavis's own PRISM and JANI exports of S(3) (action rewards on
    the per-agent actions; in JANI, transient variables) gives the value of
    the hand-written encoding."""
    model = swarm_with_rewards(tmp_path)
    out = tmp_path / f"s3.{to}"
    assert '"work"' in export(out, model, "--faults", FAULTS, "--set", "pf=2/5", "--agents", "3", "--to", to)
    hand = tmp_path / "hand.prism"
    hand.write_text(prism_concrete(3, Fraction(2, 5), rewards=True))
    ours = storm_exact(out, prop) if to == "prism" else storm_exact_jani(out, prop)
    assert ours == storm_exact(hand, prop)
