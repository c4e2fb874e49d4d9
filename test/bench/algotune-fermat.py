"""A generator check for AlgoTune's integer_factorization (docs/algotune-validators.md): a known
shortcut solver, Fermat's method with a budget of 1000 steps, run on composites made the way the task
made them before d0e2535 (q = nextprime(p)) and after it (two independent primes). A generator whose
problems a shortcut solves in a step or two makes a speedup that measures the shortcut, not the task.

    /usr/bin/python3 test/bench/algotune-fermat.py       (needs sympy, as the task does)
"""
import math
import random

import sympy


def fermat_steps(n, budget=1000):
    """Steps Fermat's method takes to split n (a = ceil(sqrt(n)), a*a - n a square), None past the budget."""
    a = math.isqrt(n)
    if a * a < n:
        a += 1
    for step in range(1, budget + 1):
        b = math.isqrt(a * a - n)
        if b * b == a * a - n:
            return step
        a += 1
    return None


def composites(bits, seed):
    """The composite before the fix and after it, for one seed (the task's own draws)."""
    rng = random.Random(seed)
    p = int(sympy.nextprime(rng.randint(2 ** (bits - 1), 2**bits - 1)))
    before = p * int(sympy.nextprime(p))
    rng = random.Random(seed)
    p = int(sympy.nextprime(rng.randint(2 ** (bits - 1), 2**bits - 1)))
    q = int(sympy.nextprime(rng.randint(2 ** (bits - 1), 2**bits - 1)))
    return before, p * q


for n in (8, 32, 64):
    steps = [tuple(fermat_steps(c) for c in composites(8 * n, seed)) for seed in range(10)]
    solved = lambda i: sum(1 for s in steps if s[i] is not None)  # noqa: E731
    print(f"n={n} ({8 * n}-bit primes): Fermat within 1000 steps: before {solved(0)}/10 (steps {sorted({s[0] for s in steps})}), after {solved(1)}/10")
