"""An independent simulation of the VerticalCAS scenarios, shared by the
VerticalCAS peer tests (test_vcas.py, test_vcas_wide.py, test_vcas_arch.py).
Written from the scenarios' published descriptions (VENMAS's use case,
ARCH-COMP's benchmark as JuliaReach's ClosedLoopReachability.jl states it;
facts in shared/notes/vcas.md), not from mavis's semantics; the networks are
evaluated by onnxruntime or by numpy from the ONNX files' weights.

- `venmas_choices`: VENMAS's nondeterministic pilot (three accelerations per
  advisory, or keeping the climbrate when the advisory is unchanged and the
  climbrate complies in the units of VENMAS's state).
- `central_choices`: ARCH-COMP's deterministic pilot (the advisory's central
  acceleration; 0 when the advisory is unchanged and 60 v, in ft/min,
  complies with it).
- `replay`: checks one branch of a counterexample step by step.
- `NumpyNetworks`, `unsafe_steps`: every run of every pilot choice from one
  initial state, all states of a step evaluated at once.
"""

import numpy as np
import pytest

G = 32.2
ADVISORIES = ["COC", "DNC", "DND", "DES1500", "CL1500", "SDES1500", "SCL1500", "SDES2500", "SCL2500"]
# VENMAS's NEXT_ACCELERATION (three branches per advisory).
ACCELERATIONS = {
    0: [-G / 8, 0.0, G / 8],
    1: [-G / 3, -G * 7 / 24, -G / 4],
    2: [G / 4, G * 7 / 24, G / 3],
    3: [-G / 3, -G * 7 / 24, -G / 4],
    4: [G / 4, G * 7 / 24, G / 3],
    5: [-G / 3] * 3,
    6: [G / 3] * 3,
    7: [-G / 3] * 3,
    8: [G / 3] * 3,
}
# VENMAS's compliance: the climbrate already obeys the advisory.
COMPLIES = {
    1: lambda v: v <= 0,
    2: lambda v: v >= 0,
    3: lambda v: v <= -1500,
    4: lambda v: v >= 1500,
    5: lambda v: v <= -1500,
    6: lambda v: v >= 1500,
    7: lambda v: v <= -2500,
    8: lambda v: v >= 2500,
}
# ARCH-COMP's central accelerations and its compliance, in ft/min.
CENTRAL = {0: 0.0, 1: -7 * G / 24, 2: 7 * G / 24, 3: -7 * G / 24, 4: 7 * G / 24,
           5: -G / 3, 6: G / 3, 7: -G / 3, 8: G / 3}
COMPLIES_FT_MIN = {1: (None, 0), 2: (0, None), 3: (None, -1500), 4: (1500, None),
                   5: (None, -1500), 6: (1500, None), 7: (None, -2500), 8: (2500, None)}


def venmas_choices(adv, prev, v):
    """The accelerations VENMAS's pilot may take under `adv`."""
    accs = list(ACCELERATIONS[adv])
    if adv != 0 and adv == prev and COMPLIES[adv](v):
        accs.append(0.0)
    return accs


def central_choices(adv, prev, v):
    """ARCH-COMP's one acceleration under `adv`."""
    if adv != 0 and adv == prev:
        lo, hi = COMPLIES_FT_MIN[adv]
        if (lo is None or 60 * v >= lo) and (hi is None or 60 * v <= hi):
            return [0.0]
    return [CENTRAL[adv]]


PILOTS = {"venmas": venmas_choices, "central": central_choices}


def replay(scores, branch, boxes, prev, choices=venmas_choices):
    """Replays one branch of a counterexample: it starts in `boxes` (h, v,
    tau intervals) with previous advisory `prev`, each advisory is the argmax
    of `scores(prev, h, v, tau)` (the previous advisory's network), each
    acceleration one of `choices`, the dynamics are h' = h - v - acc/2,
    v' = v + acc, tau' = tau - 1, and the last state is unsafe."""
    first = branch[0]["env"]
    for (lo, hi), x in zip(boxes, [first["h"], first["v"], first["tau"]]):
        assert lo - 1e-9 <= x <= hi + 1e-9, f"{x} is not in [{lo}, {hi}]"
    assert first["prev"] == prev
    for step, nxt in zip(branch, branch[1:]):
        e = step["env"]
        h, v, tau = e["h"], e["v"], e["tau"]
        assert e["prev"] == prev
        y = scores(prev, h, v, tau)
        adv = ADVISORIES.index(step["agents"][0]["percept"])
        assert y[adv] >= y.max() - 1e-6, f"step {step['step']}: {ADVISORIES[adv]} is not the argmax"
        n = nxt["env"]
        acc = n["v"] - v
        assert any(abs(acc - a) < 1e-6 for a in choices(adv, prev, v)), f"acceleration {acc}"
        assert n["h"] == pytest.approx(h - v - acc / 2, abs=1e-6)
        assert n["tau"] == pytest.approx(tau - 1)
        prev = adv
    assert abs(branch[-1]["env"]["h"]) <= 100 + 1e-6


class NumpyNetworks:
    """The nine networks in float64 numpy, from the ONNX files' Gemm and
    Relu nodes (checked against onnxruntime by test_vcas_arch.py)."""

    def __init__(self, paths):
        import onnx
        from onnx import numpy_helper

        self.layers = []
        for path in paths:
            g = onnx.load(str(path)).graph
            weights = {i.name: numpy_helper.to_array(i).astype(np.float64) for i in g.initializer}
            layers = []
            for node in g.node:
                if node.op_type == "Gemm":
                    trans_b = any(a.name == "transB" and a.i for a in node.attribute)
                    w = weights[node.input[1]]
                    layers.append(("gemm", w.T if trans_b else w, weights[node.input[2]]))
                elif node.op_type == "Relu":
                    layers.append(("relu",))
                else:
                    raise ValueError(f"unexpected node {node.op_type}")
            self.layers.append(layers)

    def scores(self, prev, hvt):
        """Outputs of network `prev` at rows (h, v, tau), normalised as the
        scenario does: (h / 16000, v / 5000, (tau - 20) / 40)."""
        x = np.asarray(hvt, dtype=np.float64) / [16000.0, 5000.0, 40.0] - [0.0, 0.0, 0.5]
        for layer in self.layers[prev]:
            x = x @ layer[1] + layer[2] if layer[0] == "gemm" else np.maximum(x, 0.0)
        return x


def unsafe_steps(nets, state, k, choices):
    """For t = 1..k, whether some run of t rounds from `state` (h, v, tau,
    prev) under every choice of the pilot ends with |h| <= 100. Argmax ties
    (exact, in float64) follow every maximal advisory."""
    frontier = {tuple(state)}
    out = []
    for _ in range(k):
        nxt = set()
        by_prev = {}
        for s in frontier:
            by_prev.setdefault(s[3], []).append(s)
        for prev, states in by_prev.items():
            y = nets.scores(prev, [s[:3] for s in states])
            for (h, v, tau, _), row in zip(states, y):
                for adv in np.flatnonzero(row == row.max()):
                    for acc in set(choices(int(adv), prev, v)):
                        nxt.add((h - v - acc / 2, v + acc, tau - 1, int(adv)))
        frontier = nxt
        out.append(any(abs(s[0]) <= 100 for s in frontier))
    return out
