// The kinds of validator hole AlgoTune's maintainers closed by hand again and again (docs/algotune-validators.md),
// each in a tiny AlgoTune-shaped task (test/fixtures/algotune-holes) whose validator has that hole alone:
// rows checked on a sample (kd_tree), repeats a set comparison drops (convex_hull), a row of one item
// repeated (kd_tree's nearest neighbour k times), a check that normalises the answer's own scale away, and
// an error bound loose enough that a part of the answer may be nothing (randomized_svd's singular values).
// The import's probes record each hole, `list --json` shows it, and `verify --probe` flags it through the eval.
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {fixtures, runCli} from '../helpers/cli.js';
import {probeLib} from './helpers.js';

const shared = mkdtempSync(path.join(tmpdir(), 'arbor-holes-'));
const zoo = path.join(shared, 'zoo');

/** Each fixture task and the one probe its hole lets through. */
const holes = {
  sampled_rows: 'last-number-changed',
  set_indices: 'item-repeated',
  top_values: 'row-first-repeated',
  unit_direction: 'scaled',
  loose_parts: 'smallest-part-zeros',
} as const;
/** What each validator accepts of the import's probes: its hole's probe, and for loose_parts the last number too (a length off by a thousandth is within its bound). */
const acceptedAtImport = (task: string, probe: string) => (task === 'loose_parts' ? ['last-number-changed', probe] : [probe]);
const added = Object.values(holes);

beforeAll(() => {
  const tasks = Object.keys(holes).flatMap((task) => ['--task', task]);
  const imported = runCli(['benchmark', 'import', 'algotune', path.join(fixtures, 'algotune-holes'), zoo, '--target-ms', '1', '--json', ...tasks]);
  // Each is imported: a hole that costs a solve is a caveat, not a skip.
  if (imported.code !== 0) throw new Error(`import failed (exit ${imported.code}): ${imported.stderr}`);
}, 120_000);
afterAll(() => rmSync(shared, {recursive: true, force: true}));

describe('probes for the holes AlgoTune fixed by hand', () => {
  it("records at the import the hole each validator has, and no other of the new probes (each fixture is the others' control); list --json shows it", () => {
    for (const [task, probe] of Object.entries(holes)) {
      const record = JSON.parse(readFileSync(path.join(zoo, `algotune_${task}`, '.arbor-import.json'), 'utf8')) as {
        validator: {tried: string[]; accepted: {probe: string; everyCase: boolean; costless: boolean}[]};
      };
      expect(record.validator.accepted, task).toEqual(acceptedAtImport(task, probe).map((p) => ({probe: p, everyCase: true, costless: false})));
      // Every new probe that applies was tried: set_indices has no float for `scaled`, and only loose_parts has parts.
      const applies = (p: string) => !(task === 'set_indices' && p === 'scaled') && (p !== 'smallest-part-zeros' || task === 'loose_parts');
      expect(record.validator.tried, task).toEqual(expect.arrayContaining(added.filter(applies)));
    }
    const listed = runCli(['benchmark', 'list', zoo, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = (JSON.parse(listed.stdout) as {benchmarks: {name: string; validator?: {accepted: {probe: string}[]}}[]}).benchmarks;
    expect(Object.fromEntries(rows.map((r) => [r.name, r.validator?.accepted.map((a) => a.probe)]))).toEqual(
      Object.fromEntries(Object.entries(holes).map(([task, probe]) => [`algotune_${task}`, acceptedAtImport(task, probe)])),
    );
  });

  it('flags each hole through the eval (verify --probe), with the line saying what to check', async () => {
    for (const [task, probe] of Object.entries(holes)) {
      const found = await probeLib.probeBenchmark(path.join(zoo, `algotune_${task}`), {only: [probe]});
      expect(
        found.probes.map((p) => [p.probe, p.ok]),
        task,
      ).toEqual([[probe, false]]);
      expect(
        found.findings.map((f) => f.ruleId),
        task,
      ).toEqual(['probe-score']);
      expect(found.findings[0]!.message).toMatch(
        new RegExp(
          `^Probe \`${probe}\` \\(the reference's answer with .*\\) scored [\\d.]+ on dev, expected 0\\.0: the task's validator accepts it on every dev case`,
        ),
      );
    }
  }, 240_000);

  it('gives NaN to complex and numpy scalar answers too: a validator whose error > tol never fires on NaN skips the import (polynomial_mixed before 06c8bdf)', () => {
    const result = runCli([
      'benchmark',
      'import',
      'algotune',
      path.join(fixtures, 'algotune-holes'),
      path.join(shared, 'nan-zoo'),
      '--target-ms',
      '1',
      '--json',
      '--task',
      'complex_roots',
    ]);
    expect(result.code).toBe(1);
    const outcome = (JSON.parse(result.stdout) as {tasks: {status: string; reason?: string; detail?: string}[]}).tasks[0]!;
    expect(outcome).toMatchObject({status: 'skipped', reason: 'weak-validator'});
    expect(outcome.detail).toMatch(/^is_solution accepted an answer that costs nothing: nan \(`\[np\.complex128\(nan\+nanj\)/);
  });

  it('scores the other new probes 0 where the validator has no such hole', async () => {
    // sampled_rows checks every row's length and the sampled rows' values: a repeated first row and a row of one item fail.
    const strict = await probeLib.probeBenchmark(path.join(zoo, 'algotune_sampled_rows'), {only: ['item-repeated', 'row-first-repeated', 'scaled']});
    expect(strict.probes.map((p) => [p.probe, p.score])).toEqual([
      ['item-repeated', 0],
      ['row-first-repeated', 0],
      ['scaled', 0],
    ]);
    expect(strict.findings).toEqual([]);
    // unit_direction's answer is one list: no part to zero, so the probe answers None, which fails.
    const parts = await probeLib.probeBenchmark(path.join(zoo, 'algotune_unit_direction'), {only: ['smallest-part-zeros']});
    expect(parts.probes.map((p) => [p.probe, p.score])).toEqual([['smallest-part-zeros', 0]]);
    expect(parts.findings).toEqual([]);
  }, 240_000);
});
