"""What the swarm peer tests share: running `mavis swarm`, Storm (stormpy)
on a PRISM file in its exact (rational) and its sound floating-point mode,
and the two comparisons issue 35 asks for: Storm's value inside mavis's
certified interval, and mavis's exact value equal to Storm's."""

import json
import os
import subprocess
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EX = REPO / "examples" / "foraging"

# The sound mode's precision, absolute, as mavis's default --precision.
PRECISION = "1/1000000"


def mavis_bin():
    if os.environ.get("MAVIS_BIN"):
        return os.environ["MAVIS_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    return str(Path(target) / "release" / "mavis")


def mavis(*args, ok=(0, 1, 3)):
    """`mavis --format json swarm ARGS`, its report (exit status in `ok`)."""
    r = subprocess.run([mavis_bin(), "--format", "json", "swarm", *args], capture_output=True, text=True)
    assert r.returncode in ok, r.stderr
    return json.loads(r.stdout)


def export(out, *args):
    """`mavis swarm export ARGS -o OUT`, which must succeed; OUT's text."""
    r = subprocess.run([mavis_bin(), "swarm", "export", *args, "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out.read_text()


def storm_exact(path, prop):
    """Storm's exact value of `prop` at the initial state: the model built
    over the rationals, checked in Storm's exact mode."""
    import stormpy

    program = stormpy.parse_prism_program(str(path))
    props = stormpy.parse_properties(prop, program)
    model = stormpy.build_model[stormpy.Rational](program, props)
    result = stormpy.model_checking(model, props[0])
    return Fraction(str(result.get_value(model.initial_states[0])))


def storm_exact_jani(path, prop):
    """Storm's exact value of `prop` on a JANI file (labels and reward
    models are the file's transient variables)."""
    import stormpy

    model, _ = stormpy.parse_jani_model(str(path))
    props = stormpy.parse_properties(prop)
    built = stormpy.build_model[stormpy.Rational](model, props)
    result = stormpy.model_checking(built, props[0])
    return Fraction(str(result.get_value(built.initial_states[0])))


def storm_sound(path, props):
    """Storm's sound bounds (lower, upper) of each property at the initial
    state: one floating-point model built for all of them, each checked in
    Storm's sound mode (stormpy.environments.sound(): a sound min-max
    method) with absolute precision PRECISION. An infinite value is
    (inf, inf)."""
    import stormpy
    import stormpy.environments

    program = stormpy.parse_prism_program(str(path))
    parsed = stormpy.parse_properties(";".join(props), program)
    model = stormpy.build_model(program, parsed)
    env = stormpy.environments.sound()
    min_max = env.solver().min_max()
    min_max.relative_termination_criterion = False
    min_max.precision = stormpy.Rational(PRECISION)
    out = []
    for p in parsed:
        value = stormpy.model_checking(model, p, environment=env)[model.initial_states[0]]
        if value.value == float("inf"):
            out.append((value.value, value.value))
        else:
            assert value.has_lower and value.has_upper, p
            out.append((value.lower, value.upper))
    return out


def assert_interval_holds(got, theirs):
    """mavis's certified interval, at most 1e-6 wide, holds Storm's exact
    value (a Fraction) or meets Storm's sound bounds (a pair): each holds
    the true value."""
    lo, hi = got["interval"]
    assert got["method"] == "interval iteration", got
    if lo is None:  # infinite: JSON has no infinity
        assert theirs == (float("inf"), float("inf")), (got, theirs)
        return
    assert hi - lo <= 1e-6, (lo, hi)
    # Both tools iterate in f64, rounding to nearest: a bound can pass the
    # value by a few units in the last place (seen: 2e-16 on the
    # aggregation's S(3)), so the ends are read with a slack of 1e-12
    # relative, far below the precision.
    slack = 1e-12 * max(1.0, abs(hi))
    if isinstance(theirs, Fraction):
        assert lo - slack <= float(theirs) <= hi + slack, (lo, float(theirs), hi)
    else:
        assert lo - slack <= theirs[1] and theirs[0] <= hi + slack, ((lo, hi), theirs)


def assert_equals_storm_exact(args, theirs, method=None):
    """`mavis swarm check ARGS` in f64 and with --exact against Storm's
    exact value: in the interval (or equal, for a value without one), and
    equal fractions; `method` is the exact mode's method, where it has one."""
    got = mavis("check", *args)["results"]["properties"][0]
    if "interval" in got:
        assert_interval_holds(got, theirs)
    else:
        assert abs(got["value"] - float(theirs)) <= 1e-12 * max(1.0, abs(float(theirs))), (got, theirs)
    exact = mavis("check", *args, "--exact")["results"]["properties"][0]
    if method is not None:
        assert exact["method"] == method
    assert Fraction(exact["exact"]) == theirs
