// `arbor benchmark import algotune`: AlgoTune-shaped tasks written here (test/fixtures/algotune), imported,
// verified, evaluated, imported again; and the object encoding at the boundary a solution's answer crosses.
import {createHash} from 'node:crypto';
import {cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';

const source = path.join(fixtures, 'algotune');
const shared = mkdtempSync(path.join(tmpdir(), 'arbor-import-'));
const zoo = path.join(shared, 'zoo');
interface Summary {
  commit: string | null;
  counts: Record<string, number>;
  skippedBy: Record<string, number>;
  packages: {package: string; module: string; tasks: string[]}[];
  tasks: {
    task: string;
    entry: string;
    status: string;
    reason?: string;
    detail?: string;
    module?: string;
    point?: {n: number; B: number; S: number};
    probes?: {probe: string}[];
  }[];
}
let first: {code: number | null; summary: Summary; stderr: string};

/** Import `tasks` of `from` into `into` with a small target time (the fixtures' solves are quick). */
function importTasks(from: string, into: string, ...tasks: string[]) {
  const flags = tasks.filter((t) => t.startsWith('--'));
  const names = tasks.filter((t) => !t.startsWith('--'));
  const result = runCli(['benchmark', 'import', 'algotune', from, into, '--target-ms', '1', '--json', ...flags, ...names.flatMap((t) => ['--task', t])]);
  let summary: Summary;
  try {
    summary = JSON.parse(result.stdout) as Summary;
  } catch {
    throw new Error(`import printed no JSON (exit ${result.code}): ${result.stderr}`);
  }
  return {code: result.code, summary, stderr: result.stderr};
}

beforeAll(() => {
  first = importTasks(source, zoo);
}, 240_000);
afterAll(() => rmSync(shared, {recursive: true, force: true}));

describe('import algotune', () => {
  it('imports the tasks it can, and skips each other one with its reason, the module it lacks and what would bring it', () => {
    const {code, summary, stderr} = first;
    expect(code).toBe(1); // some task was skipped
    // The fixtures lie inside arbor's own repository: no AlgoTune commit is claimed for them.
    expect(summary.commit).toBeNull();
    // On a mismatch, what was skipped and why.
    const skipped = JSON.stringify(summary.tasks.filter((t: {status: string}) => t.status !== 'imported'));
    expect(summary.counts, skipped).toEqual({imported: 5, updated: 0, unchanged: 0, skipped: 5});
    expect(summary.skippedBy).toEqual({'missing-module': 1, 'not-deterministic': 1, 'older-module': 1, 'solve-fails': 1, 'weak-validator': 1});
    const byTask = Object.fromEntries(summary.tasks.map((t) => [t.task, t]));
    expect(byTask.needs_missing).toMatchObject({status: 'skipped', reason: 'missing-module', module: 'arbor_fixture_missing_module'});
    // A generator drawing from the global random and numpy.random, or from os.urandom (AlgoTune's crypto tasks), is
    // seeded from the case's seed; one reading the clock is not.
    expect(byTask.unseeded).toMatchObject({status: 'imported'});
    expect(byTask.urandom_draw).toMatchObject({status: 'imported'});
    expect(byTask.clock_draw).toMatchObject({status: 'skipped', reason: 'not-deterministic'});
    // A name its numpy lacks (as Debian's scipy 1.10 lacks cumulative_simpson): each interpreter was tried, and each is named with its version.
    expect(byTask.newer_numpy).toMatchObject({status: 'skipped', reason: 'older-module', module: 'numpy'});
    expect(byTask.newer_numpy!.detail).toMatch(
      /^\/\S+: numpy \d[\w.]* lacks numpy.arbor_fixture_added_later \(added in a later numpy\)(; \/\S+: numpy \d[\w.]* lacks numpy.arbor_fixture_added_later \(added in a later numpy\))*; set ARBOR_PYTHON to a python3 whose numpy is newer$/,
    );
    // A solve that swallows its own failure and answers a fallback is caught by what it logs.
    expect(byTask.swallowed).toMatchObject({status: 'skipped', reason: 'solve-fails'});
    expect(byTask.swallowed!.detail).toMatch(/^the task's solve logged an error and answered anyway: Error: name 'undefined_name' is not defined$/);
    expect(byTask.clock_draw!.detail).toMatch(
      /generate_problem\(\d+, 0\) made two different problems \(first difference at byte \d+ of the encoding\), with the global random, numpy.random and os.urandom seeded from the seed: it draws outside them \(secrets, numpy's default_rng\(\) without a seed, the clock\)$/,
    );
    expect(summary.packages).toEqual([
      {package: '(none: arbor_fixture_missing_module is not packaged by Debian)', module: 'arbor_fixture_missing_module', tasks: ['needs_missing']},
    ]);
    // One line per task on stderr as it finishes; nothing of a skipped task is left in the zoo (nor a hidden build folder).
    expect(stderr.trim().split('\n')).toHaveLength(10);
    // Every interpreter tried (ARBOR_PYTHON, PATH's python3, /usr/bin/python3) lacks it: each is named, and what would bring it.
    expect(stderr).toMatch(
      /^\[\d+\/10\] needs_missing: skipped \(missing-module\): \/\S+ lacks arbor_fixture_missing_module(, \/\S+ lacks arbor_fixture_missing_module)*; Debian packages no arbor_fixture_missing_module: install it into one of them/m,
    );
    expect(existsSync(path.join(zoo, 'algotune_needs_missing'))).toBe(false);
    expect(existsSync(path.join(zoo, 'algotune_clock_draw'))).toBe(false);
    expect(readdirNames(zoo)).toEqual(['algotune_matvec', 'algotune_sorted_chunks', 'algotune_unseeded', 'algotune_urandom_draw', 'algotune_xor_bytes']);
    for (const name of ['matvec', 'sorted_chunks', 'unseeded', 'urandom_draw', 'xor_bytes']) {
      const {point} = byTask[name]!;
      expect(point!.n).toBeGreaterThanOrEqual(1);
      // The capacities hold what the import measured, in whole 4 KiB pages.
      expect(point!.B % 4096).toBe(0);
      expect(point!.S % 4096).toBe(0);
    }
  });

  it('writes complete entries that verify, list and lock --check accept, the task copied unchanged with its license', () => {
    const dirs = readdirNames(zoo).map((name) => path.join(zoo, name));
    const verified = runCli(['benchmark', 'verify', ...dirs]);
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    expect(runCli(['benchmark', 'lock', '--check', ...dirs]).code).toBe(0);
    const listed = runCli(['benchmark', 'list', zoo, '--json']);
    expect(listed.code).toBe(0);
    const entries = (JSON.parse(listed.stdout) as {benchmarks: {name: string; ok?: boolean; status?: string}[]}).benchmarks;
    expect(entries.map((e) => e.name)).toEqual([
      'algotune_matvec',
      'algotune_sorted_chunks',
      'algotune_unseeded',
      'algotune_urandom_draw',
      'algotune_xor_bytes',
    ]);
    const entry = path.join(zoo, 'algotune_matvec');
    expect(readFileSync(path.join(entry, 'bundle/AlgoTuneTasks/matvec/matvec.py'))).toEqual(readFileSync(path.join(source, 'AlgoTuneTasks/matvec/matvec.py')));
    expect(readFileSync(path.join(entry, 'bundle/AlgoTuneTasks/LICENSE'), 'utf8')).toBe(readFileSync(path.join(source, 'LICENSE'), 'utf8'));
    // arbor's own stand-in for the base, never the source's (the fixture's base.py raises when imported).
    expect(readFileSync(path.join(entry, 'bundle/AlgoTuneTasks/base.py'), 'utf8')).toContain("arbor's stand-in");
    // The encoding the bundle decodes answers with is the one the runner encodes them with.
    expect(readFileSync(path.join(entry, 'bundle/arbor_objects.py'))).toEqual(readFileSync(path.join(repoRoot, 'lib/eval/objects.py')));
    const plan = readFileSync(path.join(entry, 'plan.toml'), 'utf8');
    expect(plan).toContain('interface = "solve"');
    expect(plan).toMatch(/\[dev\]\nseeds = "0-3"/);
    expect(plan).toMatch(/\[test\]\nseeds = "1000-1007"/);
    const readme = readFileSync(path.join(entry, 'README.md'), 'utf8');
    expect(readme).toContain('Multiply a square matrix A by a block X of 64 vectors.');
    const provenance = readFileSync(path.join(entry, 'PROVENANCE.md'), 'utf8');
    expect(provenance).toContain(`sha256 \`${sha256(readFileSync(path.join(source, 'AlgoTuneTasks/matvec/matvec.py')))}\``);
    expect(provenance).toContain('unknown (the source was not a git checkout)');
    // The draws routed through the case's seed are said where the setup is.
    expect(readFileSync(path.join(zoo, 'algotune_urandom_draw/PROVENANCE.md'), 'utf8')).toMatch(
      /`generate_problem` draws from `os.urandom` \(it did at the import\): the entry's generator answers those calls\nfrom a generator seeded with the case's seed/,
    );
  });

  it('records the wrong answers a validator accepts in the summary, and skips a task whose validator accepts all zeros', () => {
    // loose_sort checks the length only: zeros and NaN (which cost nothing) and negated (a caveat) pass.
    const loose = first.summary.tasks.find((t) => t.task === 'loose_sort')!;
    expect(loose.probes!.map((p) => p.probe)).toEqual(expect.arrayContaining(['zeros', 'negated']));
    expect(loose).toMatchObject({status: 'skipped', reason: 'weak-validator'});
    expect(first.stderr).toMatch(
      /^\[\d+\/10\] loose_sort: skipped \(weak-validator\): is_solution accepted answers that cost nothing: zeros \(`array\(\[-?0\., .*`\), nan \(`array\(\[nan, .*`\); a solver returning one would score without solving; pass --allow-weak-validators to import the task anyway$/m,
    );
    // A strict validator: nothing accepted, and the caveats say what was tried.
    expect(first.summary.tasks.find((t) => t.task === 'sorted_chunks')!.probes).toBeUndefined();
    expect(readFileSync(path.join(zoo, 'algotune_sorted_chunks/PROVENANCE.md'), 'utf8')).toContain('rejected every structural wrong answer tried');
  });

  it('refuses a source that is not AlgoTune, and a task it does not hold, with exit 2 and one line', () => {
    const none = runCli(['benchmark', 'import', 'algotune', path.join(shared, 'nowhere'), zoo]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/nowhere: no such folder; give an AlgoTune checkout or its AlgoTuneTasks folder/);
    const unknown = runCli(['benchmark', 'import', 'algotune', source, zoo, '--task', 'no_such_task']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--task no_such_task: no such task in .*AlgoTuneTasks/);
    expect(unknown.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('import algotune again', () => {
  it('writes nothing for unchanged inputs, re-imports a changed task file, and refuses an entry its user edited unless --force', () => {
    const dir = tempDir();
    const from = path.join(dir, 'source');
    cpSync(source, from, {recursive: true});
    const into = path.join(dir, 'zoo');
    expect(importTasks(from, into, 'xor_bytes').summary.counts.imported).toBe(1);
    const entry = path.join(into, 'algotune_xor_bytes');
    const snapshot = () => treeOf(entry).map((rel) => [rel, statSync(path.join(entry, rel)).mtimeMs, sha256(readFileSync(path.join(entry, rel)))]);
    const before = snapshot();
    // The bundle names the interpreter the task was inspected with.
    expect(readFileSync(path.join(entry, 'bundle/fherma.toml'), 'utf8')).toMatch(/^python = "\/\S+"/m);

    const again = importTasks(from, into, 'xor_bytes');
    expect(again.code).toBe(0);
    expect(again.summary.tasks[0]).toMatchObject({status: 'unchanged'});
    expect(again.stderr).toMatch(/^\[1\/1\] xor_bytes: unchanged/m);
    expect(snapshot()).toEqual(before); // bytes and mtimes

    // A changed file of the task's folder (its description) re-imports it.
    writeFileSync(path.join(from, 'AlgoTuneTasks/xor_bytes/description.txt'), 'Xor every byte with the key (changed upstream).\n');
    const updated = importTasks(from, into, 'xor_bytes');
    expect(updated.summary.tasks[0]).toMatchObject({status: 'updated'});
    expect(readFileSync(path.join(entry, 'README.md'), 'utf8')).toContain('(changed upstream)');

    // The user's own solution: a changed task is refused for that entry, with the way to force it.
    const mine = '# my solver\nclass Solver:\n    def solve(self, problem):\n        return bytes(b ^ problem["key"] for b in problem["data"])\n';
    writeFileSync(path.join(entry, 'solution.py'), mine);
    const task = path.join(from, 'AlgoTuneTasks/xor_bytes/xor_bytes.py');
    writeFileSync(task, readFileSync(task, 'utf8').replace('"""A bytes answer', '"""A bytes answer (changed upstream)'));
    const refused = importTasks(from, into, 'xor_bytes');
    expect(refused.code).toBe(1);
    expect(refused.summary.tasks[0]).toMatchObject({status: 'skipped', reason: 'user-edited'});
    expect(refused.stderr).toMatch(
      /^\[1\/1\] xor_bytes: skipped \(user-edited\): algotune_xor_bytes: solution.py changed since the import wrote it; pass --force to overwrite/m,
    );
    expect(readFileSync(path.join(entry, 'solution.py'), 'utf8')).toBe(mine);
    expect(readFileSync(path.join(entry, 'reference.py'), 'utf8')).not.toContain('(changed upstream)');

    const forced = importTasks(from, into, 'xor_bytes', '--force');
    expect(forced.summary.tasks[0]).toMatchObject({status: 'updated'});
    expect(readFileSync(path.join(entry, 'solution.py'), 'utf8')).toContain('(changed upstream)');
    // Relocked: the eval would run.
    expect(runCli(['benchmark', 'lock', '--check', entry]).code).toBe(0);
  }, 180_000);

  it('never writes into a folder of the same name that arbor did not import', () => {
    const dir = tempDir();
    const into = path.join(dir, 'zoo');
    const own = path.join(into, 'algotune_xor_bytes');
    mkdirSync(own, {recursive: true});
    writeFileSync(path.join(own, 'notes.md'), 'mine\n');
    const result = importTasks(source, into, 'xor_bytes');
    expect(result.code).toBe(1);
    expect(result.summary.tasks[0]).toMatchObject({status: 'skipped', reason: 'user-folder'});
    expect(readdirNames(own)).toEqual(['notes.md']);
  }, 60_000);
});

const readdirNames = (dir: string): string[] => readdirSync(dir).sort();
/** Every file under `dir`, relative, sorted. */
const treeOf = (dir: string): string[] => (readdirSync(dir, {recursive: true}) as string[]).filter((rel) => statSync(path.join(dir, rel)).isFile()).sort();
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');
