// Runs kept across repetitions (lib/eval/point-runs.ts keepsRuns) are never served a case they have met:
// a solution that remembers its answers, keyed by the inputs' bytes, must score what its algorithm is worth.
import {cpSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {cgroupsWork, createGroup} from '../../lib/sandbox/cgroup.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {evaluate, rewritePlan, sandboxed, solutions} from './adversaries.js';

/** The reference's own Python loop plus a dict of answers: its first meeting with a case costs the honest time, a replay nothing. */
const memo = 'memo-replay.py';
/** The fixtures' own: 2 repetitions, no more (max_seconds = 0), both served by one kept run where runs are kept. */
const repetitions = 2;

/** Whether a cgroup made here can be frozen (so an eval over fresh cases keeps its runs across repetitions). */
function keptRunsHere(): boolean {
  if (!cgroupsWork()) return false;
  const group = createGroup();
  group?.destroy();
  return group?.canFreeze === true;
}

/**
 * A copy of the prefix-sum path split whose dev and test folders each hold one work directory of
 * 2 cases at N = 100000 (the reference's loop takes about 10 ms a case, delivery well under 1), with
 * its 2 repetitions and no more; the memo solution inside it as candidate.py.
 */
function makePathEntry(root: string): {dir: string; candidate: string} {
  const dir = path.join(root, 'prefix-path');
  cpSync(path.join(fixtures, 'eval/prefix-path'), dir, {recursive: true});
  for (const old of ['data/dev/large', 'data/dev/small', 'data/test/held']) rmSync(path.join(dir, old), {recursive: true});
  for (const [split, seeds] of [
    ['dev', '0-1'],
    ['test', '10-11'],
  ]) {
    const made = runCli(['bundle', path.join(dir, 'bundle'), 'make', path.join(dir, 'data', split!, 'big'), '--point', '{"N": 100000}', '--seeds', seeds!]);
    expect(made.code, made.stderr).toBe(0);
  }
  rewritePlan(dir, {'max_seconds = 3': 'max_seconds = 0'});
  const candidate = path.join(dir, 'candidate.py');
  cpSync(path.join(solutions, memo), candidate);
  return {dir, candidate};
}

/** `arbor benchmark eval` or `compare` with a JSON report: its streams and the report. */
function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const json = path.join(tempDir(), 'report.json');
  const result = runCli([...args, '--json-file', json], {env: {ARBOR_LEDGER: path.join(tempDir(), 'runs.db'), ...env}});
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).not.toMatch(/internal error|Traceback/);
  return {stdout: result.stdout, stderr: result.stderr, report: JSON.parse(readFileSync(json, 'utf8'))};
}

describe.skipIf(!sandboxed)('a run kept across repetitions never meets a case twice', () => {
  // The path entry, made once for the tests that read it (neither changes it).
  let root: string;
  let entry: {dir: string; candidate: string};
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'arbor-test-kept-'));
    entry = makePathEntry(root);
  });
  afterAll(() => rmSync(root, {recursive: true, force: true}));

  it('scores a memo of answers at its honest level on a path split, dev and the local test split: a fresh run every repetition', () => {
    const {dir, candidate} = entry;
    for (const split of ['dev', 'test']) {
      const {stdout, report} = run(['benchmark', 'eval', dir, split, '--solution', candidate, '--quiet']);
      expect(report).toMatchObject({sandbox: 'bwrap', seeds: {source: 'files', count: 2}, repetitions});
      for (const c of report.points[0].cases) expect(c).toMatchObject({status: 'ok', passed: true});
      // Served its cases on kept runs it scored 25.3 on dev (27.7 and 27.6 on dev and test with 4
      // repetitions): the reference's ~13 ms against the memo's replays of under 1 ms from the second
      // repetition on. Fresh runs leave it the reference's own loop: about 1.
      const score = Number(stdout.slice('score: '.length));
      expect(score, split).toBeLessThan(2);
      expect(score, split).toBeGreaterThan(0.3);
      // A run of the reference and one of the solution in every repetition (runs kept: 2 in all).
      expect(report.runs, split).toBe(2 * repetitions);
    }
  });

  it('keeps the runs of a seed split, whose every repetition draws fresh cases: the memo meets no case twice there either', () => {
    const {score, report} = evaluate('prefix-speed', memo);
    expect(report).toMatchObject({sandbox: 'bwrap', seeds: {source: 'fresh'}, repetitions});
    expect(score).toBeLessThan(2);
    expect(score).toBeGreaterThan(0.3);
    // One run of the reference and one of the solution, kept for every repetition (ARBOR_REPETITIONS_PER_RUN's 4),
    // where a cgroup can be frozen; else a fresh pair each repetition at least (runs started ahead of their turn count
    // too: 6 for 2 repetitions as an ordinary user, where no cgroup can be frozen).
    if (keptRunsHere()) expect(report.runs).toBe(2);
    else expect(report.runs).toBeGreaterThanOrEqual(2 * repetitions);
  });

  it('says that a compare asked to pair by case on a path split pairs by run, on fresh runs', () => {
    const {dir, candidate} = entry;
    const {stderr, report} = run(['benchmark', 'compare', dir, path.join(dir, 'solution.py'), candidate], {ARBOR_COMPARE_PAIRING: 'case'});
    if (keptRunsHere())
      expect(stderr).toContain(
        "note: ARBOR_COMPARE_PAIRING=case needs runs kept across repetitions, which this split does not get (a path split's cases are served again every repetition, and a kept run could answer them from memory): each repetition runs each side fresh, paired by run",
      );
    expect(report).toMatchObject({pairing: 'paired', pairedBy: 'run', repetitions});
    for (const side of ['baseline', 'candidate']) expect(report.reports[side].runs, side).toBe(3 * repetitions);
  });
});
