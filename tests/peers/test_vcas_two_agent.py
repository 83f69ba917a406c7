"""VerticalCAS with two aircraft (examples/vcas/two_agent.nis) against an
independent game solver: the networks are evaluated by onnxruntime, not by
mavis, and the ATL sentences by plain recursion over the game tree.

The game (facts: shared/notes/vcas.md; VENMAS's two-branch acceleration
table, as the model's header states): each second each aircraft's advisory
is the argmax of the network of its own previous advisory at (side * h /
16000, v / 5000, (tau - 20) / 40); each pilot takes one of the advisory's
two accelerations, or keeps its climbrate when the advisory is unchanged
and the climbrate complies; h' = h - v_own - acc_own / 2 + v_int + acc_int
/ 2. `<<G>> X^k phi`: G has moves such that whatever the other aircraft does
and whichever percept an argmax tie gives, phi holds after k rounds, from
every initial state (Definition 8); `[[G]] X^k phi` is `!<<G>> X^k !phi`.

- "holds": the solver agrees on a grid of initial altitudes over the box.
- "violated": every branch of mavis's witness is replayed step by step
  (advisories, accelerations, dynamics, the goal's negation at the end), and
  the solver confirms the sentence fails from the witness's initial state.
"""

import itertools
import json
import subprocess

import numpy as np
import pytest

from test_vcas import REPO, mavis_bin, networks, scores  # noqa: F401
from vcas_sim import ADVISORIES, COMPLIES

MODEL = REPO / "examples" / "vcas" / "two_agent.nis"
NAMES = ("ownship", "intruder")
SIDE = {"ownship": 1, "intruder": -1}
V0 = {"ownship": -5.0, "intruder": 5.0}
# VENMAS's two-branch table (ft/s^2): (lo, hi) per advisory.
TWO_BRANCH = {0: (-3.0, 3.0), 1: (-9.33, -7.33), 3: (-9.33, -7.33), 2: (7.33, 9.33),
              4: (7.33, 9.33), 5: (-11.7, -9.7), 7: (-11.7, -9.7), 6: (9.7, 11.7), 8: (9.7, 11.7)}
# Outputs within this of the maximum count as tied: float32 evaluation against
# mavis's f64 (the outputs are of the order of 0.01 to 1 here).
TIE = 1e-6


def advisories(nets, name, prev, h, v, tau):
    """The advisories an aircraft may receive: the argmax, or every output
    within TIE of it."""
    y = scores(nets, prev, SIDE[name] * h, v, tau)
    return [a for a in range(9) if y[a] >= y.max() - TIE]


def moves(adv, prev, v):
    """The pilot's moves under advisory `adv`: (name, acceleration)."""
    lo, hi = TWO_BRANCH[adv]
    out = [("lo", lo), ("hi", hi)]
    if adv != 0 and adv == prev and COMPLIES[adv](v):
        out.append(("keep", 0.0))
    return out


def safe(h):
    return abs(h) > 100


def starts(nets, h, tau=25.0):
    """The initial states from altitude h: one per combination of tied first
    advisories. A state: (h, tau, {name: (v, prev, advisory)})."""
    options = [advisories(nets, n, 0, h, V0[n], tau) for n in NAMES]
    return [(h, tau, {n: (V0[n], 0, a) for n, a in zip(NAMES, combo)})
            for combo in itertools.product(*options)]


def successors(nets, state, chosen):
    """Every successor of `state` under the joint move `chosen` ({name:
    (move, acc)}), one per combination of tied advisories."""
    h, tau, agents = state
    acc = {n: chosen[n][1] for n in NAMES}
    v = {n: agents[n][0] for n in NAMES}
    h2 = h - v["ownship"] - acc["ownship"] / 2 + v["intruder"] + acc["intruder"] / 2
    tau2 = tau - 1
    v2 = {n: v[n] + acc[n] for n in NAMES}
    prev2 = {n: agents[n][2] for n in NAMES}
    options = [advisories(nets, n, prev2[n], h2, v2[n], tau2) for n in NAMES]
    return [(h2, tau2, {n: (v2[n], prev2[n], a) for n, a in zip(NAMES, combo)})
            for combo in itertools.product(*options)]


def coalition_wins(nets, state, g, rounds, goal):
    """<<g>> X^rounds goal from `state`: ties and the others resolve against g."""
    if rounds == 0:
        return goal(state[0])
    h, tau, agents = state
    menus = {n: moves(agents[n][2], agents[n][1], agents[n][0]) for n in NAMES}
    for mine in itertools.product(*(menus[n] for n in g)):
        others = [n for n in NAMES if n not in g]
        if all(all(coalition_wins(nets, s, g, rounds - 1, goal)
                   for s in successors(nets, state, {**dict(zip(g, mine)), **dict(zip(others, theirs))}))
               for theirs in itertools.product(*(menus[n] for n in others))):
            return True
    return False


def sentence_holds_at(nets, h, can, g, k, goal):
    """The sentence from every initial state at altitude h."""
    if can:
        return all(coalition_wins(nets, s, g, k, goal) for s in starts(nets, h))
    return not any(coalition_wins(nets, s, g, k, lambda x: not goal(x)) for s in starts(nets, h))


def replay(nets, branch, goal_at_end):
    """One branch of a witness, step by step, in onnxruntime and by hand."""
    first = branch[0]
    for n in NAMES:
        assert first["named"][n]["private"]["v"] == pytest.approx(V0[n])
        assert first["named"][n]["private"]["prev"] == 0
    for step, nxt in zip(branch, branch[1:]):
        h, tau = step["env"]["h"], step["env"]["tau"]
        acc = {}
        for n in NAMES:
            me, later = step["named"][n], nxt["named"][n]
            v, prev = me["private"]["v"], int(me["private"]["prev"])
            adv = ADVISORIES.index(me["percept"])
            assert adv in advisories(nets, n, prev, h, v, tau), f"{n} at step {step['step']}"
            menu = dict(moves(adv, prev, v))
            assert me["action"] in menu, f"{n}: {me['action']} is not allowed"
            acc[n] = menu[me["action"]]
            assert later["private"]["v"] == pytest.approx(v + acc[n], abs=1e-6)
            assert int(later["private"]["prev"]) == adv
        v = {n: step["named"][n]["private"]["v"] for n in NAMES}
        expected = h - v["ownship"] - acc["ownship"] / 2 + v["intruder"] + acc["intruder"] / 2
        assert nxt["env"]["h"] == pytest.approx(expected, abs=1e-6)
        assert nxt["env"]["tau"] == pytest.approx(tau - 1)
    assert goal_at_end(branch[-1]["env"]["h"])


SENTENCES = [
    ("[[ownship, intruder]] X^{k} safe", False, ("ownship", "intruder"), safe),
    ("<<ownship>> X^{k} safe", True, ("ownship",), safe),
    ("[[intruder]] X^{k} safe", False, ("intruder",), safe),
    ("<<ownship, intruder>> X^{k} !safe", True, ("ownship", "intruder"), lambda h: not safe(h)),
]


# VENMAS's box (-50) and boxes near the border of `safe`, where the verdicts
# differ between sentences and depths (at -110: three hold at k = 1, the
# first fails at k = 2 and holds again at k = 3).
CASES = list(itertools.product([-50, -95, -100, -110], [1, 2], range(len(SENTENCES))))
CASES += [(h0, 3, which) for h0 in (-50, -110) for which in range(len(SENTENCES))]
# k = 4: every sentence at -110 (decided in well under a second), and the
# two of VENMAS's box that take seconds, not minutes (examples/vcas/README.md).
CASES += [(-110, 4, which) for which in range(len(SENTENCES))] + [(-50, 4, 0), (-50, 4, 3)]


@pytest.mark.parametrize("h0,k,which", CASES)
def test_verdicts_agree_with_the_game_solver(networks, h0, k, which):
    text, can, g, goal = SENTENCES[which]
    spec = text.format(k=k)
    r = subprocess.run(
        [mavis_bin(), "--format", "json", "nis", "check", str(MODEL), "--spec", spec,
         "--set", f"H0={h0}"], capture_output=True, text=True)
    assert r.returncode in (0, 1), f"{spec} H0={h0}: exit {r.returncode}: {r.stderr}"
    report = json.loads(r.stdout)
    if report["verdict"] == "holds":
        for h in np.linspace(h0 - 2, h0 + 2, 9):
            assert sentence_holds_at(networks, h, can, g, k, goal), f"{spec} fails from h = {h}"
        return
    assert report["verdict"] == "violated"
    branches = report["witness"]["branches"]
    assert branches, "a violated strategic sentence shows its counterexample"
    # The counterexample's leaves satisfy the goal's negation; it starts in the box.
    for branch in branches:
        replay(networks, branch, lambda h: not goal(h))
    h_start = branches[0][0]["env"]["h"]
    assert h0 - 2 - 1e-9 <= h_start <= h0 + 2 + 1e-9
    assert not sentence_holds_at(networks, h_start, can, g, k, goal), \
        f"{spec} holds from the witness's start h = {h_start}"
