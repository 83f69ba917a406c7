"""Networks as arrays, bytes and paths; models loaded once; errors as
exceptions with the CLI's messages; time-outs; the GIL released."""
import threading
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import mavis
from cli_reports import REPO, cli_json, comparable

GUARDING = "examples/guarding/guarding.nis"
NETWORK = "networks/guarding.onnx"
SPEC = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)"
SPECS = [f"forall v1, v2: EX^{k} (alive, v1) & (alive, v2)" for k in (1, 2, 3)] + [
    f"forall v1, v2: AX^{k} (alive, v1) & (alive, v2)" for k in (1, 2)]


def gemm_layers(path):
    """The (W, b) of each Gemm (transB = 1) of an ONNX file, as numpy arrays."""
    model = onnx.load(str(path))
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return [(inits[n.input[1]], inits[n.input[2]]) for n in model.graph.node if n.op_type == "Gemm"]


def flipped_layers():
    """The bundled network with Q(rest) and Q(guard) swapped: another decision pattern."""
    layers = gemm_layers(REPO / NETWORK)
    w, b = layers[-1]
    return layers[:-1] + [(w[::-1].copy(), b[::-1].copy())]


def test_arrays_bytes_and_path_give_the_same_verdicts():
    layers = gemm_layers(REPO / NETWORK)
    as_bytes = (REPO / NETWORK).read_bytes()
    lists = [(w.tolist(), b.tolist()) for w, b in layers]
    for spec in SPECS:
        by_path = mavis.nis.verify(GUARDING, spec, networks={"policy": NETWORK})
        for given in (layers, as_bytes, lists, mavis.Network.from_layers(lists)):
            r = mavis.nis.verify(GUARDING, spec, networks={"policy": given})
            assert comparable((r.verdict, r.results, r.get("witness"))) == comparable(
                (by_path.verdict, by_path.results, by_path.get("witness"))), spec


def test_arrays_give_the_verdicts_of_their_onnx_export_through_the_cli(tmp_path):
    """A network that is not the bundled one: arrays in process against the
    CLI on the same weights written as ONNX."""
    layers = flipped_layers()
    onnx_file = tmp_path / "flipped.onnx"
    model = onnx.load(str(REPO / NETWORK))
    last_gemm = [n for n in model.graph.node if n.op_type == "Gemm"][-1]
    for init in model.graph.initializer:
        if init.name in (last_gemm.input[1], last_gemm.input[2]):
            init.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(init)[::-1].copy(), init.name))
    onnx.save(model, str(onnx_file))
    verdicts = []
    for spec in SPECS:
        r = mavis.nis.verify(GUARDING, spec, networks={"policy": layers})
        _, cli = cli_json("nis", "verify", GUARDING, "--spec", spec, "--network", f"policy={onnx_file}")
        assert comparable((r.verdict, r.results)) == comparable((cli["verdict"], cli["results"])), spec
        verdicts.append(r.verdict)
    original = [mavis.nis.verify(GUARDING, s).verdict for s in SPECS]
    assert verdicts != original, "the flipped network should change some verdict"


def test_a_model_loaded_once_checks_many_networks():
    m = mavis.nis.Model.load(GUARDING)
    assert m.network_names == ["policy"]
    for layers in (gemm_layers(REPO / NETWORK), flipped_layers()):
        for spec in SPECS:
            r = m.verify(spec, networks={"policy": layers})
            fresh = mavis.nis.verify(GUARDING, spec, networks={"policy": layers})
            assert comparable((r.verdict, r.results, r.get("witness"))) == comparable(
                (fresh.verdict, fresh.results, fresh.get("witness")))
    # Without networks the model keeps its own.
    assert comparable(m.check(SPEC, agents=3).results) == comparable(
        mavis.nis.check(GUARDING, SPEC, agents=3).results)
    assert mavis.nis.emergence(m, SPEC).results["emergence_threshold"] == 3


def test_a_model_loaded_with_arrays_has_no_network_file_in_its_report():
    m = mavis.nis.Model.load(GUARDING, networks={"policy": flipped_layers()})
    r = m.check(SPEC, agents=2)
    assert "networks" not in r["model"]
    on_file = mavis.nis.check(GUARDING, SPEC, agents=2)
    assert [n["name"] for n in on_file["model"]["networks"]] == ["policy"]


def error_message(*args):
    status, out = cli_json(*args)
    assert status == 2 and out["error"]["kind"] == "input"
    return out["error"]["message"]


def test_a_bad_model_raises_input_error_with_the_cli_message(tmp_path):
    bad = tmp_path / "bad.nis"
    bad.write_text((REPO / GUARDING).read_text().replace("var h : [0..Mh] = 3;", "var h : [0..Mh] = ;")
                   .replace('"../../networks/guarding.onnx"', f'"{REPO / NETWORK}"'))
    with pytest.raises(mavis.InputError) as e:
        mavis.nis.verify(bad, SPEC)
    assert str(e.value) == error_message("nis", "verify", str(bad), "--spec", SPEC)
    assert f"{bad}:14:" in str(e.value)  # file:line:column
    with pytest.raises(mavis.InputError) as again:
        mavis.nis.Model.load(bad)
    assert str(again.value) == str(e.value)


def test_a_bad_spec_raises_input_error_with_the_cli_message():
    spec = "forall v1, v2: EX^3 (alve, v1)"
    with pytest.raises(mavis.InputError) as e:
        mavis.nis.check(GUARDING, spec, agents=2)
    assert str(e.value) == error_message("nis", "check", GUARDING, "--spec", spec, "--agents", "2")
    assert "alve" in str(e.value)
    with pytest.raises(mavis.InputError):
        mavis.nis.Model.load(GUARDING).verify(spec)


def test_a_bad_network_raises_input_error():
    bad = "tests/fixtures/not_onnx.onnx"
    with pytest.raises(mavis.InputError) as e:
        mavis.nis.verify(GUARDING, SPEC, networks={"policy": bad})
    assert str(e.value) == error_message("nis", "verify", GUARDING, "--spec", SPEC, "--network", f"policy={bad}")
    with pytest.raises(mavis.InputError, match="ONNX bytes"):
        mavis.nis.verify(GUARDING, SPEC, networks={"policy": b"not an onnx model"})
    layers = gemm_layers(REPO / NETWORK)
    w0, b0 = layers[0]
    with pytest.raises(mavis.InputError, match="layer 1 expects"):
        mavis.nis.verify(GUARDING, SPEC, networks={"policy": [(w0, b0), (np.ones((2, 3)), np.zeros(2))]})
    with pytest.raises(mavis.InputError, match="NaN or infinite"):
        mavis.nis.verify(GUARDING, SPEC, networks={"policy": [(w0 * np.nan, b0)] + layers[1:]})
    with pytest.raises(mavis.InputError, match="2 input"):  # a network of the wrong shape
        mavis.nis.Model.load(GUARDING).verify(SPEC, networks={"policy": [(np.ones((2, 2)), np.zeros(2))]})
    with pytest.raises(mavis.InputError, match="declares no network `value`"):
        mavis.nis.Model.load(GUARDING).verify(SPEC, networks={"value": layers})


def test_bad_options_are_input_errors_and_verdicts_are_never_exceptions():
    with pytest.raises(mavis.InputError, match="invalid value 'fast'"):
        mavis.nis.check(GUARDING, SPEC, agents=2, engine="fast")
    r = mavis.nis.check(GUARDING, "forall v1, v2: AX^3 (alive, v1) & (alive, v2)", agents=2)
    assert r.verdict == "violated" and r.exit_code == 1 and r.witness


def test_a_timeout_gives_verdict_unknown():
    """nis table over a grid that takes seconds, cut at 0.3 s: verdict unknown,
    as from the CLI, and the call returns within the CLI's backstop."""
    args = dict(k=range(1, 7), agents=range(2, 7), engine="milp", timeout=0.3, falsify_samples=0)
    start = time.perf_counter()
    r = mavis.nis.table(GUARDING, "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)", **args)
    elapsed = time.perf_counter() - start
    assert r.verdict == "unknown" and r.stats.get("timed_out") is True
    assert elapsed < 0.3 + 1.0
    status, cli = cli_json("nis", "table", GUARDING, "--spec", "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)",
                           "--k", "1..6", "--agents", "2..6", "--engine", "milp", "--timeout", "0.3",
                           "--falsify-samples", "0")
    assert status == 3 and cli["verdict"] == "unknown"


def test_the_gil_is_released_while_solving():
    """Python code keeps running on the main thread during a call of about a
    second on another thread: the longest pause between two of its steps is
    a small part of the call. With the GIL held, one pause would last the
    whole call."""
    done = threading.Event()
    timing = {}

    def verify():
        start = time.perf_counter()
        timing["r"] = mavis.nis.table(GUARDING, "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)",
                                      k=range(1, 6), agents=range(2, 6), engine="milp",
                                      falsify_samples=0)
        timing["call"] = time.perf_counter() - start
        done.set()

    worker = threading.Thread(target=verify)
    worker.start()
    last, longest = time.perf_counter(), 0.0
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
        time.sleep(0.001)
    worker.join()
    assert timing["r"]["command"] == "table" and timing["r"].results
    assert timing["call"] > 0.2, "the call was too short to tell"
    assert longest < timing["call"] / 2


@pytest.mark.parametrize("verb,args", [
    ("check", dict(spec=SPEC, agents=3, engine="both")),
    ("check", dict(spec=SPEC, abstract=True)),
    ("table", dict(spec="forall v1, v2: EX^{k} (alive, v1) & (alive, v2)", k=range(1, 3), agents=[2, 3])),
    ("simulates", dict(indexed=2, depth=3)),
    ("simulates", dict(indexed=2, depth=2, agents=3, reverse=True)),
    ("verify", dict(spec=SPEC, simulation="bound")),
    ("emergence", dict(spec=SPEC)),
])
def test_every_model_method_is_the_function_on_the_file(verb, args):
    m = mavis.nis.Model.load(GUARDING)
    by_method = getattr(m, verb)(**args)
    by_function = getattr(mavis.nis, verb)(GUARDING, **args)
    assert comparable(dict(by_method)) == comparable(dict(by_function))


def test_a_timeout_keeps_the_timed_queries_decided_before_it(tmp_path):
    """timed check with `timeout`, as the CLI (issue 33, item 5): the first
    query is decided at once, the second (the six-car platoon's smallest
    gap) is cut by the deadline. The report keeps the first query's verdict
    and says unknown for the second; before, it said only that the run was
    stopped."""
    platoon = (REPO / "examples/cav/platoon6.mapt").read_text()
    text = "".join(line + "\n" for line in platoon.splitlines() if not line.startswith("query "))
    text += "query ahead: EF x1 - x2 > 0;\n"
    text += "query min_gap: min min(x1 - x2, x2 - x3, x3 - x4, x4 - x5, x5 - x6);\n"
    model = tmp_path / "platoon6_two.mapt"
    model.write_text(text)
    r = mavis.timed.check(model, timeout=8)
    assert r.verdict == "unknown" and r.exit_code == 3 and r.stats.get("timed_out") is True
    queries = {q["name"]: q for q in r.results["queries"]}
    assert list(queries) == ["ahead", "min_gap"]
    assert queries["ahead"]["verdict"] == "holds" and r.witness["ahead"]["kind"] == "witness"
    assert queries["min_gap"]["verdict"] == "unknown" and queries["min_gap"]["complete"] is False
