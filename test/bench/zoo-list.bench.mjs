// `arbor benchmark list` over generated zoos of 1,000 and 10,000 folders (BENCH_SIZES=100000 for
// the large one: about 2.3 GB of files and several minutes), side
// by side with a naive line-scanning indexer (Python: `#` lines are headings,
// no markdown parsing). Cold = empty arbor cache (the OS page cache is warm for
// both sides); warm = a second run reusing the cache. Prints ratios and peak RSS.
// Cold runs with the default worker count (inline on two cores, one worker per core
// besides the main thread from three) and, for comparison, with a pool of one worker per
// core besides the main thread's, at least one (ARBOR_LIST_WORKERS).
//
//   node test/bench/run.mjs zoo-list            # 1,000 and 10,000
//   BENCH_SIZES=1000 node test/bench/run.mjs zoo-list
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import os, {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {target} from './targets.mjs';

const cli = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist/cli/index.js');
const sizes = (process.env.BENCH_SIZES ?? '1000,10000').split(',').map(Number);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const poolWorkers = Math.max(1, os.availableParallelism() - 1);
const work = mkdtempSync(path.join(tmpdir(), 'arbor-bench-list-'));
// The interpreter itself, not a launcher in front of it: a pyenv shim costs about 0.3 s a start here,
// which the naive side would pay and arbor's would not.
const python = ['python3', 'python']
  .map((p) => spawnSync(p, ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'}))
  .find((result) => result.status === 0)
  ?.stdout.trim();

const naive = `
import os, sys
zoo = sys.argv[1]
required = ["source", "setup & environment", "baseline", "contamination assessment", "caveats"]
out = []
for name in sorted(os.listdir(zoo)):
    if name.startswith("_") or name.startswith("."):
        continue
    d = os.path.join(zoo, name)
    if not os.path.isdir(d):
        continue
    problems = 0
    title = ""
    try:
        with open(os.path.join(d, "README.md"), encoding="utf-8") as f:
            for line in f:
                s = line.strip()
                if s and not s.startswith("#"):
                    title = s
                    break
    except OSError:
        problems += 1
    try:
        with open(os.path.join(d, "PROVENANCE.md"), encoding="utf-8") as f:
            heads = {l.lstrip("#").strip().lower().rstrip(":") for l in f if l.startswith("#")}
        problems += sum(1 for r in required if r not in heads)
    except OSError:
        problems += 1
    if not (os.path.isfile(os.path.join(d, "eval.sh")) or os.path.isfile(os.path.join(d, "eval.py"))):
        problems += 1
    out.append(f"{name}  {'ok' if problems == 0 else str(problems) + ' errors'}  {title}")
print("\\n".join(out))
`;
writeFileSync(path.join(work, 'naive_list.py'), naive);

const words =
  'the a solution reads inputs writes answers nearest neighbours query points distance metric baseline numpy brute force seeds split held out data vector matrix kernel speedup reference timing repetitions'.split(
    ' ',
  );
function prose(seed, n) {
  let s = '';
  let x = (seed * 2654435761) % 4294967296;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += (i ? ' ' : '') + words[x % words.length];
    if (i % 14 === 13) s += '\n';
  }
  return s;
}
function readme(i) {
  let s = `# task_${i}\n\nTask ${i}: find the k nearest neighbours of every query point; a solution reads the inputs and writes the answer arrays.\n\n`;
  s += `## Metric\n\nThe eval prints one \`score:\` line, the speedup over the reference solver. Higher is better.\n\n`;
  s += `## What may be edited\n\nOnly \`solution.py\`; \`eval.sh\`, \`bundle/\` and \`reference.py\` are protected.\n\n`;
  s += `## Dev / test\n\nDev uses seeds 0-3, test uses seeds 1000-1007 (disjoint).\n\n`;
  for (let k = 0; k < 4; k++)
    s += `### Notes ${k}\n\n${prose(i * 7 + k, 45)}. See [the paper](https://example.com/${i}/${k}) and \`solution.py\`.\n\n- one *point*\n- two\n\n\`\`\`python\ndef run(state, inputs):\n    return {"ids": inputs["db"][:10]}\n\`\`\`\n\n`;
  return s;
}
function provenance(i) {
  let s = `# Provenance of task_${i}\n\n`;
  for (const h of ['Source', 'Setup & environment', 'Baseline', 'Contamination assessment', 'Caveats']) {
    s += `## ${h}\n\n`;
    for (let k = 0; k < 3; k++) s += `${prose(i * 13 + k, 38)}, under the **MIT** license.\n\n`;
  }
  return s;
}

// Each folder is a whole benchmark, as a real entry is: plan.toml, a bundle (zoo/algotune_knn's
// marker and modules), a reference and an arbor.lock, so list's runnable rules (plan, points,
// fingerprint, lock hashes) do their full work. The naive scanner reads what it always read.
const knnBundle = path.join(path.dirname(cli), '../../zoo/algotune_knn/bundle');
const bundleFiles = ['fherma.toml', 'generate.mjs', 'oracle.mjs', 'verify.mjs'].map((name) => [name, readFileSync(path.join(knnBundle, name))]);
const plan =
  'bundle = "bundle"\nsolution = "solution.py"\nmetric = "speedup"\nreference = "reference.py"\n\n[dev]\nseeds = "0-3"\npoints = [ { N = 4096, Q = 256, D = 16, K = 10 } ]\n\n[test]\nseeds = "1000-1007"\npoints = [ { N = 4096, Q = 256, D = 16, K = 10 } ]\n';

async function generate(n) {
  const zoo = path.join(work, `zoo-${n}`);
  mkdirSync(zoo);
  mkdirSync(path.join(zoo, '_template'));
  let lock;
  for (let i = 0; i < n; i++) {
    const dir = path.join(zoo, `task_${String(i).padStart(5, '0')}`);
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'README.md'), readme(i));
    writeFileSync(path.join(dir, 'PROVENANCE.md'), provenance(i));
    writeFileSync(path.join(dir, 'eval.sh'), '#!/usr/bin/env bash\nexec arbor benchmark eval "$(dirname "$0")" "$@"\n', {mode: 0o755});
    writeFileSync(path.join(dir, 'solution.py'), 'def init(point):\n    return None\n\ndef run(state, inputs):\n    return {}\n');
    writeFileSync(path.join(dir, 'reference.py'), 'def init(point):\n    return None\n\ndef run(state, inputs):\n    return {}\n');
    writeFileSync(path.join(dir, 'plan.toml'), plan);
    mkdirSync(path.join(dir, 'bundle'));
    for (const [name, bytes] of bundleFiles) writeFileSync(path.join(dir, 'bundle', name), bytes);
    // Every folder's protected files are the same bytes: one lock fits them all.
    lock ??= `${JSON.stringify(await (await import(path.join(path.dirname(cli), '../lib/benchmark/lock.js'))).computeLock(dir), null, 2)}\n`;
    writeFileSync(path.join(dir, 'arbor.lock'), lock);
  }
  return zoo;
}

const hasTime = existsSync('/usr/bin/time');
/** Run a command; returns wall ms, CPU ms (user + system) and peak RSS in MB (from /usr/bin/time). */
function run(cmd, args, env = {}) {
  const full = hasTime ? ['/usr/bin/time', ['-f', '%M %U %S', cmd, ...args]] : [cmd, args];
  const start = process.hrtime.bigint();
  const result = spawnSync(full[0], full[1], {env: {...process.env, ...env}, encoding: 'utf8', maxBuffer: 1 << 28});
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  const [maxKb, user, sys] = hasTime ? result.stderr.trim().split('\n').pop().split(' ').map(Number) : [NaN, NaN, NaN];
  return {ms, rss: maxKb / 1024, cpu: (user + sys) * 1000, lines: result.stdout.split('\n').length};
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

try {
  for (const n of sizes) {
    const zoo = await generate(n);
    await new Promise((r) => setTimeout(r, 300)); // let the freshly written files age past arbor's racy window
    const cache = path.join(work, `cache-${n}`);
    const naiveRuns = [];
    const cold = [];
    const warm = [];
    const coldPool = [];
    for (let round = 0; round < rounds; round++) {
      naiveRuns.push(run(python, [path.join(work, 'naive_list.py'), zoo]));
      rmSync(cache, {recursive: true, force: true});
      coldPool.push(run(process.execPath, [cli, 'benchmark', 'list', zoo], {ARBOR_CACHE_DIR: cache, ARBOR_LIST_WORKERS: String(poolWorkers)}));
      rmSync(cache, {recursive: true, force: true});
      cold.push(run(process.execPath, [cli, 'benchmark', 'list', zoo], {ARBOR_CACHE_DIR: cache}));
      warm.push(run(process.execPath, [cli, 'benchmark', 'list', zoo], {ARBOR_CACHE_DIR: cache}));
    }
    const naiveMs = median(naiveRuns.map((r) => r.ms));
    const coldMs = median(cold.map((r) => r.ms));
    const poolMs = median(coldPool.map((r) => r.ms));
    const warmMs = median(warm.map((r) => r.ms));
    const mb = (runs) => Math.max(...runs.map((r) => r.rss)).toFixed(0);
    const cpu = (runs) => median(runs.map((r) => r.cpu));
    const naiveCpu = cpu(naiveRuns);
    const cpuText = (runs) => `cpu ${cpu(runs).toFixed(0).padStart(6)} ms (${(cpu(runs) / naiveCpu).toFixed(1)}x)`;
    console.log(
      `zoo of ${n} folders (median of ${rounds}; ${python} naive indexer as reference; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores)`,
    );
    console.log(`  naive line scan    ${naiveMs.toFixed(0).padStart(6)} ms                 ${cpuText(naiveRuns)}   peak RSS ${mb(naiveRuns)} MB`);
    console.log(
      `  arbor list cold    ${coldMs.toFixed(0).padStart(6)} ms  ${(coldMs / naiveMs).toFixed(2).padStart(6)}x naive   ${cpuText(cold)} ${target(`list cold CPU / naive, ${n} folders`, cpu(cold) / naiveCpu, '<=', 3)}   peak RSS ${mb(cold)} MB ${target(`list cold peak RSS, ${n} folders`, Number(mb(cold)), '<=', 150, ' MB')}`,
    );
    console.log(
      `   pool of ${poolWorkers} worker${poolWorkers === 1 ? ' ' : 's'} ${poolMs.toFixed(0).padStart(6)} ms  ${(poolMs / naiveMs).toFixed(2).padStart(6)}x naive   ${cpuText(coldPool)}   peak RSS ${mb(coldPool)} MB`,
    );
    console.log(
      `  arbor list warm    ${warmMs.toFixed(0).padStart(6)} ms  ${(warmMs / naiveMs).toFixed(2).padStart(6)}x naive   ${cpuText(warm)}   peak RSS ${mb(warm)} MB ${target(`list warm peak RSS, ${n} folders`, Number(mb(warm)), '<=', 150, ' MB')}`,
    );
    rmSync(zoo, {recursive: true, force: true});
  }
} finally {
  rmSync(work, {recursive: true, force: true});
}
