"""A second swarm against Storm (issue 35): examples/aggregation (robots
join and leave an aggregate, and crash while exploring) and its PRISM
encoding written separately (aggregation_prism.py). S(2), S(3), S(4): the
same numbers of states, choices and transitions, Storm's exact value in
mavis's certified interval and equal to mavis's exact value, for unbounded
until, eventually and globally and for expected rewards; S(5) against
Storm's sound mode."""

from fractions import Fraction

import pytest
from aggregation_prism import prism_aggregation
from swarm_peer import REPO, assert_equals_storm_exact, assert_interval_holds, export, mavis, storm_exact, storm_exact_jani, storm_sound

stormpy = pytest.importorskip("stormpy")

AGG = REPO / "examples" / "aggregation"
MODEL, FAULTS = str(AGG / "aggregation.swarm"), str(AGG / "aggregation.faults")
PC = Fraction(1, 10)
PROPS = [
    'Pmax=? [ F "aggregate2" ]',
    'Pmax=? [ !"crashed" U "aggregate2" ]',
    'Pmin=? [ G !"crashed" ]',
    'Pmax=? [ G !"crashed" ]',
    'R{"steps"}min=? [ F "aggregate2" | "crashed" ]',
    'R{"steps"}max=? [ F "aggregate2" | "crashed" ]',
    'R{"aggregated"}max=? [ C<=10 ]',
    'R{"aggregated"}min=? [ I=10 ]',
]


def prism(tmp_path, n):
    path = tmp_path / f"agg{n}.prism"
    path.write_text(prism_aggregation(n, PC))
    return path


@pytest.mark.parametrize("n", [2, 3, 4])
def test_sizes_equal_storm(tmp_path, n):
    built = stormpy.build_model(stormpy.parse_prism_program(str(prism(tmp_path, n))))
    # A step-bounded property: mavis explores every reachable state.
    ours = mavis("check", MODEL, "--faults", FAULTS, "--agents", str(n), "--prop", 'Pmax=? [ F<=3 "aggregate2" ]')["stats"]
    assert (ours["states"], ours["choices"], ours["transitions"]) == (built.nr_states, built.nr_choices, built.nr_transitions)


@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("prop", [PROPS[0], PROPS[1], PROPS[4]])
def test_unbounded_properties_explore_what_storm_builds_with_them(tmp_path, n, prop):
    """An unbounded until or reward explores nothing past the states that
    settle it, as Storm builds a model with its property: equal sizes for
    `F "label"`. mavis also stops where an until's left side fails and at
    a reward's target `"a" | "b"`, which Storm (2.0.0) still explores: no
    more states than Storm's there. (Their values equal Storm's: below.)"""
    program = stormpy.parse_prism_program(str(prism(tmp_path, n)))
    built = stormpy.build_model(program, stormpy.parse_properties(prop, program))
    whole = stormpy.build_model(program)
    ours = mavis("check", MODEL, "--faults", FAULTS, "--agents", str(n), "--prop", prop)["stats"]
    theirs = (built.nr_states, built.nr_choices, built.nr_transitions)
    if prop != PROPS[0]:
        assert ours["states"] <= built.nr_states
    else:
        assert (ours["states"], ours["choices"], ours["transitions"]) == theirs
    assert ours["states"] < whole.nr_states


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("prop", PROPS)
def test_values_equal_storm_exact(tmp_path, n, prop):
    theirs = storm_exact(prism(tmp_path, n), prop)
    assert_equals_storm_exact([MODEL, "--faults", FAULTS, "--set", "pc=1/10", "--agents", str(n), "--prop", prop], theirs)


def test_s2_has_its_hand_values(tmp_path):
    """Each robot reaches the site before crashing with 0.36 / (0.36 + 0.1)
    = 18/23 (a search step crashes with 1/10, finds the site with 9/10 *
    2/5), and an aggregate of two needs both: (18/23)^2."""
    theirs = storm_exact(prism(tmp_path, 2), PROPS[0])
    assert theirs == Fraction(18, 23) ** 2


def test_s5_meets_storms_sound_bounds(tmp_path):
    theirs = storm_sound(prism(tmp_path, 5), PROPS)
    args = [MODEL, "--faults", FAULTS, "--set", "pc=1/10", "--agents", "5"]
    for p in PROPS:
        args += ["--prop", p]
    got = mavis("check", *args)["results"]["properties"]
    for prop, g, t in zip(PROPS, got, theirs):
        assert g["property"] == prop
        if "interval" in g:
            assert_interval_holds(g, t)
        else:
            assert t[0] - 1e-9 <= g["value"] <= t[1] + 1e-9, (prop, g["value"], t)


@pytest.mark.parametrize("to", ["prism", "jani"])
def test_the_exports_carry_the_rewards(tmp_path, to):
    """mavis's PRISM and JANI exports of S(3) give Storm the values of the
    separate encoding, the `leave` reward of a synchronised action (robot
    and site) earned once per step."""
    out = tmp_path / f"agg3.{to}"
    export(out, MODEL, "--faults", FAULTS, "--set", "pc=1/10", "--agents", "3", "--to", to)
    for prop in PROPS[4:]:
        ours = storm_exact(out, prop) if to == "prism" else storm_exact_jani(out, prop)
        assert ours == storm_exact(prism(tmp_path, 3), prop), prop
