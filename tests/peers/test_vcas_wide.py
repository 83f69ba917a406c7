"""VerticalCAS over wider initial sets (examples/vcas/variants.py, issue 32)
against an independent simulation: the networks in onnxruntime, VENMAS's
dynamics and pilot choices as in test_vcas.py, not mavis's semantics.

- Every "violated" must come with a counterexample that replays here: it
  starts in the variant's initial box with its previous advisory, each
  advisory is the argmax of the network of the previous one, each
  acceleration one the advisory allows, the dynamics are VENMAS's, and the
  last state is unsafe.
- Every "holds" is checked by simulating every pilot choice from a grid of
  initial states over the box (corners, centre and a lattice): no run is
  unsafe after k rounds.
"""

import importlib.util
import itertools
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from test_vcas import mavis_bin, networks, scores  # noqa: F401 (fixture)
from vcas_sim import ADVISORIES, replay as replay_branch, venmas_choices as choices

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("variants", REPO / "examples" / "vcas" / "variants.py")
variants = importlib.util.module_from_spec(spec)
spec.loader.exec_module(variants)

KS = [1, 2, 3, 4]
CELLS = list(itertools.product(variants.VARIANTS, KS))


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    return variants.write(tmp_path_factory.mktemp("vcas_variants"))


def unsafe_from(networks, state, k):
    """Whether some run of k rounds from state (h, v, tau, prev) ends with |h| <= 100."""
    frontier = [state]
    for _ in range(k):
        nxt = []
        for h, v, tau, prev in frontier:
            adv = int(np.argmax(scores(networks, prev, h, v, tau)))
            for acc in set(choices(adv, prev, v)):
                nxt.append((h - v - acc / 2, v + acc, tau - 1, adv))
        frontier = nxt
    return any(abs(h) <= 100 for h, _, _, _ in frontier)


def grid(box, points):
    lo, hi = box
    return [lo] if lo == hi else list(np.linspace(lo, hi, points))


def replay(networks, branch, variant):
    (hbox, vbox, tbox, prev_name) = variant
    prev = ADVISORIES.index(prev_name)
    replay_branch(lambda *state: scores(networks, *state), branch, [hbox, vbox, tbox], prev)


@pytest.mark.parametrize("name,k", CELLS)
def test_verdicts_agree_with_the_simulation(networks, models, name, k):
    r = subprocess.run(
        [mavis_bin(), "--format", "json", "nis", "check", str(models / f"{name}.nis"),
         "--agents", "1", "--spec", f"AX^{k} safe", "--timeout", "120"],
        capture_output=True, text=True)
    assert r.returncode in (0, 1), r.stderr
    report = json.loads(r.stdout)
    variant = variants.VARIANTS[name]
    (hbox, vbox, tbox, prev_name) = variant
    if report["verdict"] == "violated":
        for branch in report["witness"]["branches"]:
            replay(networks, branch, variant)
    else:
        assert report["verdict"] == "holds"
        prev = ADVISORIES.index(prev_name)
        starts = itertools.product(grid(hbox, 9), grid(vbox, 3), grid(tbox, 3))
        for h, v, tau in starts:
            assert not unsafe_from(networks, (h, v, tau, prev), k), f"unsafe from h={h} v={v} tau={tau}"
