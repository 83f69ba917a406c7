"""Cross-check of `mavis swarm` against Storm (stormpy): exported concrete
foraging swarms (n = 1..3), a two-template swarm and the abstract model must
have the same numbers of states, choices and transitions (built without
properties) and the same Pmax/Pmin values (1e-9 in f64; equal fractions with
`--exact` and Storm's rational mode)."""

import subprocess
from fractions import Fraction

import pytest
from swarm_peer import EX, mavis, mavis_bin

stormpy = pytest.importorskip("stormpy")

CASES = [
    ("foraging_small.swarm", "foraging_small.faults", "1", "pf=0.4"),
    ("foraging_small.swarm", "foraging_small.faults", "2", "pf=0.4"),
    ("foraging_small.swarm", "foraging_small.faults", "3", "pf=0.25"),
    ("two_kinds.swarm", "two_kinds.faults", "2,1", "pf=0.4"),
]
PROPS = ['Pmax=? [ F<13 "deposited2" ]', 'Pmin=? [ F<=10 "deposited1" ]', 'Pmin=? [ !"deposited2" U<=10 "deposited1" ]']


def export(tmp_path, model, faults, agents, setting, abstract=False, to="prism"):
    out = tmp_path / (model + agents.replace(",", "_") + ("abs" if abstract else "") + "." + to)
    where = ["--abstract"] if abstract else ["--agents", agents]
    subprocess.run(
        [mavis_bin(), "swarm", "export", str(EX / model), "--faults", str(EX / faults), "--set", setting, *where, "--to", to, "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return str(out)


def build_jani(path, exact=False):
    """A JANI export built by Storm with every label (its transient Booleans)."""
    jani, _ = stormpy.parse_jani_model(path)
    options = stormpy.BuilderOptions()
    options.set_build_all_labels()
    return stormpy.build_model[stormpy.Rational](jani, options=options) if exact else stormpy.build_model(jani, options=options)


def jani_value(model, prop, exact=False):
    """`prop` on a model built by `build_jani` (labels only, no symbolic names)."""
    result = stormpy.model_checking(model, stormpy.parse_properties(prop)[0])
    values = [result.get_value(i) for i in model.initial_states]
    if exact:
        values = [Fraction(str(v)) for v in values]
    return max(values) if prop.startswith("Pmax") else min(values)


def storm_value(path, prop, exact=False):
    if path.endswith(".jani"):
        return jani_value(build_jani(path, exact), prop, exact)
    else:
        program = stormpy.parse_prism_program(path)
        props = stormpy.parse_properties(prop, program)
        model = stormpy.build_model[stormpy.Rational](program, props) if exact else stormpy.build_model(program, props)
    result = stormpy.model_checking(model, props[0])
    values = [result.get_value(i) for i in model.initial_states]
    if exact:
        values = [Fraction(str(v)) for v in values]
    return max(values) if prop.startswith("Pmax") else min(values)


@pytest.mark.parametrize("model,faults,agents,setting", CASES)
def test_concrete_sizes_and_values(tmp_path, model, faults, agents, setting):
    path = export(tmp_path, model, faults, agents, setting)
    built = stormpy.build_model(stormpy.parse_prism_program(path))
    for prop in PROPS:
        ours = mavis("check", str(EX / model), "--faults", str(EX / faults), "--set", setting, "--agents", agents, "--prop", prop)
        assert (ours["stats"]["states"], ours["stats"]["choices"], ours["stats"]["transitions"]) == (
            built.nr_states,
            built.nr_choices,
            built.nr_transitions,
        )
        value = ours["results"]["properties"][0]["value"]
        assert abs(value - storm_value(path, prop)) <= 1e-9, prop


@pytest.mark.parametrize("model,faults,agents,setting", CASES[:2] + CASES[3:])
def test_exact_values(tmp_path, model, faults, agents, setting):
    path = export(tmp_path, model, faults, agents, setting)
    for prop in PROPS[:2]:
        ours = mavis("check", str(EX / model), "--faults", str(EX / faults), "--set", setting, "--agents", agents, "--prop", prop, "--exact")
        assert Fraction(ours["results"]["properties"][0]["exact"]) == storm_value(path, prop, exact=True), prop


def test_abstract_model(tmp_path):
    path = export(tmp_path, "foraging_small.swarm", "foraging_small.faults", "", "pf=0.4", abstract=True)
    built = stormpy.build_model(stormpy.parse_prism_program(path))
    prop = 'Pmax=? [ F<13 "deposited2" ]'
    ours = mavis("check", str(EX / "foraging_small.swarm"), "--faults", str(EX / "foraging_small.faults"), "--set", "pf=0.4", "--abstract", "--prop", prop)
    assert (ours["stats"]["states"], ours["stats"]["choices"], ours["stats"]["transitions"]) == (
        built.nr_states,
        built.nr_choices,
        built.nr_transitions,
    )
    bound = ours["results"]["properties"][0]["abstract_bound"]
    assert abs(bound - storm_value(path, prop)) <= 1e-9
    exact = mavis("check", str(EX / "foraging_small.swarm"), "--faults", str(EX / "foraging_small.faults"), "--set", "pf=0.4", "--abstract", "--prop", prop, "--exact")
    assert Fraction(exact["results"]["properties"][0]["abstract_bound_exact"]) == storm_value(path, prop, exact=True)


@pytest.mark.parametrize("model,faults,agents,setting", CASES)
def test_jani_export_matches(tmp_path, model, faults, agents, setting):
    """The JANI export has the states, choices and transitions of our S(n) and
    gives the same values in f64 (1e-9) and exactly."""
    path = export(tmp_path, model, faults, agents, setting, to="jani")
    built, built_exact = build_jani(path), build_jani(path, exact=True)
    for prop in PROPS:
        ours = mavis("check", str(EX / model), "--faults", str(EX / faults), "--set", setting, "--agents", agents, "--prop", prop, "--exact")
        assert (ours["stats"]["states"], ours["stats"]["choices"], ours["stats"]["transitions"]) == (
            built.nr_states,
            built.nr_choices,
            built.nr_transitions,
        )
        result = ours["results"]["properties"][0]
        assert abs(result["value"] - jani_value(built, prop)) <= 1e-9, prop
        assert Fraction(result["exact"]) == jani_value(built_exact, prop, exact=True), prop


def test_jani_abstract_model(tmp_path):
    path = export(tmp_path, "foraging_small.swarm", "foraging_small.faults", "", "pf=0.4", abstract=True, to="jani")
    built = build_jani(path)
    prop = 'Pmax=? [ F<13 "deposited2" ]'
    ours = mavis("check", str(EX / "foraging_small.swarm"), "--faults", str(EX / "foraging_small.faults"), "--set", "pf=0.4", "--abstract", "--prop", prop, "--exact")
    assert (ours["stats"]["states"], ours["stats"]["choices"], ours["stats"]["transitions"]) == (
        built.nr_states,
        built.nr_choices,
        built.nr_transitions,
    )
    result = ours["results"]["properties"][0]
    assert abs(result["abstract_bound"] - jani_value(built, prop)) <= 1e-9
    assert Fraction(result["abstract_bound_exact"]) == storm_value(path, prop, exact=True)
