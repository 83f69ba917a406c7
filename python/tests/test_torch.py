"""PyTorch modules as networks (torch is an optional dependency; these tests
are skipped where it is not installed, as in scripts/test.sh's virtual
environment: the PyPI wheel of torch for Linux brings several GB of CUDA
libraries). The outputs are torch's own, computed by the module."""
import numpy as np
import pytest

import mavis


torch = pytest.importorskip("torch")


def small_policy(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.ReLU(), torch.nn.Linear(8, 8),
                               torch.nn.ReLU(), torch.nn.Linear(8, 3))


class Residual(torch.nn.Module):
    """Not a Sequential: exported to ONNX in memory."""

    def __init__(self):
        super().__init__()
        self.a, self.b = torch.nn.Linear(2, 6), torch.nn.Linear(6, 3)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


@pytest.mark.parametrize("module", [small_policy(1), Residual()])
def test_a_module_evaluates_as_torch_does(module):
    x = np.array([[0.1, 0.2], [-1.0, 1.0], [0.5, -0.25]])
    ours = np.array(mavis.nn.eval(module, inputs=x).results["outputs"])
    with torch.no_grad():
        theirs = module(torch.tensor(x, dtype=torch.float32)).numpy()
    assert np.allclose(ours, theirs, atol=1e-5)
    assert mavis.nn.from_torch(module).output_size == 3


def test_robustness_of_a_module_agrees_with_its_weights():
    module = small_policy(2)
    layers = [(m.weight, m.bias) for m in module if isinstance(m, torch.nn.Linear)]
    x = [0.3, -0.4]
    with torch.no_grad():
        label = int(module(torch.tensor(x)).argmax())
    for eps in (0.01, 0.5):
        r = mavis.nn.verify_robustness(module, x, eps, label)
        assert r.verdict == mavis.nn.verify_robustness(layers, x, eps, label).verdict
        if r.verdict == "violated":
            with torch.no_grad():
                y = module(torch.tensor(r.witness.input, dtype=torch.float32))
            assert float(torch.cat([y[:label], y[label + 1:]]).max()) >= float(y[label]) - 1e-4
