"""The guarding game of the NIS seed (Example 1), as a training environment.

A colony of agents; each agent has a health h in {0..MAX_HEALTH}.  Every round
each living agent either guards or rests:

* guard: h + GUARD_COST                                  (GUARD_COST = -2)
* rest:  h + REST_GAIN if at least one agent guards this round (REST_GAIN = +1),
         h + UNGUARDED_LOSS otherwise                     (UNGUARDED_LOSS = -3)

The result is clamped to [0, MAX_HEALTH].  An agent with h = 0 is expired: it only
performs the dummy action and its health never changes again.  Every agent starts
with h = |GUARD_COST| + 1 = 3.

The reward function (see README.md, "Reward") is `Rewards.step`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

MAX_HEALTH = 4
GUARD_COST = -2
REST_GAIN = 1
UNGUARDED_LOSS = -3
INITIAL_HEALTH = abs(GUARD_COST) + 1

REST = 0
GUARD = 1
ACTION_NAMES = ("rest", "guard")


def assign_duty(health: np.ndarray, volunteers: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Turn declared intentions into performed actions ("volunteer" duty rule).

    Among the living agents that volunteer (declared GUARD), one chosen uniformly at
    random guards; every other agent rests.  Returns the performed actions.
    """
    health = np.asarray(health, dtype=np.int64)
    candidates = np.flatnonzero((health > 0) & (np.asarray(volunteers) == GUARD))
    performed = np.full(health.shape[0], REST, dtype=np.int64)
    if candidates.size:
        performed[candidates[rng.integers(0, candidates.size)]] = GUARD
    return performed


def transition(health: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, bool]:
    """One synchronous round.

    `health` holds every agent's health (int array); `actions` holds REST or GUARD
    for every agent (ignored for expired agents, which do the dummy action).
    Returns the new health array and whether the colony was guarded.
    """
    health = np.asarray(health, dtype=np.int64)
    actions = np.asarray(actions, dtype=np.int64)
    if health.shape != actions.shape:
        raise ValueError("health and actions must have the same shape")
    alive = health > 0
    guards = alive & (actions == GUARD)
    guarded = bool(guards.any())
    rest_delta = REST_GAIN if guarded else UNGUARDED_LOSS
    delta = np.where(guards, GUARD_COST, rest_delta)
    new = np.where(alive, np.clip(health + delta, 0, MAX_HEALTH), health)
    return new, guarded


@dataclass(frozen=True)
class Rewards:
    """Per-agent reward of one round, for every agent alive at its start.

    r_i = health_weight * (h_i' - h_i)                 individual: own health
        + guard_bonus      if i guarded                 the colony credits its guard
        + colony_weight * (number of agents alive after the round) / n
                                                         collective: shared welfare
        - expire_penalty   if i expired in this round
    """

    health_weight: float = 1.0
    guard_bonus: float = 1.0
    colony_weight: float = 2.0
    expire_penalty: float = 5.0

    def step(self, health: np.ndarray, actions: np.ndarray, new_health: np.ndarray) -> np.ndarray:
        health = np.asarray(health, dtype=np.int64)
        new_health = np.asarray(new_health, dtype=np.int64)
        alive = health > 0
        n = health.shape[0]
        survivors = float(np.count_nonzero(new_health > 0))
        r = self.health_weight * (new_health - health).astype(np.float64)
        r = r + np.where(np.asarray(actions) == GUARD, self.guard_bonus, 0.0)
        r = r + self.colony_weight * survivors / n
        r = r - np.where(alive & (new_health == 0), self.expire_penalty, 0.0)
        return np.where(alive, r, 0.0)

    def as_dict(self) -> dict:
        return asdict(self)


def normalise(health: np.ndarray) -> np.ndarray:
    """Network input: h / MAX_HEALTH as a column vector (float64)."""
    return (np.asarray(health, dtype=np.float64) / MAX_HEALTH).reshape(-1, 1)
