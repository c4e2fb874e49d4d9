// An imported entry evaluated for real (sandboxed runs, interface = "solve"): the baseline passes, AlgoTune's
// solver signature in both forms works, and the objects AlgoTune's validators were hardened against by hand
// are refused where the answer leaves the solution's process.
import {readFileSync, rmSync, writeFileSync, mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {fixtures, runCli} from '../helpers/cli.js';

const shared = mkdtempSync(path.join(tmpdir(), 'arbor-solve-'));
const entry = path.join(shared, 'zoo', 'algotune_xor_bytes');
const loose = path.join(shared, 'zoo', 'algotune_loose_sort');
const solutions = path.join(fixtures, 'algotune-solutions');

interface Report {
  score: number;
  sandbox: string;
  points: {cases: {i: number; status: string; passed: boolean; note?: string}[]}[];
}

function evalDev(solution?: string): {code: number | null; report: Report; stderr: string} {
  const result = runCli(['benchmark', 'eval', entry, 'dev', '--json', ...(solution ? ['--solution', path.join(solutions, solution)] : [])]);
  if (result.code !== 0) throw new Error(`eval exited ${result.code}: ${result.stderr}`);
  return {code: result.code, report: JSON.parse(result.stdout) as Report, stderr: result.stderr};
}

beforeAll(() => {
  const imported = runCli([
    'benchmark',
    'import',
    'algotune',
    path.join(fixtures, 'algotune'),
    path.join(shared, 'zoo'),
    '--task',
    'xor_bytes',
    '--task',
    'loose_sort',
    '--target-ms',
    '1',
    // loose_sort's validator is weak on purpose: verify --probe must find it.
    '--allow-weak-validators',
  ]);
  if (imported.code !== 0) throw new Error(`import failed: ${imported.stderr}`);
  // A short budget: these evals check verdicts, not precision.
  const plan = path.join(entry, 'plan.toml');
  writeFileSync(plan, readFileSync(plan, 'utf8').replace(/^max_seconds = \d+/m, 'max_seconds = 4'));
  const locked = runCli(['benchmark', 'lock', entry]);
  if (locked.code !== 0) throw new Error(`lock failed: ${locked.stdout}${locked.stderr}`);
}, 120_000);
afterAll(() => rmSync(shared, {recursive: true, force: true}));

describe('interface = "solve"', () => {
  it("scores the baseline (the task's own solve) with every case passed, in the sandbox", () => {
    const {report} = evalDev();
    expect(report.sandbox).toBe('bwrap');
    expect(report.points[0]!.cases.map((c) => c.passed)).toEqual([true, true, true, true]);
    expect(report.score).toBeGreaterThan(0);
  });

  it('takes a module-level solve(problem) as well as a class Solver', () => {
    const {report} = evalDev('xor_bytes_module_solve.py');
    expect(report.points[0]!.cases.every((c) => c.passed)).toBe(true);
  });

  it("fails a plain wrong answer by the task's validator, not by the encoding", () => {
    const {report, stderr} = evalDev('xor_bytes_wrong.py');
    expect(report.score).toBe(0);
    expect(report.points[0]!.cases[0]).toMatchObject({status: 'failed', passed: false});
    expect(stderr).not.toContain('AnswerNotCarried');
  });

  it('refuses an object that lies to the validator (__eq__, __len__, a generator, an ndarray subclass) before it leaves the solution', () => {
    const {report} = evalDev('xor_bytes_adversaries.py');
    expect(report.score).toBe(0);
    const cases = report.points[0]!.cases;
    expect(cases.every((c) => c.status === 'crashed')).toBe(true);
    // The fixture cycles through its four objects call by call (a warm-up call included): four cases in a row see each.
    const types = cases.map((c) => /^AnswerNotCarried: solve\(\) returned a value of type (\S+) \(the encoding carries /.exec(c.note ?? '')?.[1]).sort();
    expect(types).toEqual(['builtins.generator', 'solution.Arrayish', 'solution.Liar', 'solution.Sized']);
  });

  it('cannot reach the validator from its own process: patched numpy and is_solution leave a wrong answer failed', () => {
    const {report} = evalDev('xor_bytes_patcher.py');
    expect(report.score).toBe(0);
    expect(report.points[0]!.cases.map((c) => [c.status, c.passed])).toEqual([
      ['failed', false],
      ['failed', false],
      ['failed', false],
      ['failed', false],
    ]);
  });

  it("probes the task's validator with wrong answers built from the reference's own (verify --probe): a loose one is found, a strict one and the object boundary hold", async () => {
    const {probeBenchmark} = await import('../../lib/probe/index.js');
    const found = await probeBenchmark(loose, {only: ['zeros', 'liar']});
    const scores = Object.fromEntries(found.probes.map((p) => [p.probe, p.score]));
    // loose_sort's validator checks the length alone: zeros of the right length pass every case.
    expect(scores.zeros).toBeGreaterThan(0);
    expect(scores.liar).toBe(0);
    expect(found.findings.map((f) => f.ruleId)).toEqual(['probe-score']);
    expect(found.findings[0]!.message).toMatch(
      /^Probe `zeros` \(the reference's answer with every number zero\) scored [\d.]+ on dev, expected 0\.0: the task's validator accepts it on every dev case/,
    );
    const strict = await probeBenchmark(entry, {only: ['first-number-changed']});
    expect(strict.probes.map((p) => [p.probe, p.score])).toEqual([['first-number-changed', 0]]);
    expect(strict.findings).toEqual([]);
  }, 240_000);
});
