import {cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {lib, zooFixtures} from './helpers/zoo.js';

/** A zoo with a passing entry, a failing one, scaffolding, a hidden folder and a plain file. */
function makeZoo(root = tempDir(), name = 'zoo'): string {
  const zoo = path.join(root, name);
  mkdirSync(zoo, {recursive: true});
  cpSync(path.join(zooFixtures, 'minimal-ok'), path.join(zoo, 'sorting'), {recursive: true});
  cpSync(path.join(zooFixtures, 'eval-missing'), path.join(zoo, 'b-failing'), {recursive: true});
  cpSync(path.join(zooFixtures, 'placeholder-left'), path.join(zoo, '_template'), {recursive: true});
  mkdirSync(path.join(zoo, '.hidden'));
  writeFileSync(path.join(zoo, 'README.md'), '# the zoo\n');
  return zoo;
}

/** Wait past the cache's racy window (files changed within 100 ms before a read are not cached). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 250));

describe('arbor benchmark list', () => {
  it('lists entries sorted, flags failing ones, skips `_` and `.` folders', () => {
    const root = tempDir();
    makeZoo(root);
    const result = runCli(['benchmark', 'list', 'zoo', '--no-cache'], {cwd: root});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      [
        // The status column is 9 wide (rows are printed as they are decided); titles are cut to 100 columns.
        'b-failing  1 error    Sort a list of integers as fast as possible; a solution returns the sorted li…',
        'sorting    ok         Sort a list of integers as fast as possible; a solution returns the sorted li…',
        '2 benchmarks in zoo: 1 ok, 1 failing verify',
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toContain('_template');
  });

  it('prints the documented JSON shape, with the skipped names', () => {
    const root = tempDir();
    makeZoo(root);
    const result = runCli(['benchmark', 'list', 'zoo', '--json', '--no-cache'], {cwd: root});
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.zoo).toBe('zoo');
    expect(json.skipped).toEqual(['.hidden', '_template']);
    expect(json.benchmarks).toEqual([
      {
        name: 'b-failing',
        path: 'zoo/b-failing',
        status: 'failing',
        errors: 1,
        warnings: 0,
        title: 'Sort a list of integers as fast as possible; a solution returns the sorted list.',
        problem: 'Missing eval entrypoint, expected `eval.sh` or `eval.py` (eval-entrypoint)',
        harnessCeiling: null,
      },
      {
        name: 'sorting',
        path: 'zoo/sorting',
        status: 'ok',
        errors: 0,
        warnings: 0,
        title: 'Sort a list of integers as fast as possible; a solution returns the sorted list.',
        harnessCeiling: null,
      },
    ]);
  });

  it('defaults to ./arbor-zoo, else ./zoo', () => {
    const root = tempDir();
    makeZoo(root, 'zoo');
    expect(runCli(['benchmark', 'list', '--json', '--no-cache'], {cwd: root}).stdout).toContain('"zoo": "zoo"');
    mkdirSync(path.join(root, 'arbor-zoo'));
    expect(runCli(['benchmark', 'list', '--no-cache'], {cwd: root}).stdout).toBe('No benchmarks in `arbor-zoo`.\n');
  });

  it('says so for an empty zoo', () => {
    const root = tempDir();
    mkdirSync(path.join(root, 'zoo', '_template'), {recursive: true});
    const result = runCli(['benchmark', 'list', 'zoo'], {cwd: root, env: {ARBOR_CACHE_DIR: tempDir('arbor-cache-')}});
    expect(result).toEqual({code: 0, stdout: 'No benchmarks in `zoo` (skipped `_template`).\n', stderr: ''});
  });

  it('exits 2 with one line when the zoo is missing or is a file', () => {
    const root = tempDir();
    expect(runCli(['benchmark', 'list', 'nope'], {cwd: root})).toEqual({
      code: 2,
      stdout: '',
      stderr: 'arbor: Zoo `nope` does not exist, expected a folder of benchmarks\n',
    });
    expect(runCli(['benchmark', 'list'], {cwd: root}).stderr).toBe(
      'arbor: No zoo found: neither `./arbor-zoo` nor `./zoo` exists and this folder holds no benchmark folders; pass the zoo folder, e.g. `arbor benchmark list path/to/zoo`\n',
    );
    // Inside a zoo (a folder holding a benchmark folder), no argument is needed.
    mkdirSync(path.join(root, 'sumsq'));
    writeFileSync(path.join(root, 'sumsq', 'plan.toml'), 'name = "sumsq"\n');
    expect(JSON.parse(runCli(['benchmark', 'list', '--json'], {cwd: root}).stdout)).toMatchObject({zoo: '.', benchmarks: [{name: 'sumsq'}]});
    writeFileSync(path.join(root, 'file'), 'x');
    expect(runCli(['benchmark', 'list', 'file'], {cwd: root}).stderr).toBe('arbor: Zoo `file` is not a folder, expected a folder of benchmarks\n');
  });

  it('lists symlink loops and dangling links as broken instead of dropping them', () => {
    const root = tempDir();
    const zoo = makeZoo(root);
    symlinkSync('loop', path.join(zoo, 'loop'));
    symlinkSync('nowhere', path.join(zoo, 'dangling'));
    symlinkSync(path.join(zoo, 'sorting'), path.join(zoo, 'linked'));
    const result = runCli(['benchmark', 'list', 'zoo', '--no-cache'], {cwd: root});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^dangling +broken: dangling symlink$/m);
    expect(result.stdout).toMatch(/^loop +broken: symlink loop$/m);
    expect(result.stdout).toMatch(/^linked +ok +Sort a list/m);
    expect(result.stdout).toContain('5 benchmarks in zoo: 2 ok, 1 failing verify, 2 broken');
  });

  it('flags a folder with non-UTF-8 markdown rather than crashing', () => {
    const root = tempDir();
    const zoo = makeZoo(root);
    writeFileSync(path.join(zoo, 'sorting', 'README.md'), Buffer.from([0xff, 0xfe, 0x41]));
    const result = runCli(['benchmark', 'list', 'zoo', '--json', '--no-cache'], {cwd: root});
    expect(result.code).toBe(0);
    const sorting = JSON.parse(result.stdout).benchmarks.find((b: {name: string}) => b.name === 'sorting');
    expect(sorting).toMatchObject({status: 'failing', title: null});
    expect(sorting.problem).toMatch(/not valid UTF-8/);
  });

  it('takes the first prose line, skipping headings, comments and code, with inline markup removed', async () => {
    const root = tempDir();
    const zoo = makeZoo(root);
    writeFileSync(
      path.join(zoo, 'sorting', 'README.md'),
      '<!-- badge -->\n# Title\n\n```\ncode line\n```\n\nThe **fast** [sort](https://x.y) task\nsecond line.\n',
    );
    const result = await lib.listZoo({zoo: 'zoo', cwd: root, cache: false});
    expect(result.benchmarks.find((b) => b.name === 'sorting')!.title).toBe('The fast sort task');
  });

  it('reuses cached results for unchanged folders and never trusts a changed file', async () => {
    const root = tempDir();
    const zoo = makeZoo(root);
    const cacheDir = tempDir('arbor-cache-');
    await settle();
    const first = await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0});
    expect(first.cache).toMatchObject({hits: 0, misses: 2});
    const second = await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0});
    expect(second.cache).toMatchObject({hits: 2, misses: 0});
    expect(second.benchmarks).toEqual(first.benchmarks);
    // Same size, new content: the mtime (and ctime) change invalidates the entry.
    const readme = path.join(zoo, 'sorting', 'README.md');
    writeFileSync(readme, readFileSync(readme, 'utf8').replace('Sort a list', 'Sort a heap'));
    const third = await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0});
    expect(third.cache).toMatchObject({hits: 1, misses: 1});
    expect(third.benchmarks.find((b) => b.name === 'sorting')!.title).toMatch(/^Sort a heap/);
    // A new top-level text file with a placeholder is seen too.
    await settle();
    expect((await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0})).cache).toMatchObject({hits: 1, misses: 1});
    expect((await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0})).cache).toMatchObject({hits: 2, misses: 0});
    writeFileSync(path.join(zoo, 'sorting', 'notes.md'), 'TODO(arbor): later\n');
    const fourth = await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0});
    expect(fourth.benchmarks.find((b) => b.name === 'sorting')).toMatchObject({status: 'failing', errors: 1});
  });

  it('sees a file rewritten with its size and mtime put back, and a file added where the entry signed only its folder', async () => {
    const root = tempDir();
    const zoo = makeZoo(root);
    const cacheDir = tempDir('arbor-cache-');
    const sorting = path.join(zoo, 'sorting');
    mkdirSync(path.join(sorting, 'bundle'));
    writeFileSync(path.join(sorting, 'bundle', 'oracle.mjs'), 'export default 1;\n');
    await settle();
    const list = () => lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0});
    expect((await list()).cache).toMatchObject({hits: 0, misses: 2});
    expect((await list()).cache).toMatchObject({hits: 2, misses: 0});
    // Same size, the mtime set back to what it was: the ctime still changed.
    const readme = path.join(sorting, 'README.md');
    const before = statSync(readme);
    writeFileSync(readme, readFileSync(readme, 'utf8').replace('Sort a list', 'Sort a tree'));
    utimesSync(readme, before.atime, before.mtime);
    expect(statSync(readme).size).toBe(before.size);
    const changed = await list();
    expect(changed.cache).toMatchObject({hits: 1, misses: 1});
    expect(changed.benchmarks.find((b) => b.name === 'sorting')!.title).toMatch(/^Sort a tree/);
    // bundle/generate.py was missing, signed by the stat of bundle/ alone (the entry's own folder is untouched).
    await settle();
    await list();
    expect((await list()).cache).toMatchObject({hits: 2, misses: 0});
    const folder = statSync(sorting).mtimeMs;
    writeFileSync(path.join(sorting, 'bundle', 'generate.py'), '# TODO(arbor): write the generator\n');
    expect(statSync(sorting).mtimeMs).toBe(folder);
    const added = await list();
    expect(added.cache).toMatchObject({hits: 1, misses: 1});
    expect(added.benchmarks.find((b) => b.name === 'sorting')).toMatchObject({status: 'failing', errors: 1});
  });

  it('caches folders whose names and titles hold quotes, tabs, backslashes and non-ASCII text', async () => {
    const root = tempDir();
    const zoo = makeZoo(root);
    for (const name of ['é "q"', 'tab\tname', 'back\\slash', '中文']) {
      cpSync(path.join(zooFixtures, 'minimal-ok'), path.join(zoo, name), {recursive: true});
      writeFileSync(path.join(zoo, name, 'README.md'), readFileSync(path.join(zoo, name, 'README.md'), 'utf8').replace('Sort a list', `Sört "${name}"`));
    }
    const cacheDir = tempDir('arbor-cache-');
    await settle();
    const first = await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0});
    expect(first.cache).toMatchObject({hits: 0, misses: 6});
    const second = await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0});
    expect(second.cache).toMatchObject({hits: 6, misses: 0});
    expect(second.benchmarks).toEqual(first.benchmarks);
    expect(second.benchmarks.find((b) => b.name === '中文')!.title).toMatch(/^Sört "中文" of integers/);
  });

  it('still lists when the cache cannot be written, and leaves no temporary file behind', async () => {
    const root = tempDir();
    makeZoo(root);
    const cacheDir = tempDir('arbor-cache-');
    await settle();
    const first = await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0});
    // Put a non-empty folder where the cache file goes: writing the temporary file works, renaming it over the folder fails.
    const file = first.cache.file!;
    rmSync(file);
    mkdirSync(path.join(file, 'in-the-way'), {recursive: true});
    const second = await lib.listZoo({zoo: 'zoo', cwd: root, cacheDir, workers: 0});
    expect(second.benchmarks).toEqual(first.benchmarks);
    expect(second.cache).toMatchObject({hits: 0, misses: 2});
    expect(readdirSync(cacheDir)).toEqual([path.basename(file)]);
  });

  it('gives the same answers with the worker pool as inline', async () => {
    const root = tempDir();
    const zoo = path.join(root, 'zoo');
    mkdirSync(zoo);
    for (let i = 0; i < 40; i++)
      cpSync(path.join(zooFixtures, i % 3 ? 'minimal-ok' : 'provenance-missing-caveats'), path.join(zoo, `b${String(i).padStart(2, '0')}`), {recursive: true});
    const inline = await lib.listZoo({zoo: 'zoo', cwd: root, cache: false, workers: 0});
    const cli = JSON.parse(runCli(['benchmark', 'list', 'zoo', '--json', '--no-cache'], {cwd: root, env: {ARBOR_LIST_WORKERS: '2'}}).stdout);
    // The CLI's --json adds each entry's harness ceiling from the ledger (none here: null) to the library's rows.
    expect(cli.benchmarks).toEqual(JSON.parse(JSON.stringify(inline.benchmarks)).map((row: object) => ({...row, harnessCeiling: null})));
    expect(inline.benchmarks.filter((b) => b.status === 'failing')).toHaveLength(14);
    expect(inline.workers).toBe(0);
    // 40 folders are three batches: a pool of 64 starts no more workers than that.
    const pooled = await lib.listZoo({zoo: 'zoo', cwd: root, cache: false, workers: 64});
    expect(pooled.benchmarks).toEqual(inline.benchmarks);
    expect(pooled.workers).toBeGreaterThanOrEqual(1);
    expect(pooled.workers).toBeLessThanOrEqual(3);
  });

  it('streams rows in name order after a start with the count and widest name; --json streams the same bytes as the whole document', async () => {
    const root = tempDir();
    const zoo = path.join(root, 'zoo');
    mkdirSync(zoo);
    for (let i = 0; i < 60; i++)
      cpSync(path.join(zooFixtures, i % 4 ? 'minimal-ok' : 'eval-missing'), path.join(zoo, `t${i}${'x'.repeat(i % 7)}`), {recursive: true});
    symlinkSync('nowhere', path.join(zoo, 'dangling'));
    const {listZooStream} = (await import(path.join(repoRoot, 'dist/lib/zoo/list.js'))) as typeof import('../../lib/zoo/list.js');
    const events: string[] = [];
    const summary = await listZooStream(
      {zoo: 'zoo', cwd: root, cache: false, workers: 2},
      {start: (info) => events.push(`start ${info.total} ${info.nameWidth}`), entry: (entry) => events.push(entry.name)},
    );
    const names = readdirSync(zoo).sort();
    expect(events).toEqual([`start 61 ${Math.max(...names.map((n) => n.length))}`, ...names]);
    expect(summary).toMatchObject({total: 61, ok: 45, failing: 15, broken: 1});
    const streamed = runCli(['benchmark', 'list', 'zoo', '--json', '--no-cache'], {cwd: root});
    const whole = await lib.listZoo({zoo: 'zoo', cwd: root, cache: false});
    const document = lib.zooListJson(whole) as {benchmarks: object[]};
    const withCeilings = {...document, benchmarks: document.benchmarks.map((row: object) => ({...row, harnessCeiling: null}))};
    expect(streamed.stdout).toBe(`${JSON.stringify(withCeilings, null, 2)}\n`);
    const text = runCli(['benchmark', 'list', 'zoo', '--no-cache'], {cwd: root});
    expect(text.stdout).toBe(lib.formatZooList(whole));
    const empty = path.join(root, 'empty');
    mkdirSync(empty);
    expect(runCli(['benchmark', 'list', 'empty', '--json', '--no-cache'], {cwd: root}).stdout).toBe(
      `${JSON.stringify({zoo: 'empty', benchmarks: [], skipped: []}, null, 2)}\n`,
    );
  });

  it('uses one worker per core besides the main thread from three cores, none below, overridable with ARBOR_LIST_WORKERS', async () => {
    const {defaultWorkers} = (await import(path.join(repoRoot, 'dist/lib/zoo/list.js'))) as typeof import('../../lib/zoo/list.js');
    expect([1, 2, 3, 4, 8].map((cores) => defaultWorkers({}, cores))).toEqual([0, 0, 2, 3, 7]);
    expect(defaultWorkers({ARBOR_LIST_WORKERS: '3'}, 2)).toBe(3);
    expect(defaultWorkers({ARBOR_LIST_WORKERS: '0'}, 8)).toBe(0);
    expect(defaultWorkers({ARBOR_LIST_WORKERS: 'many'}, 4)).toBe(3);
    // Without a count, the machine's own.
    expect(defaultWorkers({})).toBe(defaultWorkers({}, os.availableParallelism()));
  });
});
