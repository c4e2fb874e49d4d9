// `arbor benchmark import algotune` against tasks written to attack it (test/fixtures/algotune-adversarial):
// a validator that accepts an answer costing nothing (sorted_subset accepts `[]`), one that accepts an answer
// costing a solve (abs_only accepts every value negated: imported, and list shows it) and a task whose
// top-level code writes into the importing user's HOME and beside its own source (home_writer).
import {appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const source = path.join(fixtures, 'algotune-adversarial');

interface Outcome {
  task: string;
  status: string;
  reason?: string;
  detail?: string;
  probes?: {probe: string}[];
}

/** Import `task` of `from` into `into` (a small target time: the fixtures' solves are quick). */
function importTask(from: string, into: string, task: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
  const result = runCli(['benchmark', 'import', 'algotune', from, into, '--target-ms', '1', '--json', '--task', task, ...extra], {env});
  let tasks: Outcome[];
  try {
    tasks = (JSON.parse(result.stdout) as {tasks: Outcome[]}).tasks;
  } catch {
    throw new Error(`import printed no JSON (exit ${result.code}): ${result.stderr}`);
  }
  return {code: result.code, outcome: tasks[0]!, stderr: result.stderr};
}

describe('import algotune: a validator that accepts an answer costing nothing', () => {
  it('skips the task as weak-validator with one line naming the probes, or imports it with --allow-weak-validators, which verify then fails until PROVENANCE says why', () => {
    const zoo = path.join(tempDir(), 'zoo');
    const skipped = importTask(source, zoo, 'sorted_subset');
    expect(skipped.code).toBe(1);
    expect(skipped.outcome).toMatchObject({status: 'skipped', reason: 'weak-validator'});
    const line = skipped.stderr.trim().split('\n');
    expect(line).toHaveLength(1);
    expect(line[0]).toBe(
      '[1/1] sorted_subset: skipped (weak-validator): is_solution accepted an answer that costs nothing: empty (`[]`); ' +
        'a solver returning it would score without solving; pass --allow-weak-validators to import the task anyway',
    );
    expect(existsSync(path.join(zoo, 'algotune_sorted_subset'))).toBe(false);

    const allowed = importTask(source, zoo, 'sorted_subset', ['--allow-weak-validators']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.outcome).toMatchObject({status: 'imported'});
    const entry = path.join(zoo, 'algotune_sorted_subset');
    // The facts the verify rule reads: the importer's record.
    expect(JSON.parse(readFileSync(path.join(entry, '.arbor-import.json'), 'utf8')).weakValidator).toEqual({accepted: ['empty']});
    // `truncated` costs a full solve: a caveat, never a reason to skip.
    const provenance = readFileSync(path.join(entry, 'PROVENANCE.md'), 'utf8');
    expect(provenance).toMatch(/`truncated` \(case \d\): accepted/);

    const failed = runCli(['benchmark', 'verify', entry]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain(
      "error: `is_solution` accepted an answer that costs nothing at the import (empty): a solver returning it scores without solving; say why the entry is kept in `PROVENANCE.md`'s Caveats, in a paragraph starting `Weak validator accepted:` that names empty (weak-validator)",
    );

    // A reason that does not name every accepted probe is not one.
    appendFileSync(path.join(entry, 'PROVENANCE.md'), '\nWeak validator accepted: we looked at it.\n');
    expect(runCli(['benchmark', 'verify', entry]).code).toBe(1);
    appendFileSync(
      path.join(entry, 'PROVENANCE.md'),
      '\nWeak validator accepted: `empty` passes since an empty list is sorted; kept to measure how agents react to it, never to rank them.\n',
    );
    const passed = runCli(['benchmark', 'verify', entry]);
    expect(passed.stdout + passed.stderr).not.toContain('weak-validator');
    expect(passed.code).toBe(0);
  }, 240_000);
});

describe('import algotune: a validator that accepts a wrong answer costing a solve', () => {
  it('imports the task and shows the validator strength measured at the import in PROVENANCE, in list (a marker) and in list --json (a field)', () => {
    const zoo = path.join(tempDir(), 'zoo');
    const imported = importTask(source, zoo, 'abs_only');
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.outcome).toMatchObject({status: 'imported'});
    const entry = path.join(zoo, 'algotune_abs_only');
    const tried = [
      'none',
      'empty',
      'zeros',
      'negated',
      'first-number-changed',
      'truncated',
      'nan',
      'last-number-changed',
      'item-repeated',
      'row-first-repeated',
      'scaled',
    ];
    const strength = {tried, accepted: [{probe: 'negated', everyCase: true, costless: false}]};
    expect(JSON.parse(readFileSync(path.join(entry, '.arbor-import.json'), 'utf8')).validator).toEqual(strength);
    expect(readFileSync(path.join(entry, 'PROVENANCE.md'), 'utf8')).toContain(
      'Validator strength at the import: of 11 wrong-on-purpose answers tried, `is_solution` rejected 10 (`none`, `empty`, `zeros`, ' +
        '`first-number-changed`, `truncated`, `nan`, `last-number-changed`, `item-repeated`, `row-first-repeated`, `scaled`) ' +
        'and accepted 1 (`negated` (every case, costs a solve)).',
    );
    // Not a weakness that fails verify: the entry is ok, and its row says what its validator accepts.
    const listed = runCli(['benchmark', 'list', zoo, '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    const rows = (JSON.parse(listed.stdout) as {benchmarks: {name: string; status: string; validator?: unknown}[]}).benchmarks;
    expect(rows).toEqual([expect.objectContaining({name: 'algotune_abs_only', status: 'ok', validator: strength})]);
    const table = runCli(['benchmark', 'list', zoo]);
    expect(table.stdout).toMatch(/^algotune_abs_only +ok +\[validator accepts negated\] Make solution\.py solve AlgoTune's abs_on/m);
  }, 120_000);
});

describe('import algotune: a task is an attacker too', () => {
  it("runs the task's code only in the sandbox: its top-level code writes nothing to HOME or beside its source, and reads no secret of HOME", () => {
    const dir = tempDir();
    const from = path.join(dir, 'source');
    cpSync(source, from, {recursive: true});
    const home = path.join(dir, 'home');
    mkdirSync(path.join(home, '.ssh'), {recursive: true});
    writeFileSync(path.join(home, '.ssh', 'id_fixture'), 'the importing user secret\n');
    const result = importTask(from, path.join(dir, 'zoo'), 'home_writer', [], {HOME: home});
    // The task itself is fine, and imports.
    expect(result.outcome, result.stderr).toMatchObject({status: 'imported'});
    expect(existsSync(path.join(home, 'pwned-by-home_writer'))).toBe(false);
    expect(existsSync(path.join(from, 'AlgoTuneTasks/home_writer/pwned-by-home_writer'))).toBe(false);
  }, 120_000);

  it('refuses with one line and exit 1 where no sandbox can start, before any task runs', () => {
    const dir = tempDir();
    const result = runCli(['benchmark', 'import', 'algotune', source, path.join(dir, 'zoo'), '--task', 'home_writer'], {
      env: {ARBOR_BWRAP: path.join(dir, 'no-bwrap')},
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/bubblewrap \(bwrap\) is not installed: a task's code runs only in the sandbox; install bubblewrap .* or pass --unsandboxed/);
    expect(existsSync(path.join(dir, 'zoo', 'algotune_home_writer'))).toBe(false);
  });
});
