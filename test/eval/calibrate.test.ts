// `arbor benchmark calibrate`: several evals of one solution and their spread.
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {formatCalibration} from '../../lib/eval/calibrate.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const speed = path.join(fixtures, 'eval/prefix-speed');

describe('arbor benchmark calibrate', () => {
  it('reports every eval, the spread of their scores and each case, and the repetitions an eval needs', () => {
    const env = {ARBOR_LEDGER: path.join(tempDir(), 'runs.db')};
    // A copy with a budget past the fewest repetitions, so what it allows is a number to check.
    const dir = path.join(tempDir(), 'prefix-speed');
    cpSync(speed, dir, {recursive: true});
    writeFileSync(path.join(dir, 'plan.toml'), readFileSync(path.join(dir, 'plan.toml'), 'utf8').replace(/^max_seconds = 0 /m, 'max_seconds = 1 '));
    expect(runCli(['benchmark', 'lock', dir]).code).toBe(0);
    const result = runCli(['benchmark', 'calibrate', dir, '--runs', '2', '--json', '--quiet'], {env});
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({split: 'dev', runs: 2, clock: expect.stringMatching(/^(cpu|wall)$/)});
    expect(report.scores).toHaveLength(2);
    expect(report.evals.map((e: {score: number}) => e.score)).toEqual(report.scores);
    const mean = (report.scores[0] + report.scores[1]) / 2;
    expect(report.score.mean).toBeCloseTo(mean, 12);
    expect(report.score.maxOverMin).toBeCloseTo(Math.max(...report.scores) / Math.min(...report.scores), 12);
    expect(report.cases).toHaveLength(3);
    for (const c of report.cases) expect(c.mean).toBeGreaterThan(0);
    // The plan: repetitions = 2, precision = 0.05, max_seconds = 1.
    const {repetition} = report;
    expect(repetition.target).toBe(0.05);
    expect(repetition.needed === null || repetition.needed >= 2).toBe(true);
    expect(repetition.seconds).toBeGreaterThan(0);
    expect(repetition.seconds).toBeLessThanOrEqual(Math.max(...report.evals.map((e: {seconds: number; repetitions: number}) => e.seconds / e.repetitions)));
    expect(repetition.neededSeconds).toBe(repetition.needed === null ? null : repetition.needed * repetition.seconds);
    expect(repetition.budget).toBe(Math.min(100, Math.floor(1 / repetition.seconds)));
    expect(repetition.measured).toBe(report.evals[0].repetitions + report.evals[1].repetitions);
    expect(repetition.minimum).toBe(2);
    // The text the command prints without --json.
    const text = formatCalibration(report).split('\n');
    expect(text[0]).toBe(`calibrate ${report.benchmark} dev: 2 evals (${report.clock} clock)`);
    const needs =
      repetition.needed === null ? 'more repetitions than the cap (100)' : `about ${repetition.needed} repetitions (${repetition.neededSeconds.toFixed(0)} s)`;
    expect(text[2]).toBe(
      `one repetition: CV ${(100 * repetition.cv).toFixed(2)}%, ${repetition.seconds.toFixed(2)} s; for +-5.00% (plan's precision) an eval needs ${needs}; max_seconds allows about ${repetition.budget}${repetition.budget < 2 ? " (the plan's 2 repetitions run anyway)" : ''} (read from ${repetition.measured} measured repetitions)`,
    );
    expect(text.slice(4, 7).map((line) => line.split(/ +/).slice(0, 2).join(' '))).toEqual(['0 0', '0 1', '0 2']);
    // Both evals are on record as calibrations, with their scores.
    const runs = JSON.parse(runCli(['benchmark', 'runs', '--json'], {env}).stdout).runs;
    expect(runs.map((run: {kind: string}) => run.kind)).toEqual(['calibrate', 'calibrate']);
    expect(runs.map((run: {score: number}) => run.score).sort()).toEqual([...report.scores].sort());
  });

  it('refuses fewer than two runs (exit 2)', () => {
    expect(runCli(['benchmark', 'calibrate', speed, '--runs', '1'])).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'arbor: --runs 1: expected a whole number of evals, at least 2\n',
    });
  });
});
