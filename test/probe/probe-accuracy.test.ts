/** `verify --probe` on an accuracy entry: the shipped relu_poly passes, a copy that accepts everything fails. */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {type CliResult, repoRoot, runCliAsync} from '../helpers/cli.js';
import {acceptEverything, changedCopy} from './helpers.js';

const reluPoly = path.join(repoRoot, 'zoo/relu_poly');
const allProbes = ['zeros', 'empty', 'none', 'wrong-shape', 'wrong-dtype', 'nan', 'echo', 'random', 'constant', 'crash', 'sleep', 'fake-score', 'hunt'];

interface ProbeJson {
  probe: string;
  score: number | null;
  limit?: number;
  ok: boolean;
  seconds: number;
  note?: string;
}

describe('verify --probe on an accuracy entry', {timeout: 240_000}, () => {
  // The two batteries, started side by side before the first test (each eval leases one of the machine's CPUs, and
  // neither reads the other's folder); each test reads its own. The copy is removed after the last test.
  let root: string;
  let copy: string;
  let shipped: Promise<CliResult>;
  let accepting: Promise<CliResult>;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'arbor-probe-test-'));
    shipped = runCliAsync(['benchmark', 'verify', '--probe', '--json', 'zoo/relu_poly']);
    copy = changedCopy(reluPoly, {'bundle/verify.mjs': acceptEverything('{within: point.M, of: point.M}')}, root);
    accepting = runCliAsync(['benchmark', 'verify', '--probe', copy]);
  });
  afterAll(async () => {
    await Promise.allSettled([shipped, accepting]);
    rmSync(root, {recursive: true, force: true});
  });

  it('zoo/relu_poly passes: no probe scores more than all zeros does (about half)', async () => {
    const result = await shipped;
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.ok).toBe(true);
    const [benchmark] = report.benchmarks;
    expect(benchmark.findings).toEqual([]);
    const probes = benchmark.probes as ProbeJson[];
    expect(probes.map((p) => p.probe)).toEqual(allProbes);
    const zeros = probes[0]!.score!;
    expect(zeros).toBeGreaterThan(0.4);
    expect(zeros).toBeLessThan(0.6);
    for (const probe of probes) {
      expect(probe.ok, probe.probe).toBe(true);
      expect(probe.limit).toBeCloseTo(zeros + 0.01, 12);
      expect(probe.score!).toBeLessThanOrEqual(zeros);
    }
    // Answers that are no answer at all score nothing, and the eval says why.
    for (const name of ['empty', 'none', 'wrong-shape', 'wrong-dtype', 'nan', 'crash', 'sleep']) {
      const probe = probes.find((p) => p.probe === name)!;
      expect(probe.score, name).toBe(0);
      expect(probe.note, name).toMatch(/^case 0: /);
    }
    // Killed at the probes' per-case limit, not the plan's 60 s.
    expect(probes.find((p) => p.probe === 'sleep')!.note).toMatch(/^case 0: timeout \(killed at the case time limit of 3\.000 s\)$/);
    expect(result.stderr).toMatch(/^zoo\/relu_poly: probe zeros scored 0\.\d+ in \d+\.\d s$/m);
  });

  it('a copy whose verifier accepts everything fails, naming the probes that scored', async () => {
    const result = await accepting;
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    // The trivial answers (the checker's battery) are findings of their own (probe-answer): the probes' are these.
    const findings = lines.slice(0, -1).filter((line) => line.endsWith('(probe-score)'));
    expect(lines.slice(0, -1).filter((line) => line.endsWith('(probe-answer)')).length).toBeGreaterThan(0);
    expect(findings.map((line) => /Probe `([a-z-]+)`/.exec(line)?.[1])).toEqual(['zeros', 'echo', 'random', 'constant']);
    for (const line of findings) {
      expect(line.startsWith(`${copy}: error: Probe \``)).toBe(true);
      expect(line).toContain('passed every case on dev (score 1), expected the verifier to fail them');
      expect(line.endsWith('(probe-score)')).toBe(true);
    }
    expect(findings[0]).toContain('the verifier accepts an answer of all zeros; make the verifier check the answer');
    expect(lines.at(-1)).toMatch(new RegExp(`^${copy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${lines.length - 1} errors \\(13 probes in \\d+\\.\\d s\\)$`));
    expect(result.stderr).toContain(`${copy}: probe random scored 1 in `);
  });
});
