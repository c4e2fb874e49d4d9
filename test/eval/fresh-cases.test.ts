// Fresh cases: a speed plan over seeds times cases no run has seen, every repetition and every
// eval, so an answer remembered anywhere (a file, the page cache, a daemon) is never asked again.
// Without the sandbox /tmp is shared between runs: cache-tmp.py's cache is the channel a
// sandboxed run lacks, and the test reads what it left there.
import {readFileSync, readdirSync, rmSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it, onTestFinished} from 'vitest';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {evaluate, marker, sandboxed, unsandboxedEnv} from './adversaries.js';

describe('fresh cases every repetition', () => {
  it('an answer cached across repetitions is never asked again: every repetition brings the cache new cases', () => {
    const prefix = `${marker()}-`;
    const cached = () => readdirSync('/tmp').filter((name) => name.startsWith(prefix));
    onTestFinished(() => cached().forEach((name) => rmSync(`/tmp/${name}`, {force: true})));
    const plan = {'repetitions = 2': 'repetitions = 3'};
    const {report, score} = evaluate('prefix-speed', 'cache-tmp.py', {replace: {'arbor-cache-': prefix}, plan, args: ['--unsandboxed'], env: unsandboxedEnv});
    expect(report.seeds).toEqual({source: 'fresh', count: 3});
    const repetitions = report.points[0].repetitions as number;
    expect(repetitions).toBeGreaterThanOrEqual(3);
    // One file per distinct input: each repetition's 3 cases, and the one untimed warm-up case of the point.
    expect(cached()).toHaveLength(repetitions * 3 + 1);
    // Computing with a Python loop is the reference's own speed: about 1, far below numpy's baseline.
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(3);
    // A second eval draws cases of its own: nothing the first one cached is asked.
    const again = evaluate('prefix-speed', 'cache-tmp.py', {replace: {'arbor-cache-': prefix}, plan, args: ['--unsandboxed'], env: unsandboxedEnv});
    expect(cached()).toHaveLength((repetitions + (again.report.points[0].repetitions as number)) * 3 + 2);
  });

  it.skipIf(!sandboxed)('an accuracy plan keeps its fixed seeds: its score and its cases are the same every eval', () => {
    const entry = path.join(fixtures, 'eval/accuracy-abs');
    const reports = [0, 1].map(() => {
      const json = path.join(tempDir(), 'report.json');
      const result = runCli(['benchmark', 'eval', entry, 'dev', '--json-file', json]);
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(readFileSync(json, 'utf8'));
    });
    expect(reports[0].seeds.source).toBe('published');
    expect(reports[0].score).toBeGreaterThan(0);
    expect(reports[1].score).toBe(reports[0].score);
    const metrics = (report: {points: Array<{cases: Array<{metrics: unknown}>}>}) => report.points.flatMap((p) => p.cases.map((c) => c.metrics));
    expect(metrics(reports[1])).toEqual(metrics(reports[0]));
  });
});

describe('fresh cases of uneven difficulty', () => {
  it("a case's limit comes from the reference's time on that same case: the baseline passes every draw, the slow ones too", () => {
    // Half the draws sleep 0.2 s, half 0.01 s. A limit from another draw (10 x 0.01 s) killed the baseline
    // on a slow draw, most often in a repetition where the solution runs before the reference.
    const result = runCli(['benchmark', 'eval', path.join(fixtures, 'eval/uneven-speed'), 'dev', '--json'], {});
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      score: number;
      failure?: string;
      points: Array<{repetitions: number; cases: Array<{status: string; passed: boolean; referenceRepetitions: number[]}>}>;
    };
    expect(report.failure).toBeUndefined();
    expect(report.points[0]!.repetitions).toBe(4);
    const cases = report.points[0]!.cases;
    expect(cases.map((c) => [c.status, c.passed])).toEqual(cases.map(() => ['ok', true]));
    // What makes the test bite: some case slot drew both a quick and a slow case (all but (1/8)^6 of evals).
    expect(cases.some((c) => Math.max(...c.referenceRepetitions) > 10 * Math.min(...c.referenceRepetitions))).toBe(true);
    expect(report.score).toBeGreaterThan(0.8);
    expect(report.score).toBeLessThan(1.25);
  });
});
