import {cpSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {type Entry, generateCase, loadEntry, python, runPython, type Tensors, zoo} from './harness.js';
import {TestStream} from './stream.js';

const home = path.join(zoo, 'shortest_path');
let entry: Entry;
beforeAll(async () => {
  entry = await loadEntry('shortest_path');
});

/** The graph as the README describes it, drawn with the test's own stream: [tails, heads, weights, source]. */
function describedGraph(N: number, M: number, seed: number): [number[], number[], number[], number] {
  const stream = new TestStream('zoo/shortest_path@1.0.0', seed);
  const W = Math.ceil(Math.sqrt(N));
  const candidates: [number, number][] = [];
  for (let v = 0; v < N; v += 1) {
    const [row, col] = [Math.floor(v / W), v % W];
    if (col + 1 < W && v + 1 < N) candidates.push([v, v + 1]); // right
    if (col > 0) candidates.push([v, v - 1]); // left
    if (v + W < N) candidates.push([v, v + W]); // down
    if (row > 0) candidates.push([v, v - W]); // up
  }
  let arcs: [number, number, number][];
  if (M <= candidates.length) {
    const order = candidates.map((_, i) => i);
    for (let i = order.length - 1; i >= 1; i -= 1) {
      const j = Number(stream.below(i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    arcs = order.slice(0, M).map((c, k) => [...candidates[c]!, k]);
  } else {
    arcs = candidates.map(([t, h], k) => [t, h, k]);
    for (let k = candidates.length; k < M; k += 1) arcs.push([Number(stream.below(N)), Number(stream.below(N)), k]);
  }
  arcs.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
  const weights = arcs.map(() => Number(stream.bits(16)));
  return [arcs.map((a) => a[0]), arcs.map((a) => a[1]), weights, Number(stream.below(N))];
}

/** Distances by Bellman-Ford in numpy (no heap, no Dijkstra), for each graph: the independent check of the oracle. */
function bellmanFord(graphs: Tensors[]): number[][] {
  return python(
    `import json,sys,numpy as np
out=[]
for j in json.load(sys.stdin):
    indptr=np.array(j["indptr"]); n=len(indptr)-1
    tails=np.repeat(np.arange(n),np.diff(indptr)); heads=np.array(j["indices"],dtype=np.int64); w=np.array(j["weights"],dtype=np.int64)
    big=np.int64(1)<<62; d=np.full(n,big); d[j["source"]]=0
    for _ in range(n):
        cand=np.where(d[tails]<big,d[tails]+w,big); new=d.copy(); np.minimum.at(new,heads,cand)
        if (new==d).all(): break
        d=new
    out.append(np.where(d==big,-1,d).tolist())
print(json.dumps(out))`,
    graphs.map((args) => ({indptr: [...args.indptr!], indices: [...args.indices!], weights: [...args.weights!], source: args.source![0]})),
  );
}

function files(dir: string, prefix = ''): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => (statSync(path.join(dir, name)).isDirectory() ? files(path.join(dir, name), `${prefix}${name}/`) : [`${prefix}${name}`]));
}

const read = (file: string) => new Uint8Array(readFileSync(file));
const caseName = (i: number) => String(i).padStart(6, '0');

describe('shortest_path bundle', () => {
  it('draws the street grid, closed streets or highways, weights and source as the generator says', async () => {
    for (const [N, M, seed] of [
      [30, 60, 4],
      [30, 98, 5],
      [7, 3, 6],
      [1, 0, 7],
      [12, 20, 8],
    ] as const) {
      const args = await generateCase(entry, {N, M}, seed);
      const [tails, heads, weights, source] = describedGraph(N, M, seed);
      const indptr = Array.from({length: N + 1}, (_, v) => tails.filter((t) => t < v).length);
      expect([...args.indptr!], `N ${N} M ${M}`).toEqual(indptr);
      expect([...args.indices!]).toEqual(heads);
      expect([...args.weights!]).toEqual(weights);
      expect([...args.source!]).toEqual([source]);
    }
    // 30 nodes on a 6-wide grid have 2 * (5 * 5 + 6 * 4) = 98 street arcs: 98 is every one.
    expect(describedGraph(30, 98, 5)[0]).toHaveLength(98);
  });

  it('the oracle (Dijkstra) equals Bellman-Ford in numpy, -1 where unreachable', async () => {
    const points = [
      [64, 150, 1],
      [100, 300, 2],
      [100, 420, 3],
      [49, 40, 4],
      [1, 0, 5],
    ] as const;
    const graphs = await Promise.all(points.map(([N, M, seed]) => generateCase(entry, {N, M}, seed)));
    const want = bellmanFord(graphs);
    let unreachable = 0;
    for (const [k, [N, M]] of points.entries()) {
      const dist = (await entry.oracle({N, M}, graphs[k]!)).dist as BigInt64Array;
      expect([...dist].map(Number), `N ${N} M ${M}`).toEqual(want[k]);
      expect(dist[Number(graphs[k]!.source![0]!)]).toBe(0n);
      unreachable += want[k]!.filter((d) => d === -1).length;
    }
    expect(unreachable).toBeGreaterThan(0); // the sentinel was exercised
  });

  it('data/make_data.py made data/dev and data/test from the bundle: every case and answer reproduced', async () => {
    const made: string[] = [];
    for (const split of ['dev', 'test']) {
      for (const folder of readdirSync(path.join(home, 'data', split)).filter((name) => !name.includes('.'))) {
        const dir = path.join(home, 'data', split, folder);
        const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
        const script = readFileSync(path.join(home, 'data/make_data.py'), 'utf8');
        const seeds = new RegExp(`"${split}/${folder}": \\(\\{"N": (\\d+), "M": (\\d+)\\}, "(\\d+)(?:-(\\d+))?"\\)`).exec(script);
        expect(seeds, `${split}/${folder} in make_data.py`).not.toBeNull();
        expect(manifest.point).toEqual({N: Number(seeds![1]), M: Number(seeds![2])});
        const first = Number(seeds![3]);
        expect(manifest.cases).toBe(Number(seeds![4] ?? first) - first + 1);
        for (let i = 0; i < manifest.cases; i += 1) {
          const args = await generateCase(entry, manifest.point, first + i);
          for (const [name, tensor] of Object.entries(args)) {
            expect(Buffer.from(tensor.buffer).equals(read(path.join(dir, 'cases', caseName(i), `${name}.bin`))), `${folder} ${i} ${name}`).toBe(true);
          }
          const dist = (await entry.oracle(manifest.point, args)).dist!;
          expect(Buffer.from(dist.buffer).equals(read(path.join(dir, 'expected', caseName(i), 'dist.bin')))).toBe(true);
        }
        made.push(`${split}/${folder}`);
      }
    }
    expect(made.sort()).toEqual(['dev/grid88', 'dev/highway88', 'test/grid88', 'test/highway88']);
  });

  it('arbor bundle make reproduces vectors/tiny byte for byte', () => {
    const vectors = path.join(home, 'bundle/vectors/tiny');
    const dir = path.join(tempDir(), 'tiny');
    const made = runCli(['bundle', path.join(home, 'bundle'), 'make', dir, '--point', '{"N":5,"M":8}', '--seeds', '0-1']);
    expect(made.code).toBe(0);
    expect(files(dir)).toEqual(files(vectors));
    for (const file of files(vectors)) expect(read(path.join(dir, file)), file).toEqual(read(path.join(vectors, file)));
  });

  it('the exact rule passes the oracle and fails one wrong element, a wrong sentinel, a sample, float64 bytes and a wrong length', () => {
    // One dev case six times over, each copy answered differently.
    const source = path.join(home, 'data/dev/grid88');
    const dir = path.join(tempDir(), 'work');
    const want = new BigInt64Array(read(path.join(source, 'expected/000000/dist.bin')).buffer);
    const far = want.findLastIndex((d) => d > 0n);
    const unreachable = want.indexOf(-1n);
    expect(unreachable).toBeGreaterThanOrEqual(0);
    const answers = [
      want,
      want.map((d, i) => (i === far ? d + 1n : d)), // one element off by one
      want.map((d) => (d === -1n ? 0x7fffffffffffffffn : d)), // another sentinel for unreachable
      want.map((d, i) => (i < want.length / 2 ? d : 0n)), // only the first half answered
      new Float64Array(Array.from(want, Number)), // the right values as float64 bytes
      new Int32Array(Array.from(want, Number)), // int32: half the bytes
    ];
    answers.forEach((answer, i) => {
      for (const part of ['cases', 'expected']) cpSync(path.join(source, part, '000000'), path.join(dir, part, caseName(i)), {recursive: true});
      cpSync(path.join(source, 'expected/000000'), path.join(dir, 'out', caseName(i)), {recursive: true});
      writeFileSync(path.join(dir, 'out', caseName(i), 'dist.bin'), new Uint8Array(answer.buffer));
    });
    writeFileSync(path.join(dir, 'manifest.json'), `{"point": {"N": 7744, "M": 23000}, "cases": ${answers.length}}\n`);
    const run = runCli(['bundle', path.join(home, 'bundle'), 'verify', dir]);
    expect(run.code).toBe(0);
    const got = JSON.parse(readFileSync(path.join(dir, 'verdicts.json'), 'utf8')).cases as {passed: boolean; note?: string; metrics?: any}[];
    expect(got.map((v) => v.passed)).toEqual([true, false, false, false, false, false]);
    expect(got[1]!.metrics).toMatchObject({rule: 'exact', wrong: 1, first: {result: 'dist', flat: far}});
    expect(got[2]!.metrics.first).toMatchObject({flat: unreachable, expected: -1});
    expect(got[5]!.note).toMatch(/dist\.bin is 30976 bytes, expected 61952/);
  });

  it('the baseline, the reference and a packed-key heap solution reproduce the oracle on a dev case', async () => {
    const dir = path.join(home, 'data/dev/highway88');
    const args: Tensors = {};
    for (const name of ['indptr', 'indices', 'weights', 'source']) args[name] = new Int32Array(read(path.join(dir, 'cases/000000', `${name}.bin`)).buffer);
    const want = read(path.join(dir, 'expected/000000/dist.bin'));
    for (const file of [
      path.join(home, 'solution.py'),
      path.join(home, 'reference.py'),
      path.join(import.meta.dirname, 'solutions/shortest_path_packed_heap.py'),
    ]) {
      const got = runPython(entry, file, {N: 7744, M: 31000}, args).results.dist!;
      expect(new Uint8Array(got.buffer), file).toEqual(want);
    }
  });
});
