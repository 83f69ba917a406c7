"""Unbounded properties (F, U, G without a step bound) of the seed's foraging
swarm against Storm (stormpy) on the independent PRISM encoding of
foraging_prism.py: Storm's exact value (a model built over the rationals)
must lie in mavis's certified f64 interval, of width at most the precision,
and equal mavis's exact value (policy iteration) to the last digit. For
every n, the abstraction's bound must be on the right side of each
concrete size's value."""

from fractions import Fraction

import pytest
from foraging_prism import prism_concrete
from swarm_peer import EX, assert_equals_storm_exact, mavis
from swarm_peer import storm_exact as storm_exact_of

stormpy = pytest.importorskip("stormpy")

MODEL, FAULTS = str(EX / "foraging.swarm"), str(EX / "foraging.faults")
PROPS = [
    'Pmax=? [ F "deposited2" ]',
    'Pmin=? [ F "deposited2" ]',
    'Pmax=? [ G !"deposited2" ]',
    'Pmin=? [ G !"deposited2" ]',
]


def storm_exact(tmp_path, n, prop):
    path = tmp_path / f"s{n}.prism"
    path.write_text(prism_concrete(n, Fraction(2, 5)))
    return storm_exact_of(path, prop)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("prop", PROPS)
def test_interval_and_exact_value_equal_storm(tmp_path, n, prop):
    theirs = storm_exact(tmp_path, n, prop)
    args = [MODEL, "--faults", FAULTS, "--set", "pf=2/5", "--agents", str(n), "--prop", prop]
    assert_equals_storm_exact(args, theirs, method="policy iteration")


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
