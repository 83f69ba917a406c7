#!/usr/bin/env python3
"""One verify-in-loop iteration both ways, timed: in process (the `mavis`
package, model loaded once, the network as float32 weight arrays) and through
the binary (ONNX export to a temporary file, then `mavis nis verify`).

    python python-training/measure_loop.py --repeat 30

Prints the median and the quartiles of each part in milliseconds.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from mavis_runner import REPO, find_mavis, load_model, run_query, run_query_inprocess  # noqa: E402
from onnx_export import export_onnx, float32_weights, load_weights  # noqa: E402
from qnet import QNet  # noqa: E402

SPEC = "forall v1,v2: EX^3 ((alive,v1) & (alive,v2))"


def summary(name: str, seconds: list[float]) -> str:
    ms = sorted(s * 1000 for s in seconds)
    q1, median, q3 = statistics.quantiles(ms, n=4) if len(ms) > 1 else (ms[0],) * 3
    return f"{name:<34} median {median:7.2f} ms  (quartiles {q1:.2f} .. {q3:.2f}, n = {len(ms)})"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--mavis", default=None)
    a = p.parse_args(argv)
    model_path = REPO / "examples" / "guarding" / "guarding.nis"
    net = QNet(load_weights(REPO / "networks" / "guarding.onnx"))
    mavis = find_mavis(a.mavis)
    model = load_model(model_path)
    export_s, cli_s, arrays_s, inproc_s = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="mavis-measure-") as tmp:
        onnx_path = Path(tmp) / "checkpoint.onnx"
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            export_onnx(net, onnx_path)
            t1 = time.perf_counter()
            by_cli = run_query(mavis, "verify", model_path, onnx_path, SPEC)
            t2 = time.perf_counter()
            layers = float32_weights(net)
            t3 = time.perf_counter()
            in_proc = run_query_inprocess(model, "verify", layers, SPEC)
            t4 = time.perf_counter()
            assert (by_cli.status, by_cli.emergence_threshold) == (in_proc.status, in_proc.emergence_threshold)
            export_s.append(t1 - t0)
            cli_s.append(t2 - t1)
            arrays_s.append(t3 - t2)
            inproc_s.append(t4 - t3)
    print(summary("subprocess: ONNX export", export_s))
    print(summary("subprocess: mavis nis verify", cli_s))
    print(summary("subprocess: iteration", [a + b for a, b in zip(export_s, cli_s)]))
    print(summary("in process: float32 weights", arrays_s))
    print(summary("in process: Model.verify", inproc_s))
    print(summary("in process: iteration", [a + b for a, b in zip(arrays_s, inproc_s)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
