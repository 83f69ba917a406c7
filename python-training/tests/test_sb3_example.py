"""The Stable-Baselines3 example: run only where SB3 is installed (it is not a
dependency of the tests)."""
import importlib.util
import sys
from pathlib import Path

import pytest

TRAINING = Path(__file__).resolve().parents[1]

pytest.importorskip("stable_baselines3")
pytest.importorskip("mavis")


def load_example():
    spec = importlib.util.spec_from_file_location("sb3_verify_callback",
                                                  TRAINING / "examples" / "sb3_verify_callback.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_callback_verifies_each_checkpoint():
    from stable_baselines3 import DQN

    example = load_example()
    agent = DQN("MlpPolicy", example.guarding_env(), policy_kwargs={"net_arch": [4, 4]}, seed=0,
                learning_starts=100)
    callback = example.make_callback(every=200)
    agent.learn(total_timesteps=600, callback=callback)
    assert [steps for steps, _, _ in callback.history] == [200, 400, 600]
    layers = example.linear_layers(agent.policy.q_net)
    assert [w.shape for w, _ in layers] == [(4, 1), (4, 4), (2, 4)]
    import mavis
    last = mavis.nis.emergence(example.MODEL, example.SPEC, networks={"policy": layers})
    assert callback.history[-1][1:] == (last.verdict, last.results.get("emergence_threshold"))
