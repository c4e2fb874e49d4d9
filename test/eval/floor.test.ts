// The harness floor: what a timed case costs that is not the solution's, and the largest speedup an eval can show;
// in the eval's report, on stderr near the ceiling, in the ledger, and in `list --json` without running anything.
import {cpSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {ceilingLine} from '../../lib/eval/floor.js';
import {recordRun} from '../../lib/ledger/index.js';
import {sampleRecord} from '../ledger/helpers.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

/** A zoo of two fixture entries (speed and accuracy) in a temporary folder outside any repository: its ledger is the zoo's own. */
function fixtureZoo(): string {
  const zoo = tempDir('arbor-floor-');
  cpSync(path.join(fixtures, 'eval/prefix-speed'), path.join(zoo, 'prefix-speed'), {recursive: true});
  cpSync(path.join(fixtures, 'eval/accuracy-abs'), path.join(zoo, 'accuracy-abs'), {recursive: true});
  return zoo;
}

/** `list --json`'s harnessCeiling per entry name. */
function ceilings(zoo: string): Record<string, unknown> {
  const listed = runCli(['benchmark', 'list', zoo, '--json', '--no-cache'], {env: {ARBOR_LEDGER: ''}});
  expect(listed.code, listed.stderr).toBe(0);
  const entries = JSON.parse(listed.stdout).benchmarks as Array<{name: string; harnessCeiling: unknown}>;
  return Object.fromEntries(entries.map((entry) => [entry.name, entry.harnessCeiling]));
}

const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;

describe('harness floor', () => {
  it("reports the floor and the ceiling it implies, from the report's own fields, and list --json states it after the eval and null before", () => {
    const zoo = fixtureZoo();
    expect(ceilings(zoo)).toEqual({'prefix-speed': null, 'accuracy-abs': null});

    const json = path.join(zoo, 'report.json');
    const result = runCli(['benchmark', 'eval', path.join(zoo, 'prefix-speed'), 'dev', '--json-file', json], {env: {ARBOR_LEDGER: ''}});
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    // Each point's ceiling is the mean over its cases of the reference's time over the point's floor (its null cases' median).
    const perCase: number[] = [];
    const floors: number[] = [];
    for (const point of report.points) {
      expect(point.overhead.seconds).toBeGreaterThan(0);
      expect(point.harnessFloor.floorSeconds).toBe(point.overhead.seconds);
      const ceilings = point.cases.map((c: {referenceSeconds: number}) => c.referenceSeconds / point.overhead.seconds);
      expect(point.harnessFloor.maxSpeedup).toBeCloseTo(mean(ceilings), 9);
      perCase.push(...ceilings);
      floors.push(...point.cases.map(() => point.overhead.seconds));
    }
    // The eval's, aggregated as the score is: the mean over every case of every point.
    expect(report.harnessFloor.maxSpeedup).toBeCloseTo(mean(perCase), 9);
    expect(report.harnessFloor.floorSeconds).toBeCloseTo(mean(floors), 12);
    // A passing solution's cases each take at least the floor, so its score stays under the ceiling.
    expect(report.failure).toBeUndefined();
    expect(report.score).toBeLessThanOrEqual(report.harnessFloor.maxSpeedup);

    const listed = ceilings(zoo);
    expect(listed['accuracy-abs']).toBeNull();
    expect(listed['prefix-speed']).toEqual({
      floorSeconds: report.harnessFloor.floorSeconds,
      maxSpeedup: report.harnessFloor.maxSpeedup,
      split: 'dev',
      runId: 1,
      measuredAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });

    // The report shows it beside the entry's latest dev score, and its model carries it per split.
    const page = path.join(zoo, 'report.html');
    const written = runCli(['benchmark', 'report', zoo, '--out', page], {env: {ARBOR_LEDGER: ''}});
    expect(written.code, written.stderr).toBe(0);
    const row = /<tr data-entry="prefix-speed">.*?<\/tr>/.exec(readFileSync(page, 'utf8'))?.[0] ?? '';
    expect(row).toMatch(/data-label="dev latest"[^>]*>.*?<span class="ceiling" [^>]*>max [\d.]+<\/span>/);
    expect(row.match(/class="ceiling"/g)).toHaveLength(1);

    // A ledger planted for `runs --merge` with a newer, flattering ceiling: imported runs are not this machine's, never the figure.
    const planted = path.join(zoo, 'planted.db');
    const entry = {path: path.join(zoo, 'prefix-speed'), name: 'eval_prefix'};
    const later = new Date(Date.now() + 86_400_000).toISOString();
    const plant = (file: string, harnessFloor: unknown) =>
      expect(recordRun(file, sampleRecord({benchmark: entry, time: later, environment: {fingerprint: '0123456789abcdef', harnessFloor} as never})).ok).toBe(
        true,
      );
    plant(planted, {floorSeconds: 1e-9, maxSpeedup: 1e9});
    const ledger = path.join(zoo, '.arbor', 'runs.db');
    const merged = runCli(['benchmark', 'runs', '--ledger', ledger, '--merge', planted]);
    expect(merged.code, merged.stderr).toBe(0);
    // A figure that is not two positive finite numbers (a damaged or hand-edited record) is no figure either.
    plant(ledger, {floorSeconds: '0.001', maxSpeedup: -1});
    expect(ceilings(zoo)['prefix-speed']).toMatchObject({maxSpeedup: report.harnessFloor.maxSpeedup, runId: 1});
  });

  it('says on stderr, in one line, when a score is within half of its ceiling, and not otherwise', () => {
    const harnessFloor = {floorSeconds: 0.0004, maxSpeedup: 8.24};
    const line = ceilingLine({score: 6.1, harnessFloor});
    expect(line).toBe(
      "note: this eval cannot show a speedup above 8.240 on this machine: 400 µs of every case is the harness's (delivering its inputs, taking its answer), not the solution's; a score of 6.100 is 0.74 of that ceiling",
    );
    expect(ceilingLine({score: 4.0, harnessFloor})).toBeUndefined();
    expect(ceilingLine({score: 0, failure: 'case 0: crashed', harnessFloor})).toBeUndefined();
    expect(ceilingLine({score: 6.1})).toBeUndefined();
  });
});
