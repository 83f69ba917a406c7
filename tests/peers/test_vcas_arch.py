"""ARCH-COMP's VCAS benchmark (examples/vcas/arch_comp.py: h in [-133, -129],
climbrate each of -19.5, -22.5, -25.5, -28.5 ft/s, tau = 25, previous
advisory COC, AX^k safe for k = 1..10) with VENMAS's nondeterministic pilot
and ARCH-COMP's deterministic central one, against the independent
simulation of vcas_sim.py (networks in float64 numpy from the ONNX weights,
checked here against onnxruntime):

- every "violated" comes with a counterexample whose every branch replays
  under that pilot (vcas_sim.replay), and the simulation finds an unsafe run
  from some initial state of a grid too;
- every "holds" is checked by following every pilot choice (and every exact
  argmax tie) from a grid of 17 initial altitudes over [-133, -129], corners
  included: no run is unsafe after k rounds.

The rows over all four climbrates at once (the competition's instance) must
be the conjunction of the four rows.
"""

import functools
import itertools
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from test_vcas import REPO, mavis_bin, networks, scores  # noqa: F401 (fixture)
from vcas_sim import PILOTS, NumpyNetworks, replay, unsafe_steps

sys.path.insert(0, str(REPO / "examples" / "vcas"))
import arch_comp  # noqa: E402

KS = list(range(1, 11))
GRID = np.linspace(-133, -129, 17)


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return arch_comp.write(tmp_path_factory.mktemp("vcas_arch"))


@functools.cache
def numpy_networks():
    return NumpyNetworks([REPO / "networks" / "vcas" / f"vcas_{i}.onnx" for i in range(1, 10)])


@functools.cache
def simulated(pilot, v0):
    """Per k = 1..10, the grid's initial altitudes with an unsafe run after k rounds."""
    per_start = [unsafe_steps(numpy_networks(), (h, v0, 25.0, 0), KS[-1], PILOTS[pilot]) for h in GRID]
    return [[h for h, steps in zip(GRID, per_start) if steps[k - 1]] for k in KS]


def test_the_numpy_networks_are_onnxruntimes(networks):
    rng = np.random.default_rng(7)
    nets = numpy_networks()
    for prev in range(9):
        for h, v, tau in zip(rng.uniform(-3000, 3000, 20), rng.uniform(-60, 60, 20), rng.uniform(0, 40, 20)):
            ours = nets.scores(prev, [(h, v, tau)])[0]
            theirs = scores(networks, prev, h, v, tau)
            assert np.allclose(ours, theirs, atol=1e-4), (prev, h, v, tau)


def check(models, pilot, v0, k):
    r = subprocess.run(
        [mavis_bin(), "--format", "json", "nis", "check", str(models / f"{arch_comp.name(pilot, v0)}.nis"),
         "--agents", "1", "--spec", f"AX^{k} safe", "--timeout", "300"],
        capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("pilot,v0,k", list(itertools.product(PILOTS, arch_comp.CLIMBRATES, KS)))
def test_verdicts_agree_with_the_simulation(networks, models, pilot, v0, k):
    report = check(models, pilot, v0, k)
    unsafe = simulated(pilot, v0)[k - 1]
    if report["verdict"] == "holds":
        assert not unsafe, f"unsafe after {k} rounds from h = {unsafe}"
        return
    assert report["verdict"] == "violated"
    assert unsafe, "the simulation finds no unsafe run from the grid"
    boxes = [(-133, -129), (v0, v0), (25, 25)]
    for branch in report["witness"]["branches"]:
        replay(lambda *state: scores(networks, *state), branch, boxes, 0, PILOTS[pilot])


@pytest.mark.parametrize("pilot,k", list(itertools.product(PILOTS, [1, 2, 4, 6])))
def test_the_competitions_instance_is_the_conjunction_of_its_climbrates(networks, models, pilot, k):
    report = check(models, pilot, None, k)
    expected = "violated" if any(simulated(pilot, v0)[k - 1] for v0 in arch_comp.CLIMBRATES) else "holds"
    assert report["verdict"] == expected
    if expected == "violated":
        v0 = report["witness"]["branches"][0][0]["env"]["v"]
        assert v0 in arch_comp.CLIMBRATES
        for branch in report["witness"]["branches"]:
            boxes = [(-133, -129), (v0, v0), (25, 25)]
            replay(lambda *state: scores(networks, *state), branch, boxes, 0, PILOTS[pilot])
