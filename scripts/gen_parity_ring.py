#!/usr/bin/env python3
"""Writes a seeded random robust-parity metric automaton (`.ma`) in the shape
of examples/robust/ring_parity.ma, at any size: N stations on a circle
(Euclidean metric), each with a random priority in 0..P-1; input `next` goes
one station on (a gust may push it two on), `stay` stays (a gust may push it
one on), `jump` goes to a random station (a gust may push it one further).
Used to export the parity games of the robust synthesis
(`mavis robust solve --write-games`) for docs/performance/robust.md.

    gen_parity_ring.py N P SEED > ring.ma
"""
import math
import random
import sys


def main():
    n, p, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    out = [f"automaton ring{n};", "metric euclidean;", "inputs next, stay, jump;", "disturbances gust;"]
    r = n / 6.0
    for i in range(n):
        a = 2 * math.pi * i / n
        out.append(f"state s{i} at ({r * math.cos(a):.4f}, {r * math.sin(a):.4f}) priority {rng.randrange(p)};")
    out.append("init s0;")
    for i in range(n):
        out.append(f"trans s{i} next -> s{(i + 1) % n} | gust -> s{(i + 2) % n};")
        if rng.random() < 0.5:
            out.append(f"trans s{i} stay -> s{i} | gust -> s{(i + 1) % n};")
        if rng.random() < 0.3:
            j = rng.randrange(n)
            out.append(f"trans s{i} jump -> s{j} | gust -> s{(j + 1) % n};")
    out.append("parity;")
    print("\n".join(out))


if __name__ == "__main__":
    main()
