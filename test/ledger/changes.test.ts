import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {findChanges, formatChanges, lineagesOf, recordRun, type Change, type LedgerRun, type RunRecord} from '../../lib/ledger/index.js';
import {detectSteps, generator, noiseModel, normalQuantile, stepPenalty, studentQuantile, type SeriesPoint} from '../../lib/stats/index.js';
import {runCli, tempDir} from '../helpers/cli.js';
import {sampleRecord, sha} from './helpers.js';

/** Seeded normal draws, so every series below is the same on every run. */
function normals(seed: number): () => number {
  const random = generator(seed);
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** `levels` as a series with relative noise `cv`, each point with the interval an eval of that noise reports (`shown` of it). */
function series(levels: number[], cv: number, seed: number, {intervals = true, shown = 1} = {}): SeriesPoint[] {
  const gauss = normals(seed);
  return levels.map((level) => {
    const value = level * Math.exp(cv * gauss());
    const half = 1.96 * cv * shown;
    return {value, interval: intervals ? [value * Math.exp(-half), value * Math.exp(half)] : null};
  });
}

const repeat = (level: number, count: number): number[] => Array.from({length: count}, () => level);

describe('detectSteps', () => {
  it('finds a planted regression at its place, with its ratio inside the reported interval', () => {
    const steps = detectSteps(series([...repeat(2, 20), ...repeat(2 * 0.94, 10)], 0.01, 1));
    expect(steps).toHaveLength(1);
    const [step] = steps;
    expect(step!.index).toBe(20);
    expect(step!.before).toMatchObject({start: 0, end: 20});
    expect(step!.after).toMatchObject({start: 20, end: 30});
    expect(step!.ratio).toBeGreaterThan(0.92);
    expect(step!.ratio).toBeLessThan(0.96);
    expect(step!.interval[0]).toBeLessThan(0.94);
    expect(step!.interval[1]).toBeGreaterThan(0.94);
    expect(step!.before.level).toBeCloseTo(2, 1);
  });

  it('finds an improvement and a later regression in one series, in order', () => {
    const steps = detectSteps(series([...repeat(1, 12), ...repeat(1.08, 12), ...repeat(1, 12)], 0.008, 2));
    expect(steps.map((s) => [s.index, s.ratio > 1])).toEqual([
      [12, true],
      [24, false],
    ]);
  });

  it('finds a 5% step three runs before the end of a series of baseline noise (0.7%)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const steps = detectSteps(series([...repeat(1, 25), ...repeat(1.05, 3)], 0.007, 100 + seed));
      expect(steps.map((s) => s.index)).toEqual([25]);
    }
  });

  it('finds nothing in flat noisy series, with intervals, without them, and with intervals showing a quarter of the noise', () => {
    for (let seed = 1; seed <= 30; seed++) {
      expect(detectSteps(series(repeat(1.5, 30), 0.02, seed))).toEqual([]);
      expect(detectSteps(series(repeat(1.5, 30), 0.02, 1000 + seed, {intervals: false}))).toEqual([]);
      expect(detectSteps(series(repeat(1.5, 30), 0.02, 2000 + seed, {shown: 0.25}))).toEqual([]);
    }
  });

  it('takes the noise from the series when the intervals understate it, and from the intervals when they are right', () => {
    const right = noiseModel(series(repeat(1, 40), 0.01, 7));
    expect(right.scale).toBeLessThan(1.5);
    expect(right.dof).toBe(Infinity);
    const narrow = noiseModel(series(repeat(1, 40), 0.02, 7, {shown: 0.25}));
    // The intervals show a quarter of the noise, so a sixteenth of its variance.
    expect(narrow.scale).toBeGreaterThan(8);
    expect(narrow.dof).toBeLessThan(40);
  });

  it('does not take one odd run, or a step with fewer than 3 runs after it, for a step', () => {
    const levels = repeat(1, 30);
    levels[15] = 0.8;
    expect(detectSteps(series(levels, 0.005, 3))).toEqual([]);
    expect(detectSteps(series([...repeat(1, 20), 1.1, 1.1], 0.005, 4))).toEqual([]);
    expect(detectSteps(series([...repeat(1, 20), 1.1, 1.1, 1.1], 0.005, 4)).map((s) => s.index)).toEqual([20]);
  });

  it('sets the penalty by the false-alarm rate: higher for longer series and for an estimated noise', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(studentQuantile(0.05, 10)).toBeCloseTo(2.228139, 5);
    expect(studentQuantile(0.01, 1)).toBeCloseTo(63.65674, 3);
    expect(stepPenalty(6, 3, 0.01)).toBeCloseTo(normalQuantile(0.995) ** 2, 6);
    expect(stepPenalty(40, 3, 0.01)).toBeGreaterThan(stepPenalty(20, 3, 0.01));
    expect(stepPenalty(20, 3, 0.01, 10)).toBeGreaterThan(stepPenalty(20, 3, 0.01));
  });
});

/** Ledger runs built in memory, oldest first, ids from 1. */
function ledgerRuns(records: Partial<RunRecord>[]): LedgerRun[] {
  return records.map((overrides, i) => {
    const record = sampleRecord({time: hour(i), cases: [], ...overrides});
    // No test here records a compare outcome; compare runs count for nothing in a series.
    return {...record, id: i + 1, time: record.time!, solutionLabel: null, compare: null} as LedgerRun;
  });
}

function hour(i: number): string {
  return new Date(Date.UTC(2026, 2, 1) + i * 3_600_000).toISOString();
}

/** A run at `level` (noise 0.5%, seeded by its position), with a matching interval. */
function scored(level: number, i: number, overrides: Partial<RunRecord> = {}): Partial<RunRecord> {
  const [point] = series([level], 0.005, 500 + i);
  return {score: point!.value, interval: point!.interval ?? null, ...overrides};
}

const clean = (n: number) => ({commit: n.toString(16).repeat(40).slice(0, 40), dirty: false});

describe('lineages and findChanges', () => {
  it('groups ok eval runs by digest (any git state) and by clean commit (any digest), oldest first', () => {
    const runs = ledgerRuns([
      {solutionSha256: sha(1), git: clean(1)},
      {solutionSha256: sha(2), git: {commit: 'b'.repeat(40), dirty: true}},
      {solutionSha256: sha(2), git: clean(2)},
      {solutionSha256: sha(1), git: clean(3), status: 'failed', score: 0},
      {solutionSha256: sha(1), git: clean(3), kind: 'compare'},
      {solutionSha256: null, git: null},
      {solutionSha256: sha(1), git: clean(4), split: 'test'},
      {solutionSha256: sha(1), git: clean(4), benchmark: {path: '/zoo/relu', name: 'relu'}},
    ]);
    const groups = lineagesOf([...runs].reverse());
    expect(groups.map((g) => [g.benchmark, g.split, g.kind, g.solutionSha256?.[0] ?? null, g.runs.map((r) => r.id)])).toEqual([
      ['knn', 'dev', 'commits', null, [1, 3]],
      ['knn', 'dev', 'solution', '1', [1]],
      ['knn', 'dev', 'solution', '2', [2, 3]],
      ['knn', 'test', 'commits', null, [7]],
      ['knn', 'test', 'solution', '1', [7]],
      ['relu', 'dev', 'commits', null, [8]],
      ['relu', 'dev', 'solution', '1', [8]],
    ]);
  });

  it("reports a commit's regression in the commits lineage only, with the runs either side", () => {
    // Six clean runs of digest 1 at 2.0, then six of digest 2 at 1.8: each digest is flat, main's history is not.
    const records = [...repeat(2, 6), ...repeat(1.8, 6)].map((level, i) => scored(level, i, {solutionSha256: sha(i < 6 ? 1 : 2), git: clean(i + 1)}));
    const changes = findChanges(ledgerRuns(records));
    expect(changes).toHaveLength(1);
    const [change] = changes as [Change];
    expect(change).toMatchObject({
      benchmark: 'knn',
      split: 'dev',
      lineage: 'commits',
      solutionSha256: null,
      direction: 'regression',
      environmentChanged: false,
    });
    expect(change.ratio).toBeCloseTo(0.9, 2);
    expect([change.before.run.id, change.after.run.id]).toEqual([6, 7]);
    expect([change.before.runs, change.after.runs]).toEqual([6, 6]);
    expect(change.before.run.git).toEqual(clean(6));
    expect(change.after.run.solutionSha256).toBe(sha(2));
  });

  it('calls a step down an improvement on a benchmark whose plan says direction = "minimize"', () => {
    const records = [...repeat(2, 6), ...repeat(1.8, 6)].map((level, i) => scored(level, i, {solutionSha256: sha(i < 6 ? 1 : 2), git: clean(i + 1)}));
    const [change] = findChanges(ledgerRuns(records), {minimize: new Set(['knn'])});
    expect(change).toMatchObject({benchmark: 'knn', direction: 'improvement'});
    expect(change!.ratio).toBeCloseTo(0.9, 2);
    expect(findChanges(ledgerRuns(records), {minimize: new Set(['relu'])})[0]).toMatchObject({direction: 'regression'});
  });

  it("reports a machine change under the same digest in its solution lineage, and leaves dirty runs out of the commits'", () => {
    const dirty = {commit: 'c'.repeat(40), dirty: true};
    const records = [...repeat(1, 8), ...repeat(1.1, 4)].map((level, i) =>
      scored(level, i, {solutionSha256: sha(3), git: dirty, environment: {fingerprint: i < 8 ? 'machine-a' : 'machine-b'}}),
    );
    const changes = findChanges(ledgerRuns(records));
    expect(changes.map((c) => [c.lineage, c.solutionSha256, c.direction, c.before.run.id, c.after.run.id, c.environmentChanged])).toEqual([
      ['solution', sha(3), 'improvement', 8, 9, true],
    ]);
    expect(Math.abs(changes[0]!.ratio - 1.1)).toBeLessThan(0.015);
    expect(findChanges(ledgerRuns(records), {lineages: ['commits']})).toEqual([]);
  });

  it('never puts a step between series: benchmarks and splits at different levels, interleaved in time', () => {
    const records = Array.from({length: 24}, (_, i) =>
      scored(i % 3 === 0 ? 2 : i % 3 === 1 ? 1 : 0.5, i, {
        benchmark: i % 3 === 0 ? {path: '/zoo/knn', name: 'knn'} : {path: '/zoo/relu', name: 'relu'},
        split: i % 3 === 2 ? 'test' : 'dev',
      }),
    );
    expect(findChanges(ledgerRuns(records))).toEqual([]);
  });

  it('prints one line per step, and a line saying so when there is none', () => {
    const records = [...repeat(2, 6), ...repeat(1.8, 6)].map((level, i) => scored(level, i, {solutionSha256: sha(i < 6 ? 1 : 2), git: clean(i + 1)}));
    const [change] = findChanges(ledgerRuns(records));
    const text = formatChanges([change!], {ledger: '/l/runs.db'});
    const interval = change!.interval.map((v) => v.toFixed(3)).join(', ');
    expect(text).toBe(
      'Run ledger /l/runs.db: 1 step(s) in the score series\n' +
        `  knn dev commits: regression x${change!.ratio.toFixed(3)} [${interval}] between #6 (2026-03-01 05:00:00Z, ${'6'.repeat(10)}) and #7 (2026-03-01 06:00:00Z, ${'7'.repeat(10)})` +
        ` (6 run(s) at ${Number(change!.before.level.toPrecision(4))}, then 6 at ${Number(change!.after.level.toPrecision(4))})\n`,
    );
    expect(formatChanges([], {ledger: '/l/runs.db'})).toBe(
      'No regression or improvement found in /l/runs.db (a step needs 3 scored eval runs on each side whose intervals separate).\n',
    );
  });
});

describe('arbor benchmark runs --changes', () => {
  /** A ledger with one digest's runs: 10 at 1.5, then 4 at 1.5 * 0.93 (a regression), and a flat series on test. */
  function planted() {
    const dir = tempDir();
    const file = path.join(dir, 'runs.db');
    const ids: number[] = [];
    const levels = [...repeat(1.5, 10), ...repeat(1.5 * 0.93, 4)];
    levels.forEach((level, i) => {
      const outcome = recordRun(file, sampleRecord({time: hour(i), ...scored(level, i, {git: {commit: 'd'.repeat(40), dirty: true}})}));
      if (!outcome.ok) throw new Error(outcome.warning);
      ids.push(outcome.id);
    });
    for (let i = 0; i < 8; i++) recordRun(file, sampleRecord({time: hour(20 + i), split: 'test', ...scored(1.2, 100 + i)}));
    return {dir, file, last: ids[9]!, first: ids[10]!};
  }

  it('prints the planted step with the runs either side', () => {
    const {dir, file, last, first} = planted();
    const result = runCli(['benchmark', 'runs', '--changes'], {cwd: dir, env: {ARBOR_LEDGER: file}});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`Run ledger ${file}: 1 step(s) in the score series`);
    expect(lines).toHaveLength(4);
    // What the series were made of: the 14 dev runs at an uncommitted state are in their digest's series only.
    expect(lines.slice(2)).toEqual([
      '  Read 22 run(s): 22 ok eval run(s) in 3 series (the longest holds 14; a step needs 6).',
      '  14 of the ok eval run(s) were made at an uncommitted state (a dirty working tree, or outside git): left out of the commits series, each only in the series of its own solution digest; commit, then eval, for a run to count in the commits series.',
    ]);
    expect(lines[1]).toMatch(
      new RegExp(
        `^ {2}knn dev solution ${'a'.repeat(12)}: regression x0\\.9[2-4]\\d \\[0\\.\\d+, 0\\.\\d+\\] between #${last} \\(2026-03-01 09:00:00Z, d{10}\\+dirty\\) and #${first} \\(2026-03-01 10:00:00Z, d{10}\\+dirty\\) \\(10 run\\(s\\) at 1\\.\\d+, then 4 at 1\\.\\d+\\)$`,
      ),
    );
  });

  it('gives the steps as JSON with --json, and says when there is none', () => {
    const {dir, file, last, first} = planted();
    const result = runCli(['benchmark', 'runs', '--changes', '--json'], {cwd: dir, env: {ARBOR_LEDGER: file}});
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {ledger: string; changes: Change[]};
    expect(report.ledger).toBe(file);
    expect(report.changes.map((c) => [c.benchmark, c.split, c.lineage, c.direction, c.before.run.id, c.after.run.id, c.before.runs, c.after.runs])).toEqual([
      ['knn', 'dev', 'solution', 'regression', last, first, 10, 4],
    ]);
    expect(report.changes[0]!.ratio).toBeCloseTo(0.93, 1);
    expect(report.changes[0]!.interval[0]).toBeLessThan(report.changes[0]!.ratio);
    const test = runCli(['benchmark', 'runs', '--changes', '--split', 'test'], {cwd: dir, env: {ARBOR_LEDGER: file}});
    expect(test.code).toBe(0);
    expect(test.stdout).toBe(
      `No regression or improvement found in ${file} (a step needs 3 scored eval runs on each side whose intervals separate).\n` +
        '  Read 8 run(s): 8 ok eval run(s) in 2 series (the longest holds 8; a step needs 6).\n',
    );
    const coverage = JSON.parse(runCli(['benchmark', 'runs', '--changes', '--json', '--split', 'test'], {cwd: dir, env: {ARBOR_LEDGER: file}}).stdout).coverage;
    expect(coverage).toEqual({runs: 8, counted: 8, leftOut: [], uncommitted: 0, series: 2, longest: 8, metrics: ['speedup']});
  });

  it("says how many runs it left out and why when it finds nothing, and speaks of an accuracy entry's scores without intervals", () => {
    const dir = tempDir();
    const file = path.join(dir, 'runs.db');
    const record = (i: number, overrides: Partial<RunRecord>) => {
      const outcome = recordRun(file, sampleRecord({time: hour(i), metric: 'accuracy', interval: null, ...overrides}));
      if (!outcome.ok) throw new Error(outcome.warning);
    };
    // A new user's history of an accuracy entry: every eval at an uncommitted state of a new edit, one failed eval, one compare.
    const dirty = {commit: 'd'.repeat(40), dirty: true};
    for (let i = 0; i < 5; i++) record(i, {score: 0.5 + i / 100, solutionSha256: sha(i + 1), git: dirty});
    record(5, {score: 0, status: 'failed', solutionSha256: sha(6), git: dirty});
    record(6, {
      kind: 'compare',
      score: 0.55,
      solutionSha256: sha(7),
      git: dirty,
      compare: {verdict: 'better', ratio: 1.1, interval: [1, 1.2], baselineSha256: sha(5), baselineRun: null, baselineLabel: 'solution.py'},
    });
    const none = runCli(['benchmark', 'runs', '--changes'], {cwd: dir, env: {ARBOR_LEDGER: file}});
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toBe(
      `No regression or improvement found in ${file} (a step needs 3 scored eval runs on each side whose scores differ by more than the series scatters: accuracy runs have no interval).\n` +
        '  Read 7 run(s): 5 ok eval run(s) in 5 series (the longest holds 1; a step needs 6); left out of every series: 1 failed or gave no score, 1 compare run(s), not evals.\n' +
        '  5 of the ok eval run(s) were made at an uncommitted state (a dirty working tree, or outside git): left out of the commits series, each only in the series of its own solution digest; commit, then eval, for a run to count in the commits series.\n',
    );
    // The same entry committed before each eval: a step at a commit, its scores without an interval.
    const committed = path.join(tempDir(), 'runs.db');
    [...repeat(0.8, 6), ...repeat(0.7, 6)].forEach((score, i) => {
      const outcome = recordRun(
        committed,
        sampleRecord({time: hour(i), metric: 'accuracy', score, interval: null, solutionSha256: sha(i < 6 ? 1 : 2), git: clean(i + 1)}),
      );
      if (!outcome.ok) throw new Error(outcome.warning);
    });
    const step = runCli(['benchmark', 'runs', '--changes'], {cwd: dir, env: {ARBOR_LEDGER: committed}});
    expect(step.code, step.stderr).toBe(0);
    const lines = step.stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(
      /^ {2}knn dev commits: regression x0\.875 between #6 \(.*\) and #7 \(.*\) \(6 run\(s\) at 0\.8, then 6 at 0\.7 \(accuracy scores, no intervals\)\)$/,
    );
    expect(step.stdout).not.toMatch(/\[/);
  });
});
