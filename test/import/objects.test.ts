// arbor's object encoding (lib/eval/objects.py), through its own Python: exact round trips, the same bytes for
// equal values, the numpy runs equal to the item-by-item bytes, and a refusal (by type, no method run) of
// everything else.
import {spawnSync} from 'node:child_process';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot} from '../helpers/cli.js';

/** Run `body` (Python, with `o` the encoding module and `np` numpy) and return what it prints as JSON. */
function python(body: string, interpreter = process.env.ARBOR_PYTHON || 'python3'): unknown {
  const script = `import json, math, struct, sys\nsys.path.insert(0, ${JSON.stringify(path.join(repoRoot, 'lib/eval'))})\nimport objects as o\nimport numpy as np\n${body}`;
  const result = spawnSync(interpreter, ['-I', '-B', '-c', script], {encoding: 'utf8'});
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout);
}

describe('object encoding', () => {
  it('round-trips every type it carries exactly, types, dict order, -0.0, NaN bits and big ints included', () => {
    const out = python(`
nan = struct.unpack('<d', struct.pack('<Q', 0x7ff8000000000123))[0]
value = {"b": b"\\x00\\xff", "y": bytearray(b"ab"), "t": (1, None, True, False), "l": [1.5, -0.0, nan, float("inf")],
         "big": -2**100, "i64": 2**63 - 1, "c": 1 - 2j, "s": "h\\u00e9\\udc80", "set": {3, 1, 2}, "fs": frozenset(["b", "a"]),
         "a": np.arange(6, dtype=np.int32).reshape(2, 3), "f16": np.array([1.5], dtype=np.float16), "be": np.array([1, 2], dtype=">i4"),
         "bool": np.array([True, False]), "g": np.float32(1.25), "u": np.uint64(2**64 - 1), 7: "int key", (1, 2): "tuple key",
         "rows": [[1, 2, 3]] * 9, "floats": [0.1 * k for k in range(9)]}
encoded = o.encode(value)
back = o.decode(encoded)
print(json.dumps({
  "same_bytes": o.encode(back) == encoded,
  "keys": [repr(k) for k in back],
  "types": {k: type(v).__name__ for k, v in back.items() if isinstance(k, str)},
  "neg0": math.copysign(1, back["l"][1]), "nan_bits": hex(struct.unpack('<Q', struct.pack('<d', back["l"][2]))[0]),
  "big": str(back["big"]), "a": [back["a"].dtype.str, list(back["a"].shape), back["a"].flags.writeable],
  "be": back["be"].tolist(), "g": [type(back["g"]).__name__, float(back["g"])], "u": str(back["u"]),
}))`) as Record<string, unknown>;
    expect(out.same_bytes).toBe(true);
    expect(out.keys).toEqual([
      "'b'",
      "'y'",
      "'t'",
      "'l'",
      "'big'",
      "'i64'",
      "'c'",
      "'s'",
      "'set'",
      "'fs'",
      "'a'",
      "'f16'",
      "'be'",
      "'bool'",
      "'g'",
      "'u'",
      '7',
      '(1, 2)',
      "'rows'",
      "'floats'",
    ]);
    expect(out.types).toMatchObject({
      b: 'bytes',
      y: 'bytearray',
      t: 'tuple',
      l: 'list',
      big: 'int',
      c: 'complex',
      s: 'str',
      set: 'set',
      fs: 'frozenset',
      a: 'ndarray',
      g: 'float32',
      u: 'uint64',
      rows: 'list',
    });
    expect(out.neg0).toBe(-1);
    expect(out.nan_bits).toBe('0x7ff8000000000123');
    expect(out.big).toBe(String(-(2n ** 100n)));
    expect(out.a).toEqual(['<i4', [2, 3], true]);
    expect(out.be).toEqual([1, 2]);
    expect(out.g).toEqual(['float32', 1.25]);
    expect(out.u).toBe(String(2n ** 64n - 1n));
  });

  it('gives equal values the same bytes (a set whatever its order), and the numpy runs the bytes of the item-by-item path', () => {
    const out = python(`
import random
random.seed(7)
a = set(range(0, 200, 7)); b = set(sorted(a, reverse=True))
def rnd(depth=0):
    r = random.random()
    if depth > 3 or r < 0.3:
        return random.choice([random.uniform(-1e6, 1e6), random.randint(-2**63, 2**63 - 1), random.randint(2**63, 2**80), None, True, "x"])
    if r < 0.5: return [random.uniform(-1, 1) for _ in range(random.randint(0, 20))]
    if r < 0.6: return [random.choice([random.randint(-5, 5), 2**70]) if random.random() < 0.05 else random.randint(-5, 5) for _ in range(random.randint(0, 20))]
    if r < 0.7:
        w = random.randint(0, 4); return [[random.random() for _ in range(w)] for _ in range(random.randint(0, 12))]
    if r < 0.8: return tuple(rnd(depth + 1) for _ in range(random.randint(0, 10)))
    return [rnd(depth + 1) for _ in range(random.randint(0, 10))]
agree = 0
for _ in range(1500):
    v = rnd()
    fast = o.encode(v); back = o.decode(fast)
    saved = o.FAST; o.FAST = 10**9
    slow = o.encode(v); slow_back = o.decode(slow)
    o.FAST = saved
    agree += fast == slow and o.encode(back) == fast and repr(back) == repr(slow_back)
print(json.dumps({"sets": o.encode(a) == o.encode(b), "agree": agree}))`) as Record<string, unknown>;
    expect(out).toEqual({sets: true, agree: 1500});
  });

  it('refuses, by type and without running their methods, the objects AlgoTune fixed its validators against', () => {
    const out = python(`
class Liar(list):
    def __eq__(self, other): raise SystemExit("ran __eq__")
class Sized:
    def __len__(self): raise SystemExit("ran __len__")
class Arrayish(np.ndarray):
    def __array__(self, *a, **k): raise SystemExit("ran __array__")
class Num(float):
    def __float__(self): raise SystemExit("ran __float__")
class Key(str): pass
refused = {}
for name, value in [("list subclass", Liar([1])), ("sized", Sized()), ("generator", (x for x in [1])), ("ndarray subclass", np.zeros(3).view(Arrayish)),
                    ("float subclass", Num(1.0)), ("nested", {"a": [1, {"b": Key("k")}]}), ("object array", np.array([1, "a"], dtype=object)),
                    ("str array", np.array(["a"])), ("map", map(int, "12")), ("range", range(3))]:
    try:
        o.encode(value)
        refused[name] = None
    except o.EncodingError as error:
        refused[name] = str(error)
deep = []
for _ in range(300): deep = [deep]
try:
    o.encode(deep); refused["deep"] = None
except o.EncodingError as error:
    refused["deep"] = str(error)
print(json.dumps(refused))`) as Record<string, string | null>;
    expect(out['list subclass']).toMatch(/^a value of type __main__\.Liar \(the encoding carries/);
    expect(out.sized).toMatch(/^a value of type __main__\.Sized /);
    expect(out.generator).toMatch(/^a value of type builtins\.generator /);
    expect(out['ndarray subclass']).toMatch(/^a value of type __main__\.Arrayish /);
    expect(out['float subclass']).toMatch(/^a value of type __main__\.Num /);
    expect(out.nested).toMatch(/^a value of type __main__\.Key /);
    expect(out['object array']).toMatch(/^a numpy array of dtype object/);
    expect(out['str array']).toMatch(/^a numpy array of dtype <U1/);
    expect(out.map).toMatch(/builtins\.map/);
    expect(out.range).toMatch(/builtins\.range/);
    expect(out.deep).toBe('nested more than 200 levels deep');
  });

  // Debian's python3 with python3-scipy (.ci/run installs it): four AlgoTune tasks carry sparse matrices.
  it("carries scipy's csr, csc and coo matrices and arrays exactly (index dtypes kept), and refuses a subclass or another format", () => {
    const out = python(
      `
import scipy.sparse as sp
same = {}
for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array, sp.coo_array):
    m = cls(sp.random(30, 20, density=0.2, random_state=3, format="coo"))
    if hasattr(m, "indices"):
        m.indices = m.indices.astype(np.int64); m.indptr = m.indptr.astype(np.int64)
    back = o.decode(o.encode(m))
    same[cls.__name__] = [type(back).__name__, o.encode(back) == o.encode(m), float(abs(back - m).max()), str((back.indices if hasattr(back, "indices") else back.row).dtype)]
class Mine(sp.csr_matrix): pass
refused = []
for value in (Mine(np.eye(3)), sp.lil_matrix(np.eye(3)), sp.dok_matrix(np.eye(3))):
    try:
        o.encode(value); refused.append(None)
    except o.EncodingError as error:
        refused.append(str(error).split(" (")[0])
print(json.dumps({"same": same, "refused": refused}))`,
      '/usr/bin/python3',
    ) as {same: Record<string, unknown[]>; refused: string[]};
    for (const name of ['csr_matrix', 'csc_matrix', 'csr_array', 'csc_array']) expect(out.same[name]).toEqual([name, true, 0, 'int64']);
    for (const name of ['coo_matrix', 'coo_array']) expect(out.same[name]!.slice(0, 3)).toEqual([name, true, 0]);
    expect(out.refused).toEqual([
      'a value of type __main__.Mine',
      'a value of type scipy.sparse._lil.lil_matrix',
      'a value of type scipy.sparse._dok.dok_matrix',
    ]);
  });

  it('reads only what pack wrote: a wrong header, trailing bytes or a short tensor are errors, never a value', () => {
    const out = python(`
good = o.pack([1, 2.5, "x"], 64)
cases = {"zeros": bytes(64), "short": good[:14], "trailing": good[:60] + b"\\x01" + good[61:], "length": good[:4] + struct.pack("<Q", 10**6) + good[12:]}
said = {}
for name, data in cases.items():
    try:
        o.unpack(np.frombuffer(bytes(data), dtype=np.uint8)); said[name] = None
    except o.EncodingError as error:
        said[name] = str(error)
try:
    o.pack(list(range(100)), 64); said["over"] = None
except o.EncodingError as error:
    said["over"] = str(error)
print(json.dumps({"good": o.unpack(np.frombuffer(bytes(good), dtype=np.uint8)), "len": len(good), **said}))`) as Record<string, unknown>;
    expect(out.good).toEqual([1, 2.5, 'x']);
    expect(out.len).toBe(64);
    expect(out.zeros).toBe("not an encoded value (it does not start with 'AOB1')");
    expect(out.short).toMatch(/^the encoded value ends early|^the header says/);
    expect(out.trailing).toBe('bytes after the encoded value are not zeros');
    expect(out.length).toMatch(/^the header says 1000000 bytes, the tensor holds 52$/);
    expect(out.over).toMatch(/^the value takes \d+ bytes encoded, more than the 64 this binding holds$/);
  });
});
