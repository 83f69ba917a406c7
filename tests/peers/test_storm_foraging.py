"""The seed's foraging swarm (examples/foraging/foraging.swarm with the
drop-food fault of foraging.faults) against an independent PRISM encoding
written here by hand and run by Storm (stormpy): S(n) and the set
abstraction must have Storm's numbers of states, choices and transitions
(built without properties) and the same Pmax values. Definition 13's flags
are projected away when nothing reads them (14 local states per robot, not
27); `--fault-flags` keeps them, and then the sizes are those of an encoding
with the two Booleans."""

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
from foraging_prism import prism_concrete, prism_set_abstraction
from swarm_peer import EX, mavis, mavis_bin

stormpy = pytest.importorskip("stormpy")

MODEL, FAULTS = str(EX / "foraging.swarm"), str(EX / "foraging.faults")
PROP = 'Pmax=? [ F<20 "deposited2" ]'


def storm(tmp_path, text, name, prop=None, exact=False):
    path = tmp_path / name
    path.write_text(text)
    program = stormpy.parse_prism_program(str(path))
    if prop is None:
        return stormpy.build_model(program)
    props = stormpy.parse_properties(prop, program)
    model = stormpy.build_model[stormpy.Rational](program, props) if exact else stormpy.build_model(program, props)
    result = stormpy.model_checking(model, props[0])
    value = result.get_value(model.initial_states[0])
    return Fraction(str(value)) if exact else value


def sizes(report):
    return report["stats"]["states"], report["stats"]["choices"], report["stats"]["transitions"]


@pytest.mark.parametrize("n", [1, 2, 3])
def test_concrete_sizes_and_values_equal_storm(tmp_path, n):
    pf = 0.4
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--agents", str(n), "--prop", PROP)
    built = storm(tmp_path, prism_concrete(n, pf), f"s{n}.prism")
    assert sizes(ours) == (built.nr_states, built.nr_choices, built.nr_transitions)
    assert ours["stats"]["states"] == 3 * 14**n
    assert ours["stats"]["fault_flags"].startswith("projected")
    value = storm(tmp_path, prism_concrete(n, pf), f"s{n}.prism", PROP)
    assert abs(ours["results"]["properties"][0]["value"] - value) <= 1e-9


def test_exact_value_equals_storm_exact(tmp_path):
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=2/5", "--agents", "2", "--prop", PROP, "--exact")
    theirs = storm(tmp_path, prism_concrete(2, Fraction(2, 5)), "s2.prism", PROP, exact=True)
    assert Fraction(ours["results"]["properties"][0]["exact"]) == theirs


@pytest.mark.parametrize("n", [1, 2])
def test_forced_flags_equal_an_encoding_with_the_flags(tmp_path, n):
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--agents", str(n), "--prop", PROP, "--fault-flags")
    built = storm(tmp_path, prism_concrete(n, 0.4, flags=True), f"f{n}.prism")
    assert sizes(ours) == (built.nr_states, built.nr_choices, built.nr_transitions)
    assert ours["stats"]["states"] > 3 * 14**n
    assert ours["stats"]["fault_flags"] == "tracked"
    value = storm(tmp_path, prism_concrete(n, 0.4, flags=True), f"f{n}.prism", PROP)
    assert abs(ours["results"]["properties"][0]["value"] - value) <= 1e-9


def test_a_property_reading_the_flags_tracks_them(tmp_path):
    prop = 'Pmax=? [ F<20 "deposited2" & !faulty ]'
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--agents", "1", "--prop", prop)
    assert ours["stats"]["fault_flags"] == "tracked"
    built = storm(tmp_path, prism_concrete(1, 0.4, flags=True), "t1.prism")
    assert ours["stats"]["states"] == built.nr_states


def test_set_abstraction_equals_storm(tmp_path):
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--abstract", "--prop", PROP)
    text = prism_set_abstraction(0.4)
    built = storm(tmp_path, text, "abs.prism")
    assert sizes(ours) == (built.nr_states, built.nr_choices, built.nr_transitions)
    bound = ours["results"]["properties"][0]["abstract_bound"]
    assert abs(bound - storm(tmp_path, text, "abs.prism", PROP)) <= 1e-9


def export(tmp_path, agents, to):
    out = tmp_path / f"export{agents}.{to}"
    subprocess.run(
        [mavis_bin(), "swarm", "export", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--agents", str(agents), "--to", to, "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return out


def load_export(path):
    """Storm's model of an exported PRISM or JANI file (all labels built)."""
    if path.suffix == ".jani":
        jani, _ = stormpy.parse_jani_model(str(path))
        options = stormpy.BuilderOptions()
        options.set_build_all_labels()
        return stormpy.build_model(jani, options=options)
    return stormpy.build_model(stormpy.parse_prism_program(str(path)))


def storm_max(model, prop=PROP):
    """Storm's value of `prop` on a built model, the largest over its initial
    states (the abstraction has one per initial count)."""
    props = stormpy.parse_properties(prop)
    result = stormpy.model_checking(model, props[0])
    return max(result.get_value(s) for s in model.initial_states)


@pytest.mark.parametrize("to", ["prism", "jani"])
def test_exports_of_more_than_1e5_states_load_in_storm(tmp_path, to):
    """S(4), 115,248 states, through PRISM (modules per robot) and JANI (an
    automaton per robot): Storm has our sizes and our value."""
    built = load_export(export(tmp_path, 4, to))
    assert (built.nr_states, built.nr_choices, built.nr_transitions) == (115248, 460992, 691488)
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--agents", "4", "--prop", PROP)
    assert sizes(ours) == (built.nr_states, built.nr_choices, built.nr_transitions)
    assert abs(ours["results"]["properties"][0]["value"] - storm_max(built)) <= 1e-9


def export_abstract(tmp_path, model, faults, threshold, to="prism", setting="pf=0.4"):
    out = tmp_path / f"abstract{threshold}.{to}"
    subprocess.run(
        [mavis_bin(), "swarm", "export", model, "--faults", faults, "--set", setting, "--abstract", "--threshold", str(threshold), "--to", to, "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return out


def is_module_form(path):
    """The abstraction is written over counts, not as a list of states."""
    text = path.read_text()
    if path.suffix == ".jani":
        jani = json.loads(text)
        automata = [a["name"] for a in jani["automata"]]
        variables = [v["name"] for v in jani["variables"]]
        return "counts" in automata and "s" not in variables and all(len(a["locations"]) == 1 for a in jani["automata"])
    return "module counts" in text and "s=" not in text


@pytest.mark.parametrize("to", ["prism", "jani"])
def test_export_of_the_abstraction_is_modules_and_loads_in_storm(tmp_path, to):
    """The seed's set abstraction (49,149 states) as PRISM modules or JANI
    automata (a count per local state), not a list of states: Storm has our
    sizes and bound."""
    path = export_abstract(tmp_path, MODEL, FAULTS, 1, to)
    assert is_module_form(path)
    built = load_export(path)
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--abstract", "--prop", PROP)
    assert sizes(ours) == (built.nr_states, built.nr_choices, built.nr_transitions) == (49149, 688128, 946176)
    bound = ours["results"]["properties"][0]["abstract_bound"]
    assert abs(bound - storm_max(built)) <= 1e-9


SMALL, SMALL_FAULTS = str(EX / "foraging_small.swarm"), str(EX / "foraging_small.faults")
SMALL_PROP = 'Pmax=? [ F<13 "deposited2" ]'


@pytest.mark.parametrize("to", ["prism", "jani"])
@pytest.mark.parametrize("threshold", [2, 3, 5])
def test_export_of_larger_thresholds_equals_ours(tmp_path, threshold, to):
    """Counts below t are exact, t is "t or more"; 1..t agents initially (an
    init block, or JANI's restrict-initial): Storm has our sizes and our
    bound. Threshold 5 has 139,965 states."""
    path = export_abstract(tmp_path, SMALL, SMALL_FAULTS, threshold, to)
    assert is_module_form(path)
    built = load_export(path)
    ours = mavis("check", SMALL, "--faults", SMALL_FAULTS, "--set", "pf=0.4", "--abstract", "--threshold", str(threshold), "--prop", SMALL_PROP)
    assert sizes(ours) == (built.nr_states, built.nr_choices, built.nr_transitions)
    assert len(built.initial_states) == threshold
    if threshold == 5:
        assert sizes(ours) == (139965, 839808, 1384128)
    assert abs(ours["results"]["properties"][0]["abstract_bound"] - storm_max(built, SMALL_PROP)) <= 1e-9


@pytest.mark.parametrize("to", ["prism", "jani"])
def test_export_of_the_abstraction_keeps_named_agents_concrete(tmp_path, to):
    """A label over robot 1 keeps it a module (automaton) of its own beside
    the counts."""
    text = Path(SMALL).read_text() + '\nlabel "home1" = state_1_1 = 3;\n'
    model = tmp_path / "named.swarm"
    model.write_text(text)
    path = export_abstract(tmp_path, str(model), SMALL_FAULTS, 1, to)
    assert is_module_form(path)
    assert "robot_1_1" in path.read_text()
    built = load_export(path)
    prop = 'Pmax=? [ F<9 "home1" & "deposited1" ]'
    ours = mavis("check", str(model), "--faults", SMALL_FAULTS, "--set", "pf=0.4", "--abstract", "--prop", prop)
    assert sizes(ours) == (built.nr_states, built.nr_choices, built.nr_transitions)
    assert abs(ours["results"]["properties"][0]["abstract_bound"] - storm_max(built, prop)) <= 1e-9


# Step-bounded G (issue 34): Storm's PRISM parser takes no `G<=k`, so its
# value comes from the dual, Popt[G<=k phi] = 1 - Popt'[F<=k !phi] (opt'
# the other optimum), on the hand-written encoding; mavis decides the G
# property itself. Pmin[G<=19 !"deposited2"] is strictly between 0 and 1;
# Pmax keeps every robot resting, so the Pmax row is 1 on both sides.
G_PROPS = [
    ('Pmin=? [ G<=19 !"deposited2" ]', 'Pmax=? [ F<=19 "deposited2" ]'),
    ('Pmax=? [ G<=19 !"deposited2" ]', 'Pmin=? [ F<=19 "deposited2" ]'),
    ('Pmin=? [ G<20 !"deposited2" ]', 'Pmax=? [ F<=19 "deposited2" ]'),
]


@pytest.mark.parametrize("g, dual", G_PROPS)
def test_step_bounded_globally_equals_storm_through_the_dual(tmp_path, g, dual):
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=2/5", "--agents", "2", "--prop", g, "--exact")
    theirs = 1 - storm(tmp_path, prism_concrete(2, Fraction(2, 5)), "g2.prism", dual, exact=True)
    assert Fraction(ours["results"]["properties"][0]["exact"]) == theirs
    if g.startswith("Pmin"):
        assert 0 < theirs < 1, theirs
    # And in f64, on S(1) and S(3).
    for n in [1, 3]:
        ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--agents", str(n), "--prop", g)
        theirs = 1 - storm(tmp_path, prism_concrete(n, 0.4), f"g{n}.prism", dual)
        assert abs(ours["results"]["properties"][0]["value"] - theirs) <= 1e-9, (n, g)
