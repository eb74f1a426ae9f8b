#!/usr/bin/env python3
"""Independent reference values for harness/stats tests.

McNemar: exact two-sided p = min(1, 2 * sum_{i<=min(b,c)} C(n,i) / 2^n),
summed with exact fractions (no floating point until the end).

Bootstrap: a from-scratch re-implementation of the paired percentile
bootstrap described in bootstrap.go, with PCG-DXSM written from O'Neill's
pcg-cpp description (128-bit LCG, multiplier 0x2360ed051fc65da44385df649fccf645,
increment 0x5851f42d4c957f2d14057b7ef767814f, DXSM output) and the index as
the high 64 bits of u64 * n. Percentiles are Hyndman-Fan type 7.
Run: python3 testdata/reference.py
"""
from fractions import Fraction
from math import comb, floor

def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = Fraction(sum(comb(n, i) for i in range(k + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))

M64 = (1 << 64) - 1
M128 = (1 << 128) - 1
MUL = (2549297995355413924 << 64) | 4865540595714422341
INC = (6364136223846793005 << 64) | 1442695040888963407

class PCG:
    def __init__(self, hi, lo):
        self.state = (hi << 64) | lo
    def u64(self):
        self.state = (self.state * MUL + INC) & M128
        hi, lo = self.state >> 64, self.state & M64
        hi ^= hi >> 32
        hi = (hi * 0xda942042e4dd58b5) & M64
        hi ^= hi >> 48
        hi = (hi * (lo | 1)) & M64
        return hi

STREAM = int.from_bytes(b"routebnc", "big")
EXC, MISS, HIT = 0, 1, 2

def pct(xs, q):
    h = q * (len(xs) - 1)
    i = floor(h)
    if i + 1 >= len(xs):
        return xs[-1]
    return xs[i] + (h - i) * (xs[i + 1] - xs[i])

def bootstrap(pairs, resamples=2000, conf=0.95, seed=1):
    pairs = [p for p in pairs if p != (EXC, EXC)]
    n = len(pairs)
    rng = PCG(seed, STREAM)
    deltas = []
    for _ in range(resamples):
        bk = bn = hk = hn = 0
        for _ in range(n):
            base, head = pairs[(rng.u64() * n) >> 64]
            bn += base != EXC; bk += base == HIT
            hn += head != EXC; hk += head == HIT
        if bn == 0 or hn == 0:
            continue
        deltas.append(hk / hn - bk / bn)
    deltas.sort()
    t = (1 - conf) / 2
    return pct(deltas, t), pct(deltas, 1 - t), len(deltas)

def build(spec):
    """spec: list of (count, base, head)."""
    out = []
    for count, base, head in spec:
        out += [(base, head)] * count
    return out

if __name__ == "__main__":
    for b, c in [(0, 0), (3, 0), (5, 0), (0, 6), (1, 5), (2, 10), (5, 5), (10, 25), (40, 60), (100, 150), (0, 20), (7, 1)]:
        print(f"mcnemar b={b} c={c} p={mcnemar(b, c)!r}")
    sets = {
        "mixed40": build([(20, HIT, HIT), (10, MISS, MISS), (2, HIT, MISS), (8, MISS, HIT)]),
        "excluded": build([(5, HIT, HIT), (3, MISS, HIT), (1, HIT, MISS), (2, EXC, HIT), (1, HIT, EXC), (4, EXC, EXC), (2, MISS, MISS)]),
        "tiny": build([(1, HIT, MISS), (1, MISS, HIT), (1, EXC, HIT)]),
    }
    for name, pairs in sets.items():
        lo, hi, reps = bootstrap(pairs)
        print(f"bootstrap {name} lo={lo!r} hi={hi!r} replicates={reps}")
    lo, hi, reps = bootstrap(sets["mixed40"], resamples=500, conf=0.9, seed=42)
    print(f"bootstrap mixed40 B=500 conf=0.9 seed=42 lo={lo!r} hi={hi!r} replicates={reps}")
