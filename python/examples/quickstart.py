"""The quick start of python/README.md, run by scripts/test.sh from the
repository root with the wheel installed in a fresh virtual environment
(no Rust toolchain), and checked by mypy --strict."""
import numpy as np

import mavis

# A neural interpreted system of three agents, checked by MILP.
r = mavis.nis.check("examples/guarding/guarding.nis", agents=3, engine="milp",
                    spec="forall v1, v2: EX^3 (alive, v1) & (alive, v2)")
print(r.verdict)
assert r.holds

# A network given as arrays (W of shape outputs x inputs, ReLU between
# layers): y0 = relu(x0 - x1), y1 = relu(x1 - x0) + 0.25.
net = [(np.array([[1.0, -1.0], [-1.0, 1.0]]), np.zeros(2)),
       (np.eye(2), np.array([0.0, 0.25]))]
batch = np.array([[1.0, 0.0], [0.0, 0.5]])            # two inputs, one a row
outputs = np.array(mavis.nn.eval(net, inputs=batch).results["outputs"])
print(outputs)
assert outputs.tolist() == [[1.0, 0.25], [0.0, 0.75]]

# Exact output bounds over the box [0, 1]^2, given as (lo, hi) arrays.
bounds = mavis.nn.bounds(net, box=(np.zeros(2), np.ones(2)))
upper = [o["hi"] for o in bounds.results["exact"]["outputs"]]
print("upper bounds", upper)
assert abs(upper[0] - 1.0) < 1e-6 and abs(upper[1] - 1.25) < 1e-6

# Local robustness around x: holds for a small eps, a replayed
# counterexample for a large one.
x = np.array([1.0, 0.0])
assert mavis.nn.verify_robustness(net, x, eps=0.1, label=0).verdict == "holds"
cex = mavis.nn.verify_robustness(net, x, eps=0.6, label=0)
assert cex.verdict == "violated" and isinstance(cex.witness, mavis.Counterexample)
print(cex.verdict, cex.witness.input, cex.witness.output)

# A counterexample trace: states and actions as Python values, and the
# statistics as attributes.
r = mavis.nis.check("examples/guarding/guarding.nis", agents=2,
                    spec="forall v1: AX^2 (alive, v1)")
assert r.verdict == "violated" and isinstance(r.witness, mavis.Trace)
for step in r.witness.steps:
    print(step.index, [agent["h"] for agent in step.state["agents"]], step.action)
print(f"{r.stats.time_s:.3f} s, timed out: {r.stats.timed_out}")

# Bad input is an exception that says where and which parameter.
try:
    mavis.nn.eval(net, inputs=np.ones((2, 3)))
except mavis.InputError as e:
    print("InputError:", e)
