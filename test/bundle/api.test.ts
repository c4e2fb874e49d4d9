import {createHash} from 'node:crypto';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {
  bundleInfo,
  canonicalSignature,
  loadBundle,
  makeWorkDir,
  parsePoint,
  parseSeeds,
  readTensor,
  signatureFingerprint,
  Stream,
  verifyWorkDir,
  writeExpected,
  writeTensor,
} from '../../dist/lib/index.js';
import {fixtures, tempDir} from '../helpers/cli.js';

const sortExact = path.join(fixtures, 'bundle/sort-exact');
const rowsum = path.join(fixtures, 'bundle/rowsum-verify');

describe('Stream', () => {
  it('is SHA-256 of SPEC|seed|i, concatenated', () => {
    const stream = new Stream('zoo/x@1.0.0', 7);
    const got = Buffer.from(stream.bytes(100)).toString('hex');
    let want = '';
    for (let i = 0; i < 4; i++) want += createHash('sha256').update(`zoo/x@1.0.0|7|${i}`).digest('hex');
    expect(got).toBe(want.slice(0, 200));
  });

  it('consumes strictly in order across methods', () => {
    const a = new Stream('s', 1);
    const b = new Stream('s', 1);
    const raw = a.bytes(64);
    expect(b.bytes(3)).toEqual(raw.subarray(0, 3));
    expect(b.bits(12)).toBe(BigInt(raw[3]! | ((raw[4]! & 0x0f) << 8)));
    const c = new Stream('s', 1);
    c.bytes(5);
    expect(c.position).toBe(5);
  });
});

describe('parseSeeds', () => {
  it('reads ranges, lists and mixes', () => {
    expect(parseSeeds('0-3')).toEqual([0, 1, 2, 3]);
    expect(parseSeeds('0,3,5')).toEqual([0, 3, 5]);
    expect(parseSeeds('0-2,7,9')).toEqual([0, 1, 2, 7, 9]);
  });
  it.each(['', '7-2', 'a', '-1', '1,1', '0-2,2', '1,,2', '07'])('rejects %j', (text) => {
    expect(() => parseSeeds(text)).toThrow(/--seeds/);
  });
});

describe('library round trip', () => {
  it('makes without expected/, then writeExpected, then verifies', async () => {
    const bundle = await loadBundle(rowsum);
    const dir = tempDir();
    const point = parsePoint(bundle, '{"N": 5, "D": 3}');
    expect(await makeWorkDir(bundle, dir, point, [4, 9], {expected: false})).toEqual({cases: 2});
    expect(existsSync(path.join(dir, 'expected'))).toBe(false);
    expect(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'))).toEqual({point: {N: 5, D: 3}, cases: 2});
    await writeExpected(bundle, dir);
    mkdirSync(path.join(dir, 'out/000000'), {recursive: true});
    const sums = readTensor(path.join(dir, 'expected/000000/sums.bin'), 'f64', 5);
    writeTensor(path.join(dir, 'out/000000/sums.bin'), 'f64', sums);
    writeFileSync(path.join(dir, 'out/000000/above.bin'), readFileSync(path.join(dir, 'expected/000000/above.bin')));
    const verdicts = await verifyWorkDir(bundle, dir);
    expect(verdicts.cases[0]).toMatchObject({i: 0, passed: true});
    expect(verdicts.cases[1]).toEqual({i: 1, passed: false, note: 'no answer'});
  });

  it('gives info from the marker alone', async () => {
    const bundle = await loadBundle(sortExact);
    expect(bundleInfo(bundle)).toEqual({
      spec: 'test/sort-exact@1.0.0',
      fingerprint: bundle.fingerprint,
      point: [{name: 'N', type: 'int', min: 1, max: 1000000}],
      args: [{name: 'x', type: 'f64', dims: ['N']}],
      results: [{name: 'y', type: 'f64', dims: ['N']}],
      verifier: false,
    });
  });
});

describe('signatureFingerprint', () => {
  it('is the SHA-256 of the canonical signature at every length around the block and padding edges', () => {
    for (let k = 1; k <= 140; k++) {
      const signature = {
        point: [{name: 'N'.repeat(k), type: 'int' as const, min: 1, max: 2 ** 40}],
        args: [],
        // Non-ASCII text too: the hash is of the UTF-8 bytes.
        results: [{name: 'y', type: 'f64' as const, dims: [k % 2 ? 'N' : 'é∑😀'], dimExprs: []}],
      };
      const want = createHash('sha256').update(canonicalSignature(signature), 'utf8').digest('hex');
      expect(signatureFingerprint(signature)).toBe(`sha256:${want}`);
    }
  });
});

describe('parsePoint', () => {
  it('takes an object, bigints included, and returns the point in signature order', async () => {
    const bundle = await loadBundle(rowsum);
    expect(Object.entries(parsePoint(bundle, {D: 2n, N: 3}))).toEqual([
      ['N', 3],
      ['D', 2],
    ]);
    expect(() => parsePoint(bundle, {N: 3, D: 2n ** 60n})).toThrow(/--point D must be an integer in 1\.\.64, got 1152921504606846976n/);
    expect(() => parsePoint(bundle, {N: 3, D: undefined})).toThrow(/--point D must be an integer/);
  });
});

describe('makeWorkDir checks its seeds before writing', () => {
  it.each([[[]], [[1, 1]], [[-1]], [[1.5]]])('%j', async (seeds) => {
    const bundle = await loadBundle(sortExact);
    const dir = path.join(tempDir(), 'w');
    await expect(makeWorkDir(bundle, dir, {N: 1}, seeds as number[])).rejects.toThrow(/seed/);
    expect(existsSync(dir)).toBe(false);
  });
});
