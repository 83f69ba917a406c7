#!/usr/bin/env python3
"""Deep Q-learning of the guarding-game observation network (numpy only).

    python train_guarding.py --seed 1 --episodes 1500 --out ../networks/guarding.onnx

writes the ONNX file and, beside it, a JSON record (options, seed, final average
return, Q-values at h = 0..4, sha256 of the ONNX file).  The same options give
bit-identical files.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import guarding_game as game  # noqa: E402
from onnx_export import export_onnx, float32_weights, forward_float32  # noqa: E402
from qnet import QNet, RMSprop  # noqa: E402


DUTY_RULES = ("volunteer", "direct")


@dataclass
class TrainConfig:
    seed: int = 1
    episodes: int = 1500
    agents: int = 4
    episode_length: int = 30
    duty: str = "volunteer"
    gamma: float = 0.9
    lr: float = 0.0025
    batch_size: int = 32
    buffer_size: int = 20000
    learn_start: int = 256
    target_update: int = 250
    epsilon_start: float = 1.0
    epsilon_end: float = 0.1
    epsilon_decay_fraction: float = 0.5
    huber_delta: float = 1.0
    return_window: int = 100
    rewards: game.Rewards = field(default_factory=game.Rewards)

    def validate(self) -> None:
        def need(cond: bool, msg: str) -> None:
            if not cond:
                raise ValueError(msg)

        need(self.duty in DUTY_RULES, f"--duty must be one of {', '.join(DUTY_RULES)} (got {self.duty!r})")
        need(self.episodes >= 1, f"--episodes must be >= 1 (got {self.episodes})")
        need(self.agents >= 1, f"--agents must be >= 1 (got {self.agents})")
        need(self.episode_length >= 1, f"--episode-length must be >= 1 (got {self.episode_length})")
        need(0.0 <= self.gamma < 1.0, f"--gamma must be in [0, 1) (got {self.gamma})")
        need(self.lr > 0.0, f"--lr must be > 0 (got {self.lr})")
        need(self.batch_size >= 1, f"--batch-size must be >= 1 (got {self.batch_size})")
        need(self.buffer_size >= self.batch_size, "--buffer-size must be >= --batch-size")
        need(self.target_update >= 1, "--target-update must be >= 1")
        for name in ("epsilon_start", "epsilon_end", "epsilon_decay_fraction"):
            v = getattr(self, name)
            need(0.0 <= v <= 1.0, f"--{name.replace('_', '-')} must be in [0, 1] (got {v})")
        need(self.huber_delta > 0.0, f"--huber-delta must be > 0 (got {self.huber_delta})")
        need(self.return_window >= 1, "--return-window must be >= 1")
        need(0 <= self.seed < 2**63, f"--seed must be a non-negative integer (got {self.seed})")

    def as_dict(self) -> dict:
        d = asdict(self)
        d["rewards"] = self.rewards.as_dict()
        return d

    def epsilon(self, episode: int) -> float:
        decay = max(1, int(self.episodes * self.epsilon_decay_fraction))
        frac = min(1.0, episode / decay)
        return self.epsilon_start + frac * (self.epsilon_end - self.epsilon_start)


class ReplayBuffer:
    def __init__(self, capacity: int):
        self.capacity = capacity
        self.h = np.zeros(capacity, dtype=np.int64)
        self.a = np.zeros(capacity, dtype=np.int64)
        self.r = np.zeros(capacity, dtype=np.float64)
        self.h2 = np.zeros(capacity, dtype=np.int64)
        self.size = 0
        self.pos = 0

    def add(self, h, a, r, h2) -> None:
        for item in zip(h, a, r, h2):
            self.h[self.pos], self.a[self.pos], self.r[self.pos], self.h2[self.pos] = item
            self.pos = (self.pos + 1) % self.capacity
            self.size = min(self.size + 1, self.capacity)

    def sample(self, rng: np.random.Generator, n: int):
        idx = rng.integers(0, self.size, size=n)
        return self.h[idx], self.a[idx], self.r[idx], self.h2[idx]


def choose_actions(net: QNet, health: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Epsilon-greedy actions for every agent (expired agents get REST, ignored)."""
    actions = np.full(health.shape[0], game.REST, dtype=np.int64)
    alive = np.flatnonzero(health > 0)
    if alive.size:
        q = net.forward(game.normalise(health[alive]))
        greedy = np.argmax(q, axis=1)
        explore = rng.random(alive.size) < epsilon
        random_actions = rng.integers(0, 2, size=alive.size)
        actions[alive] = np.where(explore, random_actions, greedy)
    return actions


def play_episode(net, cfg: TrainConfig, epsilon: float, rng, on_step=None) -> float:
    """One fixed-length episode; returns the mean (undiscounted) return per agent."""
    health = np.full(cfg.agents, game.INITIAL_HEALTH, dtype=np.int64)
    total = np.zeros(cfg.agents)
    for _ in range(cfg.episode_length):
        if not (health > 0).any():
            break  # everyone expired: the rest of the episode has reward 0
        actions = choose_actions(net, health, epsilon, rng)
        performed = game.assign_duty(health, actions, rng) if cfg.duty == "volunteer" else actions
        new_health, _ = game.transition(health, performed)
        rewards = cfg.rewards.step(health, performed, new_health)
        total += rewards
        if on_step is not None:
            on_step(health, actions, rewards, new_health)
        health = new_health
    return float(total.mean())


def evaluate(net: QNet, cfg: TrainConfig, episodes: int = 200, epsilon: float = 0.1, seed: int = 12345) -> float:
    """Average return of `net` over `episodes` episodes with its own RNG (training untouched)."""
    rng = np.random.default_rng(seed)
    return float(np.mean([play_episode(net, cfg, epsilon, rng) for _ in range(episodes)]))


Callback = Callable[[int, QNet, float], bool]


def train(cfg: TrainConfig, callback: Optional[Callback] = None, every: int = 0):
    """Train; returns (net, per-episode returns).  `callback(episode, net, avg_return)`
    runs every `every` episodes (1-based episode count) and may return True to stop."""
    cfg.validate()
    rng = np.random.default_rng(cfg.seed)
    net = QNet.initial(rng)
    target = net.copy()
    opt = RMSprop(net, lr=cfg.lr)
    buf = ReplayBuffer(cfg.buffer_size)
    returns: list[float] = []
    updates = 0

    def learn(health, actions, rewards, new_health):
        nonlocal target, updates
        alive = health > 0
        buf.add(health[alive], actions[alive], rewards[alive], new_health[alive])
        if buf.size < max(cfg.learn_start, cfg.batch_size):
            return
        h, a, r, h2 = buf.sample(rng, cfg.batch_size)
        q_next = target.forward(game.normalise(h2)).max(axis=1)
        y = r + cfg.gamma * np.where(h2 > 0, q_next, 0.0)  # expiry is terminal
        _, grads = net.huber_grads(game.normalise(h), a, y, cfg.huber_delta)
        opt.apply(net, grads)
        updates += 1
        if updates % cfg.target_update == 0:
            target = net.copy()

    for ep in range(cfg.episodes):
        returns.append(play_episode(net, cfg, cfg.epsilon(ep), rng, on_step=learn))
        if callback is not None and every > 0 and (ep + 1) % every == 0:
            window = returns[-min(every, cfg.return_window):]
            if callback(ep + 1, net, float(np.mean(window))):
                break
    return net, returns


def q_table(net: QNet) -> list[dict]:
    weights = float32_weights(net)
    rows = []
    for h in range(game.MAX_HEALTH + 1):
        q = forward_float32(weights, np.array([[h / game.MAX_HEALTH]], dtype=np.float32))[0]
        percept = "expired" if h == 0 else ("volunteer" if q[1] > q[0] else "rest-only")
        rows.append({"h": h, "q_rest": float(q[0]), "q_guard": float(q[1]), "percept": percept})
    return rows


def write_outputs(net: QNet, cfg: TrainConfig, returns: list[float], out: Path, json_path: Path) -> dict:
    sha = export_onnx(net, out)
    window = returns[-cfg.return_window:]
    record = {
        "generator": "python-training/train_guarding.py",
        "seed": cfg.seed,
        "options": cfg.as_dict(),
        "reproduce": "python python-training/train_guarding.py " + " ".join(config_to_argv(cfg)),
        "episodes_run": len(returns),
        "final_average_return": float(np.mean(window)),
        "final_average_return_window": len(window),
        "q_values": q_table(net),
        "onnx": {"file": out.name, "sha256": sha, "input": "x float32 [1,1] = h/4",
                 "output": "q float32 [1,2] = [Q(rest), Q(guard)]"},
    }
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")
    return record


def add_training_args(p: argparse.ArgumentParser) -> None:
    d = TrainConfig()
    r = game.Rewards()
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--episodes", type=int, default=d.episodes)
    p.add_argument("--agents", type=int, default=d.agents)
    p.add_argument("--episode-length", type=int, default=d.episode_length)
    p.add_argument("--duty", choices=DUTY_RULES, default=d.duty,
                   help="volunteer: the action is 'volunteer to guard', one random volunteer guards; "
                        "direct: every agent that picks guard guards")
    p.add_argument("--gamma", type=float, default=d.gamma)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--batch-size", type=int, default=d.batch_size)
    p.add_argument("--buffer-size", type=int, default=d.buffer_size)
    p.add_argument("--learn-start", type=int, default=d.learn_start)
    p.add_argument("--target-update", type=int, default=d.target_update)
    p.add_argument("--epsilon-start", type=float, default=d.epsilon_start)
    p.add_argument("--epsilon-end", type=float, default=d.epsilon_end)
    p.add_argument("--epsilon-decay-fraction", type=float, default=d.epsilon_decay_fraction)
    p.add_argument("--huber-delta", type=float, default=d.huber_delta)
    p.add_argument("--return-window", type=int, default=d.return_window)
    p.add_argument("--health-weight", type=float, default=r.health_weight)
    p.add_argument("--guard-bonus", type=float, default=r.guard_bonus)
    p.add_argument("--colony-weight", type=float, default=r.colony_weight)
    p.add_argument("--expire-penalty", type=float, default=r.expire_penalty)


def config_from_args(a: argparse.Namespace) -> TrainConfig:
    return TrainConfig(
        seed=a.seed, episodes=a.episodes, agents=a.agents, episode_length=a.episode_length,
        duty=a.duty,
        gamma=a.gamma, lr=a.lr, batch_size=a.batch_size, buffer_size=a.buffer_size,
        learn_start=a.learn_start, target_update=a.target_update, epsilon_start=a.epsilon_start,
        epsilon_end=a.epsilon_end, epsilon_decay_fraction=a.epsilon_decay_fraction,
        huber_delta=a.huber_delta, return_window=a.return_window,
        rewards=game.Rewards(a.health_weight, a.guard_bonus, a.colony_weight, a.expire_penalty),
    )


def config_to_argv(cfg: TrainConfig) -> list[str]:
    """Command-line options that reproduce `cfg` (inverse of config_from_args)."""
    d = cfg.as_dict()
    rewards = d.pop("rewards")
    d.update(rewards)
    return [f"--{k.replace('_', '-')}={v}" for k, v in d.items()]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_training_args(p)
    p.add_argument("--out", type=Path, default=HERE.parent / "networks" / "guarding.onnx", help="ONNX file to write")
    p.add_argument("--json", type=Path, default=None, help="JSON record (default: --out with .json)")
    a = p.parse_args(argv)
    try:
        cfg = config_from_args(a)
        cfg.validate()
    except ValueError as e:
        p.error(str(e))
    net, returns = train(cfg)
    json_path = a.json if a.json is not None else a.out.with_suffix(".json")
    record = write_outputs(net, cfg, returns, a.out, json_path)
    print(f"wrote {a.out} (sha256 {record['onnx']['sha256']}) and {json_path}")
    print(f"final average return (last {record['final_average_return_window']} episodes): "
          f"{record['final_average_return']:.4f}")
    for row in record["q_values"]:
        print(f"  h={row['h']}  Q(rest)={row['q_rest']:+.6f}  Q(guard)={row['q_guard']:+.6f}  {row['percept']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
