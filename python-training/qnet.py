"""A small fully connected Q-network in plain numpy (1 -> 4 -> 4 -> 2, ReLU hidden).

Weights are stored as in ONNX Gemm with transB = 1: W has shape (out, in), b (out,).
Training is done in float64.  Matrix products are written as broadcast
multiplications followed by a sum over the (tiny) inner axis instead of calling
BLAS, so the result does not depend on the BLAS build, its kernels or its thread
count: the same seed gives the same bits on every machine with the same numpy.
"""
from __future__ import annotations

import numpy as np

LAYER_SIZES = (1, 4, 4, 2)


def dense(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x (batch, in) @ w.T (in, out) + b, without BLAS."""
    return (x[:, None, :] * w[None, :, :]).sum(axis=2) + b


class QNet:
    def __init__(self, weights: list[tuple[np.ndarray, np.ndarray]]):
        self.weights = [(np.array(w, dtype=np.float64), np.array(b, dtype=np.float64)) for w, b in weights]

    @classmethod
    def initial(cls, rng: np.random.Generator, sizes=LAYER_SIZES) -> "QNet":
        """Initial weights that keep every hidden ReLU alive on the input range.

        With one input in [0.25, 1] and only four units per layer, a plain random
        initialisation often leaves units dead on the whole range (and then the
        network is linear in h).  So the first layer gets one kink per unit inside
        the input range (slopes of both signs), and the second layer is drawn
        He-uniform and redrawn until each unit is active for some h in 1..4.
        """
        if sizes[0] != 1:
            raise ValueError("the kink initialisation is for a single input")
        probe = np.array([[0.25], [0.5], [0.75], [1.0]])
        n1 = sizes[1]
        slope = rng.uniform(1.0, 3.0, size=n1) * np.where(np.arange(n1) % 2 == 0, 1.0, -1.0)
        kink = rng.uniform(0.3, 0.95, size=n1)
        weights = [(slope.reshape(n1, 1), -slope * kink)]
        a = np.maximum(dense(probe, *weights[0]), 0.0)
        for i, (n_in, n_out) in enumerate(zip(sizes[1:-1], sizes[2:]), start=1):
            limit = np.sqrt(6.0 / n_in)
            last = i == len(sizes) - 2
            for _ in range(1000):
                w = rng.uniform(-limit, limit, size=(n_out, n_in))
                b = np.zeros(n_out) if last else np.full(n_out, 0.1)
                z = dense(a, w, b)
                if last or ((z > 0).any(axis=0)).all():
                    break
            weights.append((w, b))
            a = z if last else np.maximum(z, 0.0)
        return cls(weights)

    def copy(self) -> "QNet":
        return QNet([(w.copy(), b.copy()) for w, b in self.weights])

    def forward(self, x: np.ndarray) -> np.ndarray:
        a = np.asarray(x, dtype=np.float64)
        for i, (w, b) in enumerate(self.weights):
            a = dense(a, w, b)
            if i < len(self.weights) - 1:
                a = np.maximum(a, 0.0)
        return a

    def huber_grads(self, x: np.ndarray, actions: np.ndarray, targets: np.ndarray, delta: float = 1.0):
        """Mean Huber loss of Q(x, action) against targets, and its gradients."""
        acts = [np.asarray(x, dtype=np.float64)]
        pre = []
        a = acts[0]
        for i, (w, b) in enumerate(self.weights):
            z = dense(a, w, b)
            pre.append(z)
            a = np.maximum(z, 0.0) if i < len(self.weights) - 1 else z
            acts.append(a)
        q = acts[-1]
        batch = q.shape[0]
        rows = np.arange(batch)
        err = q[rows, actions] - targets
        abs_err = np.abs(err)
        loss = np.where(abs_err <= delta, 0.5 * err * err, delta * (abs_err - 0.5 * delta)).mean()
        dq = np.zeros_like(q)
        dq[rows, actions] = np.clip(err, -delta, delta) / batch
        grads = [None] * len(self.weights)
        g = dq
        for i in range(len(self.weights) - 1, -1, -1):
            w, _ = self.weights[i]
            a_in = acts[i]
            gw = (g[:, :, None] * a_in[:, None, :]).sum(axis=0)
            gb = g.sum(axis=0)
            grads[i] = (gw, gb)
            if i > 0:
                g = (g[:, :, None] * w[None, :, :]).sum(axis=1)
                g = g * (pre[i - 1] > 0.0)
        return float(loss), grads


class RMSprop:
    """RMSprop as in the DQN literature: s = rho*s + (1-rho)*g^2; p -= lr*g/sqrt(s+eps)."""

    def __init__(self, net: QNet, lr: float = 0.0025, rho: float = 0.95, eps: float = 0.01):
        self.lr, self.rho, self.eps = lr, rho, eps
        self.state = [(np.zeros_like(w), np.zeros_like(b)) for w, b in net.weights]

    def apply(self, net: QNet, grads) -> None:
        new_state = []
        new_weights = []
        for (w, b), (gw, gb), (sw, sb) in zip(net.weights, grads, self.state):
            sw = self.rho * sw + (1.0 - self.rho) * gw * gw
            sb = self.rho * sb + (1.0 - self.rho) * gb * gb
            new_weights.append((w - self.lr * gw / np.sqrt(sw + self.eps), b - self.lr * gb / np.sqrt(sb + self.eps)))
            new_state.append((sw, sb))
        self.state = new_state
        net.weights = new_weights
