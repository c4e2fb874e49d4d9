/** `verify --probe` on entries that fail it: a speedup entry that accepts everything, an accuracy task a trivial answer is partly right on, an eval that cannot run, an entry off its lock. */
import {writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli} from '../helpers/cli.js';
import {acceptEverything, changedCopy, changedCopyLockedAnyway, probeLib, speedFixture} from './helpers.js';

describe('verify --probe on entries that fail it', {timeout: 240_000}, () => {
  it('a copy whose verifier accepts everything fails on the probes that answer', async () => {
    const copy = changedCopy(speedFixture, {'bundle/verify.mjs': acceptEverything('{}')});
    const report = await probeLib.probeBenchmark(copy, {only: ['zeros', 'nan', 'random', 'fake-score']});
    const byName = Object.fromEntries(report.probes.map((p) => [p.probe, p]));
    // NaN is refused by the harness whatever the verifier says.
    expect(byName.nan).toMatchObject({score: 0, ok: true, limit: 0});
    expect(byName.zeros!.score).toBeGreaterThan(0);
    expect(byName.random).toMatchObject({ok: false, limit: 0});
    // fake-score answers zeros unless its trick works: with zeros already rewarded, its score says nothing.
    expect(byName['fake-score']).toMatchObject({ok: true});
    expect(byName['fake-score']!.limit).toBeUndefined();
    expect(report.findings.map((f) => [f.ruleId, /Probe `([a-z-]+)`/.exec(f.message)?.[1]])).toEqual([
      ['probe-score', 'zeros'],
      ['probe-score', 'random'],
    ]);
    expect(report.findings[0]!.message).toMatch(
      /^Probe `zeros` \(every result all zeros, of the right shape and element type\) scored \d+(\.\d+)? on dev, expected 0\.0: the verifier accepts an answer of all zeros; make the verifier check the answer$/,
    );
    expect(report.findings[0]!.file).toBe(copy);
  });

  it('an eval that cannot run is one probe-harness finding, not a score', async () => {
    // lock refuses a reference that crashes (reference-deterministic): the lock is written as by hand.
    const copy = await changedCopyLockedAnyway(speedFixture, {'reference.py': 'def run(state, inputs):\n    raise RuntimeError("broken reference")\n'});
    const refused = runCli(['benchmark', 'lock', copy]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /reference\.py: error: the reference reference\.py could not be run twice on the same cases, .*broken reference.* \(reference-deterministic\)/,
    );
    const result = runCli(['benchmark', 'verify', '--probe', '--json', copy]);
    expect(result.code).toBe(1);
    const [benchmark] = JSON.parse(result.stdout).benchmarks;
    // verify's own finding on the reference, then the one probe finding: the battery stops at its first eval.
    expect(benchmark.findings.map((f: {ruleId: string}) => f.ruleId)).toEqual(['reference-deterministic', 'probe-harness']);
    expect(benchmark.findings[1]).toMatchObject({file: copy, severity: 'error', ruleId: 'probe-harness'});
    expect(benchmark.findings[1].message).toMatch(
      /^The eval cannot run, so no probe could be scored \(probe `zeros`\): the reference solver failed on case 0 of .*broken reference/,
    );
    expect(benchmark.probes).toEqual([expect.objectContaining({probe: 'zeros', score: null, ok: false})]);
    expect(result.stderr).toContain(`${copy}: probe zeros: the eval could not run (error)`);
  });

  it('a protected file that differs from arbor.lock stops the battery: every eval refuses to run', async () => {
    const copy = changedCopy(speedFixture, {});
    writeFileSync(path.join(copy, 'bundle/verify.mjs'), acceptEverything('{}'));
    const report = await probeLib.probeBenchmark(copy);
    expect(report.probes).toEqual([]);
    expect(report.findings).toEqual([
      expect.objectContaining({
        ruleId: 'probe-lock',
        message: `Every eval refuses to run while a protected file differs from arbor.lock (bundle/verify.mjs changed), so no probe can be scored; restore it, or if the change is on purpose run 'arbor benchmark lock ${copy}'`,
      }),
    ]);
  });

  it('a trivial answer that is partly right is reported too: echo on |x| (zeros always runs first, as the bar)', async () => {
    const report = await probeLib.probeBenchmark('test/fixtures/eval/accuracy-abs', {only: ['echo']});
    expect(report.probes.map((p) => p.probe)).toEqual(['zeros', 'echo']);
    const [zeros, echo] = report.probes;
    expect(zeros!.score).toBeLessThan(0.01);
    expect(echo!.score).toBeGreaterThan(0.4);
    expect(report.findings).toEqual([
      {
        file: 'test/fixtures/eval/accuracy-abs',
        severity: 'error',
        ruleId: 'probe-score',
        message: expect.stringMatching(
          /^Probe `echo` \(.*\) scored 0\.\d+ on dev, expected no more than all zeros scores \(0\.\d+\) \+ 0\.01: an answer that is wrong on purpose beats all zeros; check that the verifier checks the answer, or change the task so that this trivial answer earns nothing$/,
        ),
      },
    ]);
  });
});
