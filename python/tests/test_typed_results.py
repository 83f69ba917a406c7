"""Typed results: witnesses as traces of Python values (replayed here by
hand through each model's rules), statistics as attributes, `to_dict()` as
the CLI's JSON, `to_dataframe()` against the CLI's CSV files and
onnxruntime, and the JSON report handed over as Python values."""
import json
import math
import sys
from fractions import Fraction

import numpy as np
import onnxruntime
import pandas as pd
import pytest

import mavis
from cli_reports import REPO, cli_json, comparable

GUARDING = "examples/guarding/guarding.nis"
MLP = "tests/fixtures/mlp_2_16_16_3.onnx"
SWARM = "examples/foraging/foraging.swarm"
FAULTS = "examples/foraging/foraging.faults"
PLATOON = "examples/cav/platoon2.mapt"


def guarding_health(h, action, someone_guards):
    """The guarding game's update of one agent's health (guarding.nis: Gr = -2,
    Rr = 1, Ur = -3, clamped to [0, Mh = 4]), written out here."""
    change = {"guard": -2, "rest": 1 if someone_guards else -3, "expire": 0}[action]
    return h if action == "expire" else min(max(h + change, 0), 4)


def test_a_nis_counterexample_is_a_trace_that_replays_by_hand():
    r = mavis.nis.check(GUARDING, "forall v1: AX^2 (alive, v1)", agents=2)
    assert r.verdict == "violated" and not r.holds
    w = r.witness
    assert isinstance(w, mavis.Trace) and w.kind == "counterexample"
    steps = w.steps
    assert [s.index for s in steps] == list(range(len(steps))) and len(steps) >= 2
    assert all(isinstance(s, mavis.Step) for s in steps)
    assert [a["h"] for a in steps[0].state["agents"]] == [3, 3]  # `var h : [0..Mh] = 3`
    for before, after in zip(steps, steps[1:]):
        actions = before.action["agents"]
        guards = "guard" in actions
        want = [guarding_health(a["h"], act, guards) for a, act in zip(before.state["agents"], actions)]
        assert [a["h"] for a in after.state["agents"]] == want
    assert steps[-1].action is None
    # Within two steps some agent is no longer alive (h = 0 or expired).
    assert any(a["h"] == 0 or a["percept"] == "expired" for s in steps[1:3] for a in s.state["agents"])
    # The JSON of the trace is the CLI's.
    _, cli = cli_json("nis", "check", GUARDING, "--spec", "forall v1: AX^2 (alive, v1)", "--agents", "2")
    assert w.to_dict() == cli["witness"] and r.witness["kind"] == "counterexample"


def test_a_swarm_witness_has_states_by_column_and_its_probability():
    r = mavis.swarm.check(SWARM, faults=FAULTS, prop='Pmax=? [ F<20 "deposited2" ]', agents=2, witness=True)
    w = r.witness
    assert isinstance(w, mavis.Trace) and w.steps
    assert w["columns"] == ["robot 1", "robot 2", "nest"]
    for s in w.steps:
        assert list(s.state) == w["columns"]
        assert all(isinstance(v, int) for agent in s.state.values() for v in agent.values())
        assert isinstance(s.action, str) and 0 < s.probability <= 1
    # The path ends where "deposited2" (foodDeposited_E > 1) holds, and not before.
    deposited = [s.state["nest"]["foodDeposited"] for s in w.steps]
    assert deposited[-1] > 1 and all(d <= 1 for d in deposited[:-1])
    # The path's probability is the product of its steps' (computed here).
    assert math.isclose(math.prod(s.probability for s in w.steps), w.probability, rel_tol=1e-9)
    assert w.to_dataframe()["step"].tolist() == [s.index for s in w.steps]


def test_a_timed_witness_replays_by_hand_to_a_state_of_the_query():
    r = mavis.timed.check(PLATOON, "EF x1 - x2 < 6")
    assert r.verdict == "holds"
    (name, trace), = r.witness.items()
    assert isinstance(trace, mavis.Trace) and trace.kind == "witness"
    assert trace.initial["vars"] == {"x1": 8, "v1": 2, "x2": 0, "v2": 2, "d2": 8, "brake2": False}
    assert trace.initial["localities"] == {"road": "wait", "car1": "cruise", "car2": "idle"}
    states = [trace.initial] + [s.state for s in trace.steps]
    time = 0
    for before, step in zip(states, trace.steps):
        after = step.state
        # Only the agent that moved changes its locality; time passes by the delays.
        changed = {a for a in after["localities"] if after["localities"][a] != before["localities"][a]}
        assert changed <= {step.agent}
        time += step.delay
        assert step.time == time
        if step.action.startswith("wait -> moved"):  # the road: x1 += v1, x2 += v2
            v = before["vars"]
            assert (after["vars"]["x1"], after["vars"]["x2"]) == (v["x1"] + v["v1"], v["x2"] + v["v2"])
    gaps = [Fraction(s["vars"]["x1"]) - Fraction(s["vars"]["x2"]) for s in states]
    assert gaps[-1] < 6 and all(g >= 6 for g in gaps[:-1])


def test_a_network_counterexample_replays_in_onnxruntime():
    r = mavis.nn.verify_robustness(MLP, x=[0.1, 0.2], eps=0.5, label=0)
    w = r.witness
    assert r.verdict == "violated" and isinstance(w, mavis.Counterexample)
    assert all(abs(a - b) <= 0.5 + 1e-9 for a, b in zip(w.input, [0.1, 0.2]))
    session = onnxruntime.InferenceSession(str(REPO / MLP))
    y = session.run(None, {session.get_inputs()[0].name: np.array([w.input], dtype=np.float32)})[0][0]
    assert np.allclose(y, w.output, atol=1e-4)
    assert max(y[1:]) >= y[0] - 1e-4


def test_stats_are_attributes_of_the_reports_stats():
    r = mavis.nis.check(GUARDING, "forall v1, v2: EX^2 (alive, v1) & (alive, v2)", agents=3)
    assert isinstance(r.stats, mavis.Stats)
    for key, value in r["stats"].items():
        assert getattr(r.stats, key) == value == r.stats[key]
    assert r.stats.timed_out is False and r.timed_out is False
    with pytest.raises(AttributeError, match="time_s"):
        r.stats.no_such_statistic
    assert r.witness is None or isinstance(r.witness, mavis.Trace)


def test_to_dict_is_the_cli_json_as_plain_values():
    r = mavis.nis.check(GUARDING, "forall v1: AX^1 (alive, v1)", agents=2)
    d = r.to_dict()
    assert type(d) is dict and json.loads(json.dumps(d)) == d
    _, cli = cli_json("nis", "check", GUARDING, "--spec", "forall v1: AX^1 (alive, v1)", "--agents", "2")
    assert comparable(d) == comparable(cli)
    d["verdict"] = "changed"
    assert r.verdict == "violated"


def test_the_native_module_hands_over_python_values():
    data, text, notes = mavis._native.run(["mavis", "lang", "eval", "1/3 + 0.15", "--format", "json"])
    assert type(data) is dict and data["results"]["value"] == "29/60"
    _, cli = cli_json("lang", "eval", "1/3 + 0.15")
    assert comparable(data) == comparable(cli)
    data, _, _ = mavis._native.run(["mavis", "nn", "eval", MLP, "--input", "0.1,0.2", "--format", "json"])
    assert all(type(y) is float for y in data["results"]["outputs"][0])


def test_a_table_is_a_dataframe_of_its_cells():
    spec = "forall v1, v2: EX^{k} (alive, v1) & (alive, v2)"
    r = mavis.nis.table(GUARDING, spec, k=range(1, 4), agents=[2, 3])
    df = r.to_dataframe()
    assert len(df) == 6
    for cell in r.results["cells"]:
        row = df[(df["k"] == cell["k"]) & (df["agents"] == cell["agents"])]
        assert row.iloc[0]["holds"] == cell["holds"]
    # The CLI's CSV of the same table says the same verdicts.
    assert df.pivot(index="agents", columns="k", values="holds").values.tolist() == [
        [True, True, False], [True, True, True]]


def test_a_sweep_frame_is_the_csv_the_cli_writes(tmp_path):
    prefix = tmp_path / "sweep"
    r = mavis.swarm.sweep("examples/foraging/foraging_small.swarm", 'Pmax=? [ F<k "deposited2" ]',
                          sweep="pf=0:0.2:0.4", k=(9, 10), agents=2,
                          faults="examples/foraging/foraging_small.faults", out=prefix)
    df = r.to_dataframe()
    csv = pd.read_csv(f"{prefix}.csv")
    assert len(df) == len(csv) == 6
    assert df["k"].tolist() == csv["k"].tolist()
    assert np.allclose(df["p"].astype(float), csv["Pmax"])


def test_a_batch_frame_has_the_inputs_and_onnxruntimes_outputs():
    x = np.array([[0.1, 0.2], [-1.0, 1.0], [0.5, -0.25]])
    df = mavis.nn.eval(MLP, inputs=x).to_dataframe()
    assert list(df.columns) == ["x0", "x1", "y0", "y1", "y2"]
    assert np.array_equal(df[["x0", "x1"]].to_numpy(), x)
    session = onnxruntime.InferenceSession(str(REPO / MLP))
    y = session.run(None, {session.get_inputs()[0].name: x.astype(np.float32)})[0]
    assert np.allclose(df[["y0", "y1", "y2"]].to_numpy(), y, atol=1e-5)


def test_bounds_and_queries_as_frames():
    net = [(np.array([[1.0, -1.0], [-1.0, 1.0]]), np.zeros(2)), (np.eye(2), np.array([0.0, 0.25]))]
    df = mavis.nn.bounds(net, box=(np.zeros(2), np.ones(2))).to_dataframe()
    exact = df[df["stage"] == "exact"].sort_values("output")
    # y0 = relu(x0 - x1) in [0, 1], y1 = relu(x1 - x0) + 0.25 in [0.25, 1.25] over [0, 1]^2.
    assert np.allclose(exact["lo"], [0.0, 0.25], atol=1e-6) and np.allclose(exact["hi"], [1.0, 1.25], atol=1e-6)
    assert (df.groupby("output")["hi"].min() >= [1.0 - 1e-6, 1.25 - 1e-6]).all()
    r = mavis.timed.check(PLATOON, horizon="6p")
    queries = r.to_dataframe()
    assert queries["name"].tolist() == [q["name"] for q in r.results["queries"]] == [
        "collision", "min_gap", "recovery"]


def test_without_pandas_to_dataframe_says_what_to_install(monkeypatch):
    r = mavis.nn.eval(MLP, inputs=[[0.1, 0.2]])
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"needs pandas.*pip install pandas"):
        r.to_dataframe()


def test_a_size_limit_is_an_unknown_verdict_in_pythons_terms():
    """The CLI stops at --max-states with exit 3 and an error object of kind
    `limit`; Python gets a report with verdict unknown and the same reason,
    naming the parameter."""
    prop = 'Pmax=? [ F<13 "deposited2" ]'
    r = mavis.swarm.check(SWARM, faults=FAULTS, prop=prop, abstract=True, threshold=3, max_states=2)
    status, cli = cli_json("swarm", "check", SWARM, "--faults", FAULTS, "--prop", prop, "--abstract",
                           "--threshold", "3", "--max-states", "2")
    assert status == r.exit_code == 3 and cli["error"]["kind"] == "limit"
    assert r.verdict == "unknown" and not r.holds and r.results["kind"] == "limit"
    assert r.results["reason"] == "the abstraction at threshold 3 has 3 initial states, more than max_states=2"
    assert r.results["reason"] == mavis._errors.python_message(cli["error"]["message"])
    assert str(r) == "UNKNOWN: " + r.results["reason"]


def test_from_torch_without_torch_says_what_to_install(monkeypatch):
    """(With torch, python/tests/test_torch.py checks modules against torch's outputs.)"""
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match=r"needs PyTorch.*pip install torch"):
        mavis.nn.from_torch(object())


def test_a_trace_frame_has_a_row_per_step_and_a_column_per_value():
    r = mavis.nis.check(GUARDING, "forall v1: AX^2 (alive, v1)", agents=2)
    df = r.witness.to_dataframe()
    steps = r.witness.steps
    assert df["step"].tolist() == [s.index for s in steps]
    assert df["agents[0].h"].tolist() == [s.state["agents"][0]["h"] for s in steps]
    assert df["action.agents[1]"].tolist()[:-1] == [s.action["agents"][1] for s in steps[:-1]]
