"""Compute known answers from Python once: test/fixtures/gate/python-values.json.

Run: python3 test/gate/gen-python-values.py (the unit tests read the stored file,
so CI needs no Python for them).
"""
import json
import random
import statistics
import struct
from pathlib import Path

rng = random.Random(424242)

def rand_double():
    while True:
        bits = rng.getrandbits(64)
        value = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if value == value and value not in (float("inf"), float("-inf")):
            return value

floats = [0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1e16, 1e15, 1234567890123456.0, 12345678901234567.0, 1e-4, 1e-5, 0.0001, 0.00012345,
          5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 0.30000000000000004, 1 / 3, 2 / 3, 100.0, 1e22, 1e21, 1e-7,
          9007199254740993.0, 123.456, 0.025000000000000022, 0.975, 9999999999999998.0, 1e-320]
floats += [rand_double() for _ in range(300)]
floats += [rng.uniform(-1e6, 1e6) for _ in range(100)]
floats += [rng.randint(0, 10**6) / 100 for _ in range(50)]

mt = []
for seed in [0, 1, -1, 5, -5, 42, 2**32 - 1, 2**32, 2**64, -(2**64), 12345678901234567890123, 10**300 + 7, 20260101]:
    r = random.Random(seed)
    words = [r.getrandbits(32) for _ in range(8)]
    below = {}
    for n in (1, 2, 3, 500, 512, 513):
        r = random.Random(seed)
        below[str(n)] = [r._randbelow(n) for _ in range(12)]
    r = random.Random(seed)
    skip = [r.getrandbits(32) for _ in range(1300)][-3:]
    mt.append({"seed": str(seed), "words": words, "below": below, "after1300": skip})

means = [
    [0.1] * 10,
    [-0.0, -0.0],
    [1e308, 1e308, -1e308],
    [5e-324, 5e-324, 5e-324],
    [5e-324, 0.0],
    [0.1, 0.2, 0.3],
    [1.0, 2.0, 2.0],
]
for _ in range(200):
    size = rng.randint(1, 40)
    kind = rng.randint(0, 3)
    if kind == 0:
        data = [rng.uniform(0, 5000) for _ in range(size)]
    elif kind == 1:
        data = [round(rng.uniform(0, 5000), 2) for _ in range(size)]
    elif kind == 2:
        data = [rand_double() for _ in range(size)]
        data = [x for x in data if abs(x) < 1e300] or [1.0]
    else:
        data = [rng.choice([0.1, 0.2, 0.25, 1.5, 2.75, 1e-310, 3e-320]) for _ in range(size)]
    means.append(data)

ints = [2**53 + 1, 2**53 + 3, 2**64 - 1, 10**20 + 12345, 2**1023, 2**1024 - 2**970 - 1, -(2**60 + 2**7 + 1), 10**308]
out = {
    "floats": [[repr(x), repr(x)] for x in floats],
    "mt": mt,
    "means": [{"values": [repr(x) for x in data], "mean": repr(statistics.mean(data))} for data in means],
    "int_to_float": [[str(i), repr(float(i))] for i in ints],
    "casefold": [[chr(c), chr(c).casefold()] for c in [0xDF, 0x1E9E, 0x3C2, 0xFB01, 0x17F, 0x212A, 0x130, 0x1F88, 0x10400, 0x41, 0x345]],
}
target = Path(__file__).resolve().parents[1] / "fixtures/gate/python-values.json"
target.write_text(json.dumps(out, ensure_ascii=False, indent=1), encoding="utf-8")
print(target)
