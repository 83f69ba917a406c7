"""The seed's foraging swarm (examples/foraging/foraging.swarm with the
drop-food fault of foraging.faults) against an independent PRISM encoding
written here by hand and run by Storm (stormpy): S(n) and the set
abstraction must have Storm's numbers of states, choices and transitions
(built without properties) and the same Pmax values. Definition 13's flags
are projected away when nothing reads them (14 local states per robot, not
27); `--fault-flags` keeps them, and then the sizes are those of an encoding
with the two Booleans."""

import json
import os
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

stormpy = pytest.importorskip("stormpy")

REPO = Path(__file__).resolve().parents[2]
EX = REPO / "examples" / "foraging"
MODEL, FAULTS = str(EX / "foraging.swarm"), str(EX / "foraging.faults")
TRIP = 4
PROP = 'Pmax=? [ F<20 "deposited2" ]'


def mavis_bin():
    if os.environ.get("MAVIS_BIN"):
        return os.environ["MAVIS_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    return str(Path(target) / "release" / "mavis")


def mavis(*args, ok=(0, 1, 3)):
    r = subprocess.run([mavis_bin(), "--format", "json", "swarm", *args], capture_output=True, text=True)
    assert r.returncode in ok, r.stderr
    return json.loads(r.stdout)


def robot_commands(i, pf, flags):
    """Robot i's commands, the fault multiplied into the moves that carry food."""
    s, t, d = f"state{i}", f"t{i}", f"d{i}"
    # With the flags tracked, every move of the robot sets `injected` to
    # whether the fault struck, and `faulty` once it has.
    clean = f"(injected{i}'=false)" if flags else ""
    fault = f"&(injected{i}'=true)&(faulty{i}'=true)" if flags else ""

    def upd(*assigns):
        parts = [f"({a})" for a in assigns] + ([clean] if flags else [])
        return "&".join(parts) if parts else "true"

    def drop(*assigns):
        return "&".join(f"({a})" for a in assigns) + fault

    q = 1 - pf
    s0, s2, s3, s4, s5, s6 = (f"{s}'={v}" for v in (0, 2, 3, 4, 5, 6))
    t0, t1, d0, dtrip, dstep = f"{t}'=0", f"{t}'=1", f"{d}'=0", f"{d}'={TRIP}", f"{d}'={d}-1"
    s1 = f"{s}'=1"
    return [
        f"[] {s}=0 -> 0.5:{upd(s1)} + 0.5:{upd()};",
        f"[] {s}=1 & {t}=0 -> 0.3:{upd(s2)} + 0.7:{upd(t1)};",
        f"[] {s}=1 & {t}=1 -> 0.3:{upd(s2, t0)} + 0.7:{upd(s0, t0)};",
        f"[] {s}=2 -> 1:{upd(s3)};",
        f"[] {s}=3 -> 1:{upd(s4, dtrip)};",
        f"[] {s}=4 & {d}>1 -> {pf}:{drop(s6, dstep)} + {q}:{upd(dstep)};",
        f"[] {s}=4 & {d}=1 -> {pf}:{drop(s6, d0)} + {q}:{upd(s5, d0)};",
        f"[deposit{i}] {s}=5 -> 1:{upd(s0)};",
        f"[] {s}=6 & {d}>0 -> 1:{upd(dstep)};",
        f"[] {s}=6 & {d}=0 -> 1:{upd(s0)};",
    ]


def prism_concrete(n, pf, flags=False):
    """S(n) in PRISM: one module per robot, the nest synchronising on each robot's deposit."""
    out = ["mdp", ""]
    for i in range(1, n + 1):
        out.append(f"module robot{i}")
        out.append(f"  state{i} : [0..6] init 0;")
        out.append(f"  t{i} : [0..1] init 0;")
        out.append(f"  d{i} : [0..{TRIP}] init 0;")
        if flags:
            out.append(f"  faulty{i} : bool init false;")
            out.append(f"  injected{i} : bool init false;")
        out += ["  " + c for c in robot_commands(i, pf, flags)]
        out.append("endmodule")
    out.append("module nest")
    out.append("  food : [0..2] init 0;")
    for i in range(1, n + 1):
        out.append(f"  [deposit{i}] true -> (food'=min(food+1, 2));")
    out.append("endmodule")
    out.append('label "deposited2" = food > 1;')
    return "\n".join(out) + "\n"


# The robot's 14 local states (state, t, d) and their commands: (is_deposit,
# [(probability, target)]); the fault already multiplied in.
def local_table(pf):
    table = {
        (0, 0, 0): [(False, [(0.5, (1, 0, 0)), (0.5, (0, 0, 0))])],
        (1, 0, 0): [(False, [(0.3, (2, 0, 0)), (0.7, (1, 1, 0))])],
        (1, 1, 0): [(False, [(0.3, (2, 0, 0)), (0.7, (0, 0, 0))])],
        (2, 0, 0): [(False, [(1.0, (3, 0, 0))])],
        (3, 0, 0): [(False, [(1.0, (4, 0, TRIP))])],
        (5, 0, 0): [(True, [(1.0, (0, 0, 0))])],
        (6, 0, 0): [(False, [(1.0, (0, 0, 0))])],
    }
    for d in range(1, TRIP + 1):
        home = (5, 0, 0) if d == 1 else (4, 0, d - 1)
        table[(4, 0, d)] = [(False, [(pf, (6, 0, d - 1)), (1 - pf, home)])]
        if d < TRIP:
            table[(6, 0, d)] = [(False, [(1.0, (6, 0, d - 1))])]
    assert len(table) == 14
    return table


def prism_set_abstraction(pf):
    """The set abstraction (Booleans: which local states are occupied), one
    module: each occupied local state's command either keeps it occupied (two
    or more robots there) or empties it (exactly one)."""
    table = local_table(pf)
    names = {s: f"b{k}" for k, s in enumerate(sorted(table))}
    out = ["mdp", "", "module abstraction"]
    for s, b in names.items():
        out.append(f"  {b} : bool init {'true' if s == (0, 0, 0) else 'false'};")
    out.append("  food : [0..2] init 0;")
    for s, cmds in table.items():
        b = names[s]
        for deposit, dist in cmds:
            extra = "&(food'=min(food+1, 2))" if deposit else ""
            stay = " + ".join(f"{p}:({names[t]}'=true){extra}" for p, t in dist)
            leave = " + ".join(
                f"{p}:({b}'={'true' if t == s else 'false'})" + ("" if t == s else f"&({names[t]}'=true)") + extra
                for p, t in dist
            )
            out.append(f"  [] {b} -> {stay};")
            out.append(f"  [] {b} -> {leave};")
    out.append("endmodule")
    out.append('label "deposited2" = food > 1;')
    return "\n".join(out) + "\n"


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


def test_prism_export_of_more_than_1e5_states_loads_in_storm(tmp_path):
    """S(4), 115,248 states: the exported PRISM has our sizes and value."""
    path = export(tmp_path, 4, "prism")
    built = stormpy.build_model(stormpy.parse_prism_program(str(path)))
    assert (built.nr_states, built.nr_choices, built.nr_transitions) == (115248, 460992, 691488)
    value = storm(tmp_path, path.read_text(), "again.prism", PROP)
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--agents", "4", "--prop", PROP)
    assert sizes(ours) == (built.nr_states, built.nr_choices, built.nr_transitions)
    assert abs(ours["results"]["properties"][0]["value"] - value) <= 1e-9


def test_jani_export_is_streamed_and_loads_in_storm(tmp_path):
    """S(3) through JANI (Storm needs minutes for the 115,248 states of S(4)
    there, though the export writes them in seconds and little memory)."""
    path = export(tmp_path, 3, "jani")
    jani, _ = stormpy.parse_jani_model(str(path))
    options = stormpy.BuilderOptions()
    options.set_build_all_labels()
    built = stormpy.build_model(jani, options=options)
    assert built.nr_states == 3 * 14**3
    ours = mavis("check", MODEL, "--faults", FAULTS, "--set", "pf=0.4", "--agents", "3", "--prop", PROP)
    assert sizes(ours) == (built.nr_states, built.nr_choices, built.nr_transitions)
