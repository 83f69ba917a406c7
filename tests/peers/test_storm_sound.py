"""The seed's foraging swarm at S(4) and S(5) against Storm's sound
floating-point mode (issue 35: Storm's exact mode takes more than ten
minutes per reward property from S(4) on). Storm reads the independent
PRISM encoding of foraging_prism.py, built once per size for all the
properties and checked with stormpy.environments.sound() at absolute
precision 1e-6; mavis checks the swarm file with the reward structures of
SWARM_REWARDS. Each tool's interval holds the true value, so they must
meet, and mavis's is at most 1e-6 wide. The properties that need iterating
(not only the graph): robot 1 drops its food before the first deposit, the
expected steps and work until two deposits, the work of the first 12
steps."""

from fractions import Fraction

import pytest
from foraging_prism import SWARM_REWARDS, prism_concrete
from swarm_peer import EX, assert_interval_holds, mavis, storm_sound

stormpy = pytest.importorskip("stormpy")

FAULTS = str(EX / "foraging.faults")
# (mavis's property, Storm's): agent 1's `state` is state_1_1 in the swarm
# file and state1 in the PRISM encoding, which has no label "deposited1".
DROP = ('Pmax=? [ !"deposited1" U state_1_1=6 ]', 'Pmax=? [ !(food>0) U state1=6 ]')
PROPS = {
    4: [
        DROP,
        ('Pmin=? [ F "deposited2" ]',) * 2,
        ('R{"steps"}min=? [ F "deposited2" ]',) * 2,
        ('R{"work"}max=? [ F "deposited2" ]',) * 2,
        ('R{"work"}max=? [ C<=12 ]',) * 2,
    ],
    # S(5) (1,613,472 states for mavis): the expected rewards until two
    # deposits take mavis minutes each (docs/performance/swarm.md), so the
    # test keeps the probabilities and the step-bounded reward.
    5: [DROP, ('Pmin=? [ F "deposited2" ]',) * 2, ('R{"work"}max=? [ C<=12 ]',) * 2],
}


@pytest.mark.parametrize("n", [4, 5])
def test_certified_intervals_meet_storms_sound_bounds(tmp_path, n):
    prism = tmp_path / f"s{n}.prism"
    prism.write_text(prism_concrete(n, Fraction(2, 5), rewards=True))
    theirs = storm_sound(prism, [storm for _, storm in PROPS[n]])
    model = tmp_path / "foraging_rewards.swarm"
    model.write_text((EX / "foraging.swarm").read_text() + SWARM_REWARDS)
    args = [str(model), "--faults", FAULTS, "--set", "pf=2/5", "--agents", str(n)]
    for ours, _ in PROPS[n]:
        args += ["--prop", ours]
    got = mavis("check", *args)["results"]["properties"]
    for (prop, _), g, t in zip(PROPS[n], got, theirs):
        assert g["property"] == prop
        if "interval" in g:
            assert_interval_holds(g, t)
        else:
            # Step-bounded: k rounds, no interval; Storm's bounds are tight.
            assert t[0] - 1e-9 <= g["value"] <= t[1] + 1e-9, (prop, g["value"], t)
    # By hand: the best a scheduler can do for the drop is to move robot 1
    # alone; it carries food home in 4 moves, each dropping it with 2/5, and
    # a failed search only delays it, so the value is 1 - (3/5)^4 at every n.
    lo, hi = got[0]["interval"]
    assert lo <= 1 - 0.6**4 <= hi, got[0]
