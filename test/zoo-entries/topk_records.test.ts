import {cpSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {type Entry, type Tensors, generateCase, loadEntry, python, runPython, zoo} from './harness.js';
import {TestStream} from './stream.js';

let entry: Entry;
beforeAll(async () => {
  entry = await loadEntry('topk_records');
});

const bundle = path.join(zoo, 'topk_records/bundle');
const full = {N: 524288, K: 1000};

/** The composite order written out again: key1 descending, key2 ascending, id ascending. */
function bruteForce(args: Tensors, K: number): number[] {
  const {key1, key2, id} = args as {key1: Int32Array; key2: Float32Array; id: Int32Array};
  const rows = Array.from({length: key1.length}, (_, i) => i);
  rows.sort((a, b) => (key1[a] !== key1[b] ? key1[b]! - key1[a]! : key2[a] !== key2[b] ? key2[a]! - key2[b]! : id[a]! - id[b]!));
  return rows.slice(0, K);
}

describe('topk_records bundle', () => {
  it('draws key1 as bits(10) - 512, key2 as (bits(8) - 128) / 16, and ids ranked by (bits(29), index)', async () => {
    const point = {N: 40, K: 7};
    const args = await generateCase(entry, point, 3);
    const stream = new TestStream('zoo/topk_records@1.0.0', 3);
    expect(args.key1).toBeInstanceOf(Int32Array);
    expect(args.key2).toBeInstanceOf(Float32Array);
    expect([...args.key1!]).toEqual(Array.from({length: 40}, () => Number(stream.bits(10)) - 512));
    expect([...args.key2!]).toEqual(Array.from({length: 40}, () => (Number(stream.bits(8)) - 128) / 16));
    const r = Array.from({length: 40}, () => Number(stream.bits(29)));
    const ranked = Array.from({length: 40}, (_, i) => i).sort((a, b) => r[a]! - r[b]! || a - b);
    const want = new Array<number>(40);
    ranked.forEach((row, rank) => (want[row] = rank));
    expect([...args.id!]).toEqual(want);
  });

  it('ids are a permutation at the real point, and K > N is refused', async () => {
    const args = await generateCase(entry, full, 0);
    const seen = new Uint8Array(full.N);
    for (const v of args.id!) seen[v as number]! += 1;
    expect(seen.every((n) => n === 1)).toBe(true);
    const key2 = [...args.key2!] as number[];
    expect(key2.filter((v) => v === 0).length).toBeGreaterThan(0);
    expect(key2.some((v) => Object.is(v, -0))).toBe(false); // no -0, which would tie with +0 under <
    await expect(generateCase(entry, {N: 5, K: 6}, 0)).rejects.toThrow(/K = 6 is more than the N = 5 records/);
  });

  it('the oracle agrees with numpy lexsort and a brute-force sort, ties in key1 and key2 at the boundary included', async () => {
    for (const [point, seed] of [
      [{N: 1, K: 1}, 0],
      [{N: 3000, K: 3000}, 2],
      [{N: 20000, K: 700}, 3],
    ] as const) {
      const args = await generateCase(entry, point, seed);
      const top = [...((await entry.oracle(point, args)).top as Int32Array)];
      expect(top).toEqual(bruteForce(args, point.K));
      const want = python(
        `import json,sys,numpy as np
j=json.load(sys.stdin)
print(json.dumps(np.lexsort((np.array(j["id"]),np.array(j["key2"]),-np.array(j["key1"])))[:j["K"]].tolist()))`,
        {key1: [...args.key1!], key2: [...args.key2!], id: [...args.id!], K: point.K},
      );
      expect(top).toEqual(want);
      if (point.K === 700) {
        // The K-th record shares key1 with records left out: the boundary falls inside a tie.
        const last = top[699]!;
        const tiedKey1 = [...args.key1!].filter((v) => v === args.key1![last]).length;
        expect(tiedKey1).toBeGreaterThan(top.filter((i) => args.key1![i] === args.key1![last]).length);
      }
    }
  });

  it('the baseline, the reference and the partition fixture give the oracle answer at the real point', async () => {
    const args = await generateCase(entry, full, 5);
    const expected = (await entry.oracle(full, args)).top as Int32Array;
    for (const file of [
      path.join(zoo, 'topk_records/solution.py'),
      path.join(zoo, 'topk_records/reference.py'),
      path.join(import.meta.dirname, 'solutions/topk_records_partition.py'),
    ]) {
      const top = runPython(entry, file, full, args).results.top as Int32Array;
      expect(Buffer.from(top.buffer).equals(Buffer.from(expected.buffer)), file).toBe(true);
    }
  });
});

describe('topk_records through arbor bundle make and verify (the exact rule)', () => {
  const files = (dir: string, prefix = ''): string[] =>
    readdirSync(dir)
      .sort()
      .flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? files(path.join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]));

  it('arbor bundle make reproduces vectors/tiny byte for byte', () => {
    const vectors = path.join(bundle, 'vectors/tiny');
    const dir = path.join(tempDir(), 'tiny');
    const point = JSON.parse(readFileSync(path.join(vectors, 'manifest.json'), 'utf8')).point;
    expect(runCli(['bundle', bundle, 'make', dir, '--point', JSON.stringify(point), '--seeds', '0-1']).code).toBe(0);
    expect(files(dir)).toEqual(files(vectors));
    for (const file of files(vectors)) expect(readFileSync(path.join(dir, file)).equals(readFileSync(path.join(vectors, file))), file).toBe(true);
  });

  it('passes the oracle answer and fails each kind of wrong answer', () => {
    const point = {N: 3000, K: 64};
    const dir = path.join(tempDir(), 'work');
    expect(runCli(['bundle', bundle, 'make', dir, '--point', JSON.stringify(point), '--seeds', '0-8']).code).toBe(0);
    cpSync(path.join(dir, 'expected'), path.join(dir, 'out'), {recursive: true});
    const i32 = (file: string) => new Int32Array(new Uint8Array(readFileSync(file)).buffer);
    const answer = (k: number) => path.join(dir, 'out', String(k).padStart(6, '0'), 'top.bin');
    const ids = i32(path.join(dir, 'cases/000007/id.bin'));
    const change = (k: number, edit: (top: Int32Array) => Int32Array) => writeFileSync(answer(k), edit(i32(answer(k))));
    change(1, (top) => ((top[63] = top[63]! + 1), top)); // off by one in one element
    change(2, (top) => (([top[10], top[11]] = [top[11]!, top[10]!]), top)); // two neighbours swapped
    change(3, (top) => top.slice(0, 63)); // one element short
    change(4, (top) => Int32Array.from(top, (v, i) => (i % 2 ? 0 : v))); // every other element only
    change(5, (top) => Int32Array.from(top).sort()); // the right set in index order
    change(6, (top) => new Int32Array(top.length)); // zeros
    change(7, (top) => top.map((row) => ids[row]!)); // the ids instead of the row indices
    writeFileSync(answer(8), BigInt64Array.from(i32(answer(8)), BigInt)); // int64 instead of int32
    expect(runCli(['bundle', bundle, 'verify', dir]).code).toBe(0);
    const verdicts = JSON.parse(readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).cases;
    expect(verdicts.map((v: {passed: boolean}) => v.passed)).toEqual([true, false, false, false, false, false, false, false, false]);
    expect(verdicts[1].metrics).toMatchObject({rule: 'exact', wrong: 1, of: 64, first: {result: 'top', index: [63]}});
    expect(verdicts[2].metrics).toMatchObject({wrong: 2});
    expect(verdicts[3].note).toMatch(/is 252 bytes, expected 256 \(64 × i32\)/);
    expect(verdicts[8].note).toMatch(/is 512 bytes, expected 256 \(64 × i32\)/);
  });
});
