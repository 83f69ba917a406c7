import numpy as np

import guarding_game as game


def test_guard_rest_and_unguarded_rules():
    new, guarded = game.transition(np.array([3, 3, 4, 1]), np.array([game.GUARD, game.REST, game.REST, game.REST]))
    assert guarded
    assert new.tolist() == [1, 4, 4, 2]  # guard -2; rest +1, clamped at 4
    new, guarded = game.transition(np.array([3, 4, 1]), np.array([game.REST] * 3))
    assert not guarded
    assert new.tolist() == [0, 1, 0]  # nobody guards: -3, clamped at 0


def test_expired_agents_do_nothing_and_cannot_guard():
    new, guarded = game.transition(np.array([0, 3]), np.array([game.GUARD, game.REST]))
    assert not guarded
    assert new.tolist() == [0, 0]


def test_initial_health_is_abs_guard_cost_plus_one():
    assert game.INITIAL_HEALTH == 3


def test_volunteer_duty_picks_exactly_one_living_volunteer():
    rng = np.random.default_rng(0)
    health = np.array([3, 0, 4, 2])
    volunteers = np.array([game.GUARD, game.GUARD, game.GUARD, game.REST])
    seen = set()
    for _ in range(50):
        performed = game.assign_duty(health, volunteers, rng)
        assert performed.sum() == 1
        seen.add(int(np.flatnonzero(performed)[0]))
    assert seen == {0, 2}
    assert game.assign_duty(health, np.zeros(4, dtype=int), rng).sum() == 0


def test_rewards():
    r = game.Rewards(health_weight=1.0, guard_bonus=1.0, colony_weight=2.0, expire_penalty=5.0)
    health = np.array([3, 1, 0, 4])
    actions = np.array([game.GUARD, game.REST, game.REST, game.REST])
    new, _ = game.transition(health, actions)  # [1, 2, 0, 4]; 3 of 4 alive after
    out = r.step(health, actions, new)
    assert np.allclose(out, [-2 + 1 + 1.5, 1 + 1.5, 0.0, 0 + 1.5])
    new2, _ = game.transition(np.array([2, 3]), np.array([game.REST, game.REST]))  # [0, 0]
    assert np.allclose(r.step(np.array([2, 3]), np.array([0, 0]), new2), [-2 - 5, -3 - 5])
