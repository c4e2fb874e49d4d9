// The shipped zoo as a whole: every entry lints ok, `run` scores every entry's baseline on dev,
// and the same runs prove each entry improvable: its faster solution (kept here, never in the entry)
// scores better than the baseline. Two runs side by side, each over half the entries (each eval leases
// one of the machine's two CPUs, and a score is the reference's time over the solution's in the same eval).
import {cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {repoRoot, runCli, runCliAsync} from '../helpers/cli.js';

const shipped = path.join(repoRoot, 'zoo');
const solutions = path.join(import.meta.dirname, 'solutions');

/** Each entry's known better solution under ./solutions (the first four entries' are driven by test/mcp). */
const better: Record<string, string> = {
  banded_solve: 'banded_cyclic_reduction.py',
  fft_convolve2d: 'fft_convolve2d_rfft_smooth.py',
  int8_quantize: 'int8_quantize_gptq.py',
  modmatmul: 'modmatmul_f64_limbs.py',
  ntt_forward: 'ntt_forward_stockham.py',
  poly_approx_depth: 'poly_approx_depth_lawson.py',
  shortest_path: 'shortest_path_packed_heap.py',
  topk_records: 'topk_records_partition.py',
};

const entries = readdirSync(shipped)
  .filter((name) => !/^[._]/.test(name) && existsSync(path.join(shipped, name, 'plan.toml')))
  .sort();

interface RunResult {
  entry: string;
  solution: string | null;
  score: number | null;
  ci: [number, number] | null;
  status: string;
  failure?: string;
}

/** Whether an entry's score improves downwards (its plan says direction = "minimize"). */
function minimizes(entry: string): boolean {
  return /^direction\s*=\s*"minimize"/m.test(readFileSync(path.join(shipped, entry, 'plan.toml'), 'utf8'));
}

let root = '';
let zoo = '';
let results: RunResult[] = [];
afterAll(() => {
  if (root) rmSync(root, {recursive: true, force: true});
});

beforeAll(async () => {
  // A copy, its speed plans at two repetitions with no budget past them and one dev seed a point (what this
  // test checks is that every entry scores and which side is better, not the last digit), relocked in one call.
  root = mkdtempSync(path.join(tmpdir(), 'arbor-test-zoo-'));
  zoo = path.join(root, 'zoo');
  const changed: string[] = [];
  for (const entry of entries) {
    cpSync(path.join(shipped, entry), path.join(zoo, entry), {recursive: true});
    const plan = path.join(zoo, entry, 'plan.toml');
    const text = readFileSync(plan, 'utf8');
    const cheap = text
      .replace(/^repetitions = \d+/m, 'repetitions = 2')
      .replace(/^max_seconds = \d+/m, 'max_seconds = 0')
      // One dev seed of each point (a path split's dev folder stays as it is).
      .replace(/^(\[dev\]\n(?:[^[].*\n)*?)seeds = "0-\d+"/m, '$1seeds = "0"');
    if (cheap === text) continue;
    writeFileSync(plan, cheap);
    changed.push(path.join(zoo, entry));
  }
  if (changed.length > 0) expect(runCli(['benchmark', 'lock', ...changed]).code).toBe(0);

  // Every other entry in each half, so each holds about as many evals (the entries with a better solution take two).
  const halves = [0, 1].map((half) => entries.filter((_, i) => i % 2 === half));
  const runs = halves.map(async (names, half) => {
    const json = path.join(root, `run-${half}.json`);
    const args = ['benchmark', 'run', ...names.map((entry) => path.join(zoo, entry)), '--split', 'dev', '--json-file', json, '--quiet'];
    for (const [entry, file] of Object.entries(better).filter(([entry]) => names.includes(entry)))
      args.push('--solution', `${entry}=${path.join(zoo, entry, 'solution.py')}`, '--solution', `${entry}=${path.join(solutions, file)}`);
    const run = await runCliAsync(args, {env: {ARBOR_LEDGER: path.join(root, `runs-${half}.db`)}});
    expect(run.stderr).not.toMatch(/internal error|Traceback/);
    return JSON.parse(readFileSync(json, 'utf8')).results as RunResult[];
  });
  results = (await Promise.all(runs)).flat();
}, 900_000);

describe('the shipped zoo', () => {
  it('lists every entry ok', () => {
    const listed = runCli(['benchmark', 'list', zoo, '--json', '--no-cache']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = JSON.parse(listed.stdout).benchmarks as Array<{name: string; status: string; errors: number; warnings: number}>;
    expect(rows.map((row) => row.name)).toEqual(entries);
    for (const row of rows) expect(row, row.name).toMatchObject({status: 'ok', errors: 0, warnings: 0});
    expect(entries.length).toBeGreaterThanOrEqual(4);
  });

  it("scores every entry's baseline on dev", () => {
    const baselines = results.filter((result) => result.solution === null || result.solution === path.join(zoo, result.entry, 'solution.py'));
    expect(baselines.map((result) => result.entry).sort()).toEqual(entries);
    for (const result of baselines) {
      expect(result, result.entry).toMatchObject({status: 'ok'});
      expect(result.score, result.entry).toBeGreaterThan(0);
    }
  });

  it.each(Object.entries(better))('%s: %s scores better than the baseline', (entry, file) => {
    const of = (solution: string) => results.find((result) => result.entry === entry && result.solution === solution);
    const baseline = of(path.join(zoo, entry, 'solution.py'));
    const faster = of(path.join(solutions, file));
    expect(faster, JSON.stringify(results)).toMatchObject({status: 'ok'});
    expect(baseline).toMatchObject({status: 'ok'});
    if (minimizes(entry)) expect(faster!.score!).toBeLessThan(baseline!.score!);
    else expect(faster!.score!).toBeGreaterThan(baseline!.score!);
  });
});
