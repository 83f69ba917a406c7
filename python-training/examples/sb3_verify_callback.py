"""A Stable-Baselines3 callback that verifies each checkpoint of a DQN policy
with mavis, in process, and logs the emergence threshold.

    pip install stable-baselines3 gymnasium      # not needed by the tests
    python python-training/examples/sb3_verify_callback.py --steps 20000

The environment is one agent's view of the guarding game (observation h/4,
actions rest and guard): the Q-network it trains is the `policy` network of
examples/guarding/guarding.nis (1 input, 2 outputs; `net_arch` keeps it
small), so every checkpoint can be checked for every number of agents.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "examples" / "guarding" / "guarding.nis"
SPEC = "forall v1, v2: EX^3 (alive, v1) & (alive, v2)"


def linear_layers(q_net) -> list[tuple[np.ndarray, np.ndarray]]:
    """(W, b) of each torch Linear of a Q-network made of Linear and ReLU
    layers only (SB3's QNetwork with a Flatten feature extractor): the form
    `mavis.nis` takes, W of shape outputs x inputs."""
    layers, pending_relu = [], False
    for module in q_net.modules():
        kind = type(module).__name__
        if kind == "Linear":
            if layers and not pending_relu:
                raise ValueError("two Linear layers without a ReLU between them")
            layers.append((module.weight.detach().cpu().numpy().astype(np.float64),
                           module.bias.detach().cpu().numpy().astype(np.float64)))
            pending_relu = False
        elif kind == "ReLU":
            pending_relu = True
        elif kind not in ("QNetwork", "FlattenExtractor", "Flatten", "Sequential"):
            raise ValueError(f"{kind}: only Linear and ReLU layers can be verified")
    return layers


def make_callback(every: int, model_path: Path = MODEL, spec: str = SPEC, timeout: float = 10.0):
    """The callback class is made here so that importing this file needs no SB3."""
    import mavis
    from stable_baselines3.common.callbacks import BaseCallback

    class VerifyCallback(BaseCallback):
        """Every `every` steps: `mavis.nis.emergence` on the current Q-network."""

        def __init__(self):
            super().__init__()
            self.model_nis = mavis.nis.Model.load(model_path)  # parsed once
            self.history: list[tuple[int, str, object]] = []

        def _on_step(self) -> bool:
            if self.n_calls % every:
                return True
            layers = linear_layers(self.model.policy.q_net)
            report = self.model_nis.emergence(spec, networks={"policy": layers}, timeout=timeout)
            threshold = report.results.get("emergence_threshold")
            self.history.append((self.num_timesteps, report.verdict, threshold))
            self.logger.record("mavis/verdict", report.verdict)
            self.logger.record("mavis/emergence_threshold", -1 if threshold is None else threshold)
            return True

    return VerifyCallback()


def guarding_env():
    """One agent of the guarding game among others that volunteer at random."""
    import gymnasium as gym

    class OneGuard(gym.Env):
        observation_space = gym.spaces.Box(0.0, 1.0, shape=(1,), dtype=np.float32)
        action_space = gym.spaces.Discrete(2)  # 0 rest, 1 guard (the network's output order)

        def reset(self, seed=None, options=None):
            super().reset(seed=seed)
            self.h, self.t = 3, 0
            return np.array([self.h / 4], dtype=np.float32), {}

        def step(self, action):
            someone_else = self.np_random.random() < 0.5
            before = self.h
            if action == 1:
                self.h = max(0, self.h - 2)
            else:
                self.h = min(4, max(0, self.h + (1 if someone_else else -3)))
            self.t += 1
            reward = (self.h - before) + (1.0 if action == 1 else 0.0) - (5.0 if self.h == 0 else 0.0)
            done = self.h == 0
            return np.array([self.h / 4], dtype=np.float32), reward, done, self.t >= 30, {}

    return OneGuard()


def main(argv=None) -> int:
    from stable_baselines3 import DQN

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=20000)
    p.add_argument("--every", type=int, default=5000)
    a = p.parse_args(argv)
    agent = DQN("MlpPolicy", guarding_env(), policy_kwargs={"net_arch": [4, 4]}, seed=0, verbose=0)
    callback = make_callback(a.every)
    agent.learn(total_timesteps=a.steps, callback=callback)
    for steps, verdict, threshold in callback.history:
        print(f"step {steps}: {verdict}, emergence threshold {threshold}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
