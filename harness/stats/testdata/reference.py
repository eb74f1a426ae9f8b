#!/usr/bin/env python3
"""Independent reference values for harness/stats tests.

McNemar: exact two-sided p = min(1, 2 * sum_{i<=min(b,c)} C(n,i) / 2^n),
summed with exact fractions (no floating point until the end).

The bootstrap is no longer checked here: it draws each resample's counts
from their multinomial, and bootstrap_test.go holds it to the exact
bootstrap distribution (enumerated) and to case-by-case resampling within
Monte Carlo error instead of to one random stream.
Run: python3 testdata/reference.py
"""
from fractions import Fraction
from math import comb

def mcnemar(b, c):
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = Fraction(sum(comb(n, i) for i in range(k + 1)), 2 ** n)
    return float(min(Fraction(1), 2 * tail))

if __name__ == "__main__":
    for b, c in [(0, 0), (3, 0), (5, 0), (0, 6), (1, 5), (2, 10), (5, 5), (10, 25), (40, 60), (100, 150), (0, 20), (7, 1)]:
        print(f"mcnemar b={b} c={c} p={mcnemar(b, c)!r}")
