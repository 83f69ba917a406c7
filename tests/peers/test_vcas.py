"""VerticalCAS (examples/vcas/single_agent.nis) against an independent
simulation written from VENMAS's use case (usecases/vcas_single/vcasenv.py,
facts in shared/notes/vcas.md), with the networks evaluated by onnxruntime,
not by mavis.

- Every counterexample mavis reports is replayed here: the advisory of each
  step is the argmax of the network of the previous advisory, each
  acceleration is one the advisory allows, the dynamics are VENMAS's, and the
  last state is unsafe.
- Every "holds" is checked by exhaustive simulation (every pilot choice) from
  a grid of initial altitudes over the initial box.
- Every "violated" is confirmed by the simulation finding an unsafe run too.
"""

import itertools
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from vcas_sim import ADVISORIES, replay as replay_branch, venmas_choices as choices

ort = pytest.importorskip("onnxruntime")

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "examples" / "vcas" / "single_agent.nis"


def mavis_bin():
    if os.environ.get("MAVIS_BIN"):
        return os.environ["MAVIS_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    return str(Path(target) / "release" / "mavis")


@pytest.fixture(scope="module")
def networks():
    sessions = []
    for i in range(1, 10):
        s = ort.InferenceSession(str(REPO / "networks" / "vcas" / f"vcas_{i}.onnx"))
        sessions.append(s)
    return sessions


def scores(networks, prev, h, v, tau):
    s = networks[prev]
    x = np.array([[h / 16000, v / 5000, (tau - 20) / 40]], dtype=np.float32)
    return s.run(None, {s.get_inputs()[0].name: x})[0][0].astype(np.float64)


def advisory(networks, prev, h, v, tau):
    return int(np.argmax(scores(networks, prev, h, v, tau)))


def unsafe_runs(networks, h, v, tau, k):
    """Whether some run of k rounds from (h, v, tau, COC) ends with |h| <= 100."""
    frontier = [(h, v, tau, 0)]
    for _ in range(k):
        nxt = []
        for h, v, tau, prev in frontier:
            adv = advisory(networks, prev, h, v, tau)
            for acc in set(choices(adv, prev, v)):
                nxt.append((h - v - acc / 2, v + acc, tau - 1, adv))
        frontier = nxt
    return any(abs(h) <= 100 for h, _, _, _ in frontier)


def check(k, v0):
    r = subprocess.run(
        [mavis_bin(), "--format", "json", "nis", "check", str(MODEL), "--agents", "1",
         "--spec", f"AX^{k} safe", "--set", f"V0={v0}", "--engine", "milp"],
        capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


def replay(networks, branch, v0):
    boxes = [(-133, -129), (v0, v0), (25, 25)]
    replay_branch(lambda *state: scores(networks, *state), branch, boxes, 0)


@pytest.mark.parametrize("k,v0", list(itertools.product([1, 2, 3, 4], [-19.5, -35])))
def test_verdicts_agree_with_the_simulation(networks, k, v0):
    report = check(k, v0)
    grid = np.linspace(-133, -129, 9)
    simulated = any(unsafe_runs(networks, h, v0, 25, k) for h in grid)
    if report["verdict"] == "holds":
        assert not simulated, "the simulation found an unsafe run on the grid"
    else:
        assert report["verdict"] == "violated"
        for branch in report["witness"]["branches"]:
            replay(networks, branch, v0)
        assert simulated, "the simulation finds no unsafe run from the grid"


def test_the_default_query_holds_and_the_steep_descent_fails(networks):
    # VENMAS's default (climbrate -19.5) is safe for k = 1..4; -35 ft/s is not
    # from k = 2 on (the simulation agrees, above).
    assert [check(k, -19.5)["verdict"] for k in (1, 2, 3, 4)] == ["holds"] * 4
    assert [check(k, -35)["verdict"] for k in (1, 2, 3, 4)] == ["violated"] * 4
