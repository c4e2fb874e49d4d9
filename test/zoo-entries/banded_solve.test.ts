import {cpSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import {beforeAll, describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {type Entry, generateCase, loadEntry, python, runPython, zoo} from './harness.js';
import {TestStream} from './stream.js';

const home = path.join(zoo, 'banded_solve');
let entry: Entry;
let band: Record<string, any>;
beforeAll(async () => {
  entry = await loadEntry('banded_solve');
  band = await import(pathToFileURL(path.join(home, 'bundle/band.mjs')).href);
});

/** A (dense, row-major) from the band, by the layout alone: ab[P + i - j, j] = A[i, j]. */
function dense(ab: Float64Array, N: number, P: number): number[][] {
  return Array.from({length: N}, (_, i) => Array.from({length: N}, (_, j) => (Math.abs(i - j) <= P ? ab[(P + i - j) * N + j]! : 0)));
}

function files(dir: string, prefix = ''): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? files(path.join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]));
}

const dev = {N: 1200, P: 7, R: 4};

describe('banded_solve bundle', () => {
  it('draws the band row by row, then B, and sets the diagonal to 1 + the row sum of |off-diagonal|', async () => {
    for (const [N, P, R, seed] of [
      [9, 2, 3, 4],
      [5, 8, 2, 5],
      [1, 1, 1, 6],
      [40, 3, 1, 7],
    ] as const) {
      const {ab, b} = (await generateCase(entry, {N, P, R}, seed)) as {ab: Float64Array; b: Float64Array};
      const stream = new TestStream('zoo/banded_solve@1.0.0', seed);
      const draw = () => Number(stream.bits(11)) - 1024;
      const want = new Float64Array((2 * P + 1) * N);
      for (let d = 0; d <= 2 * P; d += 1) {
        for (let j = 0; j < N; j += 1) if (d !== P && j + d - P >= 0 && j + d - P < N) want[d * N + j] = draw();
      }
      expect([...b]).toEqual(Array.from({length: N * R}, draw));
      const A = dense(ab, N, P);
      for (let i = 0; i < N; i += 1) {
        const off = A[i]!.reduce((sum, v, j) => sum + (j === i ? 0 : Math.abs(v)), 0);
        expect(A[i]![i]).toBe(1 + off); // strict dominance with margin 1
        want[P * N + i] = 1 + off;
      }
      expect([...ab], `N ${N} P ${P}`).toEqual([...want]); // corners outside the matrix are 0
    }
  });

  it('the oracle agrees with numpy.linalg.solve on the dense matrix, and the residual and norm with numpy', async () => {
    const points = [
      [1, 1, 2],
      [8, 3, 2],
      [60, 1, 3],
      [60, 8, 2],
      [200, 5, 4],
    ] as const;
    const cases = await Promise.all(points.map(([N, P, R], seed) => generateCase(entry, {N, P, R}, seed)));
    const want = python(
      `import json,sys,numpy as np
out=[]
for j in json.load(sys.stdin):
    N,P,R=j["N"],j["P"],j["R"]; ab=np.array(j["ab"]).reshape(2*P+1,N); b=np.array(j["b"]).reshape(N,R)
    A=np.zeros((N,N))
    for i in range(N):
        for k in range(max(0,i-P),min(N,i+P+1)): A[i,k]=ab[P+i-k,k]
    x=np.linalg.solve(A,b)
    out.append({"x":x.ravel().tolist(),"norm":float(np.abs(A).sum(1).max()),"Ab":(A@b[:, :1].repeat(R,1)).ravel().tolist(),"cond":float(np.linalg.cond(A,np.inf))})
print(json.dumps(out))`,
      points.map(([N, P, R], k) => ({N, P, R, ab: [...cases[k]!.ab!], b: [...cases[k]!.b!]})),
    );
    for (const [k, [N, P, R]] of points.entries()) {
      const {ab, b} = cases[k] as {ab: Float64Array; b: Float64Array};
      const x = (await entry.oracle({N, P, R}, cases[k]!)).x as Float64Array;
      x.forEach((v, i) => expect(Math.abs(v - want[k].x[i]), `N ${N} P ${P}`).toBeLessThanOrEqual(1e-13 * Math.max(1, Math.abs(want[k].x[i]))));
      expect(band.normInf(ab, N, P)).toBe(want[k].norm); // integers: exact
      // residual(x = b's first column in every column, b = 0) is A times that column: integers, exact.
      const firstColumn = Float64Array.from({length: N * R}, (_, e) => b[Math.floor(e / R) * R]!);
      expect([...band.residual(ab, N, P, R, firstColumn, new Float64Array(N * R))]).toEqual(want[k].Ab);
      // The README's bound: cond_inf(A) <= ||A||_inf (||A^-1||_inf <= 1 / margin = 1).
      expect(want[k].cond).toBeLessThanOrEqual(want[k].norm * (1 + 1e-12));
    }
  });

  it('the verifier accepts the oracle and rejects one wrong element, one wrong column, f32, a sample, zeros, b, NaN and infinity', async () => {
    const args = await generateCase(entry, dev, 11);
    const expected = await entry.oracle(dev, args);
    const x = expected.x as Float64Array;
    const check = (answer: Float64Array) => entry.verify!(dev, args, expected, {x: answer}, entry.accept);
    const ok = check(x);
    expect(ok.passed).toBe(true);
    expect(ok.metrics.worst).toBeLessThan(1e-15);
    const changed = (f: (v: number, e: number) => number) => check(x.map(f));
    const last = x.length - 1;
    const one = changed((v, e) => (e === last ? v * (1 + 1e-7) : v));
    expect(one).toMatchObject({passed: false, metrics: {column: last % dev.R}});
    expect(one.metrics.worst).toBeGreaterThan(1e-10);
    expect(changed((v, e) => (e % dev.R === 3 ? v * (1 + 1e-9) : v)).passed).toBe(false); // a whole column slightly off
    expect(changed((v) => Math.fround(v)).passed).toBe(false); // single precision
    expect(changed((v, e) => (e < x.length / 2 ? v : 0)).passed).toBe(false); // the first half only
    expect(changed(() => 0)).toMatchObject({passed: false, metrics: {worst: 1}});
    expect(check(args.b as Float64Array).passed).toBe(false);
    expect(changed((v, e) => (e === 1234 ? NaN : v))).toEqual({passed: false, metrics: {worst: null}});
    expect(changed((v, e) => (e === 0 ? -Infinity : v))).toEqual({passed: false, metrics: {worst: null}});
    // The bar sits between a stable solve (about 1e-16) and anything single precision (about 1e-8).
    expect(entry.accept.tolerance).toBe(1e-10);
  });

  it('arbor bundle make reproduces vectors/tiny, and verify fails an answer of the wrong dtype or shape', () => {
    const vectors = path.join(home, 'bundle/vectors/tiny');
    const dir = path.join(tempDir(), 'tiny');
    const made = runCli(['bundle', path.join(home, 'bundle'), 'make', dir, '--point', '{"N":6,"P":2,"R":2}', '--seeds', '0-1']);
    expect(made.code).toBe(0);
    expect(files(dir)).toEqual(files(vectors));
    for (const file of files(vectors))
      expect(new Uint8Array(readFileSync(path.join(dir, file))), file).toEqual(new Uint8Array(readFileSync(path.join(vectors, file))));
    cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
    const x = new Float64Array(new Uint8Array(readFileSync(path.join(dir, 'out/000001/x.bin'))).buffer);
    writeFileSync(path.join(dir, 'out/000001/x.bin'), new Float32Array(x)); // f32: half the bytes
    const verified = runCli(['bundle', path.join(home, 'bundle'), 'verify', dir]);
    expect(verified.code).toBe(0);
    const [first, second] = JSON.parse(readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).cases;
    expect(first.passed).toBe(true);
    expect(second).toMatchObject({passed: false, note: 'out/000001/x.bin is 48 bytes, expected 96 (12 × f64)'});
  });

  it('the baseline, the reference and a block cyclic reduction solution pass at a dev point', async () => {
    const args = await generateCase(entry, dev, 5);
    const expected = await entry.oracle(dev, args);
    for (const file of [
      path.join(home, 'solution.py'),
      path.join(home, 'reference.py'),
      path.join(import.meta.dirname, 'solutions/banded_cyclic_reduction.py'),
    ]) {
      const verdict = entry.verify!(dev, args, expected, runPython(entry, file, dev, args).results, entry.accept);
      expect(verdict.passed, file).toBe(true);
      expect(verdict.metrics.worst).toBeLessThan(1e-14);
    }
  });
});
