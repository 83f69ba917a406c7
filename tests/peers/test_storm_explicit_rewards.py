"""The explicit export (the abstraction of a model with a global-synchronous
action, written state by state) carries the reward structures: Storm, on
mavis's PRISM and JANI files of it, gets the values mavis's `check
--abstract --exact` gives on the same abstraction, for a state reward with
an action reward (`aggregated`, with `C<=k` and `I=k`) and for a reward
until a target (`steps`). The model: examples/aggregation with a `tick`
that every module takes together."""

from fractions import Fraction

import pytest
from swarm_peer import REPO, export, mavis

stormpy = pytest.importorskip("stormpy")

AGG = REPO / "examples" / "aggregation"
FAULTS = str(AGG / "aggregation.faults")
PROPS = [
    ('R{"steps"}min=? [ F "aggregate2" | "crashed" ]', min),
    ('R{"aggregated"}max=? [ C<=6 ]', max),
    ('R{"aggregated"}min=? [ C<=6 ]', min),
    ('R{"aggregated"}max=? [ I=4 ]', max),
]


def ticking(tmp_path):
    """examples/aggregation with a global-synchronous `tick` in every module."""
    text = (AGG / "aggregation.swarm").read_text()
    text = text.replace("globalSynchronous = {};", "globalSynchronous = {tick};")
    text = text.replace("endmodule", "  [tick] true -> true;\nendmodule")
    path = tmp_path / "ticking.swarm"
    path.write_text(text)
    return str(path)


def storm_values(path, to, prop):
    """Storm's exact values of `prop` at every initial state of the file."""
    if to == "prism":
        program = stormpy.parse_prism_program(str(path))
        props = stormpy.parse_properties(prop, program)
        model = stormpy.build_model[stormpy.Rational](program, props)
    else:
        jani, _ = stormpy.parse_jani_model(str(path))
        props = stormpy.parse_properties(prop)
        model = stormpy.build_model[stormpy.Rational](jani, props)
    result = stormpy.model_checking(model, props[0])
    return [Fraction(str(result.get_value(i))) for i in model.initial_states]


@pytest.mark.parametrize("to", ["prism", "jani"])
def test_storm_gets_mavis_rewards_on_the_explicit_export(tmp_path, to):
    model = ticking(tmp_path)
    out = tmp_path / f"ticking.{to}"
    text = export(out, model, "--faults", FAULTS, "--set", "pc=1/10", "--abstract", "--to", to)
    assert "aggregated" in text and "steps" in text
    for prop, best in PROPS:
        got = mavis("check", model, "--faults", FAULTS, "--set", "pc=1/10", "--abstract", "--exact", "--prop", prop)
        ours = got["results"]["properties"][0]
        assert ours.get("abstract_bound_exact") is not None, ours
        theirs = storm_values(out, to, prop)
        assert best(theirs) == Fraction(ours["abstract_bound_exact"]), (prop, theirs, ours)
