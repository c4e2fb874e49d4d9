import {spawnSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import {chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {canRunAsOrdinaryUser, cliPath, repoRoot, runCli, runCliAsOrdinaryUser, tempDir} from '../helpers/cli.js';
import {lib} from './helpers/zoo.js';

const templates = path.join(repoRoot, 'templates');
const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'}).stdout.trim();

function walk(root: string, prefix = ''): string[] {
  return readdirSync(path.join(root, prefix), {withFileTypes: true})
    .flatMap((e) => (e.isDirectory() ? walk(root, path.join(prefix, e.name)) : [path.join(prefix, e.name)]))
    .sort();
}

/** Replace every placeholder line fragment with real prose. */
function fillIn(dir: string): void {
  for (const rel of walk(dir)) {
    const file = path.join(dir, rel);
    const text = readFileSync(file, 'utf8');
    if (!text.includes('TODO(arbor)')) continue;
    const filled = text.replace(/TODO\(arbor\):[^\n]*/g, (m) =>
      rel.endsWith('.md') ? 'Written by hand: higher is better; dev and test use disjoint seeds.' : `filled in (${m.length} chars)`,
    );
    writeFileSync(file, filled);
  }
}

const read = (...parts: string[]) => readFileSync(path.join(...parts), 'utf8');

/** How arbor names itself in its printed commands (lib/invocation.ts), from `cwd` in this process's environment. */
const invocation = (await import(path.join(repoRoot, 'dist/lib/invocation.js'))) as typeof import('../../lib/invocation.js');
/** The template eval.sh as scaffold writes it: recording this arbor's CLI as the one that made it. */
const renderedEvalSh = () => read(templates, 'eval-sh/eval.sh').replace('{{made_by_sh}}', `'${cliPath}'`);
/** Hidden files other than scaffold's memory (`.arbor-scaffold`): temporary files left behind. */
const leftovers = (files: string[]) => files.filter((f) => path.basename(f).startsWith('.') && path.basename(f) !== '.arbor-scaffold');

describe('arbor benchmark scaffold (a new folder)', () => {
  it('writes the zoo style with {{…}} filled in, LF endings, eval.sh executable and nothing beside it', () => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const arbor = invocation.arborCommand({cwd: zoo});
    expect(result.stdout).toBe(
      [
        'Scaffolded demo (style zoo, metric speedup): wrote .arbor-scaffold, PROVENANCE.md, README.md, arbor.lock, bundle/fherma.toml, bundle/generate.mjs, bundle/oracle.mjs, eval.sh, plan.toml, reference.py, solution.py.',
        'Next steps:',
        '  1. Replace the 8 `TODO(arbor): …` placeholders in PROVENANCE.md, README.md with your own text.',
        '  2. Write the baseline (solution.py), the testing bundle (bundle/) and the eval plan (plan.toml).',
        `  3. After each change to a protected file (plan.toml, bundle/, reference.py, the eval entrypoint), run \`${arbor} benchmark lock demo\`: an eval whose protected files differ from arbor.lock refuses to run (exit 3).`,
        `  4. Run \`${arbor} benchmark verify demo\` until it exits 0.`,
        '  5. Run `bash demo/eval.sh dev` for a score (0.0 until the baseline solves the task); then a maintainer reviews and accepts the entry.',
        '',
      ].join('\n'),
    );
    const dir = path.join(zoo, 'demo');
    expect(walk(dir)).toEqual([
      '.arbor-scaffold',
      'PROVENANCE.md',
      'README.md',
      'arbor.lock',
      'bundle/fherma.toml',
      'bundle/generate.mjs',
      'bundle/oracle.mjs',
      'eval.sh',
      'plan.toml',
      'reference.py',
      'solution.py',
    ]);
    // The lock covers what the eval protects, so a fresh scaffold's eval compares clean.
    expect(runCli(['benchmark', 'lock', '--check', 'demo'], {cwd: zoo})).toMatchObject({code: 0});
    for (const rel of walk(dir)) {
      const text = read(dir, rel);
      expect(text).not.toMatch(/\{\{\w+\}\}/);
      expect(text).not.toContain('\r');
    }
    expect(read(dir, 'README.md')).toMatch(/^# demo\n/);
    expect(read(dir, 'README.md')).toContain('**higher is better**');
    expect(read(dir, 'plan.toml')).toMatch(/^name = "demo"\nbundle = "bundle"\nsolution = "solution.py"\n# .*\neditable = \["solution.py"\]\n/m);
    expect(read(dir, 'plan.toml')).not.toContain('direction');
    expect(statSync(path.join(dir, 'eval.sh')).mode & 0o111).not.toBe(0);
    expect(read(dir, 'eval.sh')).toBe(renderedEvalSh());
    expect(readdirSync(zoo)).toEqual(['demo']);
  });

  it('writes a folder that fails verify naming each placeholder, and passes once they are filled in', () => {
    const zoo = tempDir();
    const made = runCli(['benchmark', 'scaffold', 'zoo/demo', '--json'], {cwd: zoo});
    expect(made.code).toBe(0);
    const placeholders = JSON.parse(made.stdout).placeholders as {file: string; line: number}[];
    expect(placeholders.length).toBeGreaterThanOrEqual(8);
    const failing = runCli(['benchmark', 'verify', 'zoo/demo'], {cwd: zoo});
    expect(failing.code).toBe(1);
    const lines = failing.stdout.split('\n').filter((l) => l.includes('(placeholder)'));
    expect(lines.map((l) => l.replace(/^zoo\/demo\/([^:]+):(\d+):\d+: .*$/, '$1:$2')).sort()).toEqual(placeholders.map((p) => `${p.file}:${p.line}`).sort());
    fillIn(path.join(zoo, 'zoo/demo'));
    const passing = runCli(['benchmark', 'verify', 'zoo/demo'], {cwd: zoo});
    expect(passing.stdout).toBe('zoo/demo: ok\n');
    expect(passing.code).toBe(0);
  });

  it('fills an existing empty folder', () => {
    const zoo = tempDir();
    mkdirSync(path.join(zoo, 'demo'));
    expect(runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo}).code).toBe(0);
    expect(existsSync(path.join(zoo, 'demo', 'PROVENANCE.md'))).toBe(true);
  });

  it('is available as a library function returning data', async () => {
    const zoo = tempDir();
    const result = await lib.scaffoldBenchmark('x1', {cwd: zoo, style: 'light'});
    expect(result).toMatchObject({
      name: 'x1',
      style: 'light',
      entrypoint: 'eval.sh',
      direction: 'maximize',
      splitKind: 'seed_range',
      bundleLang: 'js',
      editable: ['solution.py'],
      skipped: [],
    });
    expect(result.created).toEqual(walk(path.join(zoo, 'x1')));
    expect(result.placeholders).toEqual([]);
  });
});

describe('arbor benchmark scaffold (an existing folder)', () => {
  it('writes only the missing files, keeps the rest byte for byte, and says which (--json created, skipped)', () => {
    const zoo = tempDir();
    const dir = path.join(zoo, 'demo');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'README.md'), '# mine\r\n');
    writeFileSync(path.join(dir, 'solution.py'), 'def run(state, inputs): ...\n');
    writeFileSync(path.join(dir, 'notes.txt'), 'keep');
    const result = runCli(['benchmark', 'scaffold', 'demo', '--json'], {cwd: zoo});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json.created).toEqual([
      '.arbor-scaffold',
      'PROVENANCE.md',
      'arbor.lock',
      'bundle/fherma.toml',
      'bundle/generate.mjs',
      'bundle/oracle.mjs',
      'eval.sh',
      'plan.toml',
      'reference.py',
    ]);
    expect(json.skipped).toEqual(['README.md', 'solution.py']);
    expect(json.placeholders.every((p: {file: string}) => json.created.includes(p.file))).toBe(true);
    expect(read(dir, 'README.md')).toBe('# mine\r\n');
    expect(read(dir, 'solution.py')).toBe('def run(state, inputs): ...\n');
    expect(walk(dir)).toEqual([...json.created, ...json.skipped, 'notes.txt'].sort());
    expect(statSync(path.join(dir, 'eval.sh')).mode & 0o111).not.toBe(0);
    // No temporary file is left anywhere.
    expect(leftovers(walk(zoo))).toEqual([]);

    const again = runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo});
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /^Scaffolded demo \(style zoo, metric speedup\): wrote nothing; kept the existing PROVENANCE\.md, README\.md, bundle\/fherma\.toml, /,
    );
  });

  it('keeps an existing eval entrypoint and bundle whole: no second one beside them', () => {
    const zoo = tempDir();
    const dir = path.join(zoo, 'demo');
    mkdirSync(path.join(dir, 'bundle'), {recursive: true});
    writeFileSync(path.join(dir, 'eval.py'), 'print("score: 1")\n');
    writeFileSync(path.join(dir, 'bundle/fherma.toml'), 'spec = "x"\n');
    const json = JSON.parse(runCli(['benchmark', 'scaffold', 'demo', '--json', '--style', 'light'], {cwd: zoo}).stdout);
    expect(json.skipped).toEqual(['bundle/fherma.toml', 'eval.py']);
    expect(json.created).toEqual(['.arbor-scaffold', 'arbor.lock', 'plan.toml', 'reference.py', 'solution.py']);
    expect(existsSync(path.join(dir, 'eval.sh'))).toBe(false);
    expect(readdirSync(path.join(dir, 'bundle'))).toEqual(['fherma.toml']);
  });

  it('once the folder has arbor.lock, does not write back a file its author removed: .arbor-scaffold remembers what it had', () => {
    const zoo = tempDir();
    const dir = path.join(zoo, 'demo');
    expect(runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo}).code).toBe(0);
    expect(
      read(dir, '.arbor-scaffold')
        .split('\n')
        .filter((line) => line && !line.startsWith('#')),
    ).toEqual([
      'PROVENANCE.md',
      'README.md',
      'bundle/fherma.toml',
      'bundle/generate.mjs',
      'bundle/oracle.mjs',
      'eval.sh',
      'plan.toml',
      'reference.py',
      'solution.py',
    ]);
    // The author renames the reference (and says so in the plan), removes the README for now, and relocks.
    renameSync(path.join(dir, 'reference.py'), path.join(dir, 'baseline.py'));
    rmSync(path.join(dir, 'README.md'));
    writeFileSync(path.join(dir, 'plan.toml'), read(dir, 'plan.toml').replace('reference = "reference.py"', 'reference = "baseline.py"'));
    expect(runCli(['benchmark', 'lock', 'demo'], {cwd: zoo}).code).toBe(0);
    const again = runCli(['benchmark', 'scaffold', 'demo', '--json'], {cwd: zoo});
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({created: [], withheld: ['README.md', 'reference.py'], lockStale: false});
    expect(existsSync(path.join(dir, 'reference.py'))).toBe(false);
    expect(runCli(['benchmark', 'lock', '--check', 'demo'], {cwd: zoo}).code).toBe(0);
    const text = runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo}).stdout;
    expect(text.split('\n')[0]).toMatch(
      /; left out README\.md, reference\.py, which the author removed from the locked folder \(delete its line in demo\/\.arbor-scaffold to have it written again\)\.$/,
    );
    // Deleting its line brings a file back.
    writeFileSync(path.join(dir, '.arbor-scaffold'), read(dir, '.arbor-scaffold').replace('README.md\n', ''));
    expect(JSON.parse(runCli(['benchmark', 'scaffold', 'demo', '--json'], {cwd: zoo}).stdout)).toMatchObject({
      created: ['README.md'],
      withheld: ['reference.py'],
    });
    // A folder locked without .arbor-scaffold (scaffolded before it existed): the lock stands for it, and no protected file is added.
    rmSync(path.join(dir, '.arbor-scaffold'));
    rmSync(path.join(dir, 'README.md'));
    expect(JSON.parse(runCli(['benchmark', 'scaffold', 'demo', '--json'], {cwd: zoo}).stdout)).toMatchObject({
      created: ['.arbor-scaffold', 'README.md'],
      withheld: ['reference.py'],
    });
    // Without a lock, a missing file is written as before.
    rmSync(path.join(dir, 'arbor.lock'));
    const unlocked = JSON.parse(runCli(['benchmark', 'scaffold', 'demo', '--json'], {cwd: zoo}).stdout);
    expect(unlocked).toMatchObject({withheld: [], lockStale: false});
    expect(unlocked.created).toContain('reference.py');
  });

  it('says to relock when it writes protected files the existing arbor.lock does not cover', () => {
    const zoo = tempDir();
    expect(runCli(['benchmark', 'scaffold', 'demo', '--style', 'light'], {cwd: zoo}).code).toBe(0);
    // Written later, for a path split: data/ is protected and new to the lock.
    const result = runCli(['benchmark', 'scaffold', 'demo', '--split-kind', 'path', '--metric', 'speedup'], {cwd: zoo});
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^Scaffolded demo \(style zoo, metric speedup\): wrote PROVENANCE\.md, README\.md, data\/dev\/README\.md, data\/test\/README\.md; /,
    );
    expect(result.stdout).toContain(
      `Run \`${invocation.arborCommand({cwd: zoo})} benchmark lock demo\` now: the folder's arbor.lock does not cover the protected files just written`,
    );
  });

  it('refuses, writing nothing, where a file stands in for a folder it needs (exit 1)', () => {
    const zoo = tempDir();
    const dir = path.join(zoo, 'demo');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'bundle'), 'not a folder');
    const result = runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo});
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: 'arbor: Refusing to scaffold into `demo`: `bundle` is a file, expected a folder for bundle/fherma.toml (nothing was changed)\n',
    });
    expect(readdirSync(dir)).toEqual(['bundle']);
  });

  it('refuses a file where the folder should go with exit 1', () => {
    const zoo = tempDir();
    writeFileSync(path.join(zoo, 'demo'), 'x');
    const result = runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo});
    expect(result).toEqual({code: 1, stdout: '', stderr: 'arbor: Refusing to scaffold into `demo`: it is a file, expected a folder (nothing was changed)\n'});
  });

  // Root writes through any mode: as root, the scaffold runs as an ordinary user.
  it.skipIf(!canRunAsOrdinaryUser)('says which files it wrote when a later one cannot be written', () => {
    const zoo = tempDir();
    const dir = path.join(zoo, 'demo');
    mkdirSync(path.join(dir, 'bundle'), {recursive: true});
    writeFileSync(path.join(dir, 'README.md'), 'mine');
    chmodSync(path.join(dir, 'bundle'), 0o555);
    const result = runCliAsOrdinaryUser(['benchmark', 'scaffold', 'demo'], [zoo], {cwd: zoo});
    chmodSync(path.join(dir, 'bundle'), 0o755);
    expect(result.code).toBe(2);
    // The parts go in order (base, the entrypoint, the bundle, …): what came before the bundle was written.
    expect(result.stderr).toBe('arbor: Could not write `demo/bundle/fherma.toml` (permission denied); wrote plan.toml, solution.py, eval.sh before it\n');
    expect(readdirSync(dir).sort()).toEqual(['README.md', 'bundle', 'eval.sh', 'plan.toml', 'solution.py']);
  });
});

describe('arbor benchmark scaffold options', () => {
  it('--style light writes the measurement plumbing only; verify then reports the missing README and PROVENANCE', () => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', 'demo', '--style', 'light'], {cwd: zoo});
    expect(result.code).toBe(0);
    const arbor = invocation.arborCommand({cwd: zoo});
    expect(result.stdout.split('\n').slice(1)).toEqual([
      'Next steps:',
      '  1. Write the baseline (solution.py), the testing bundle (bundle/) and the eval plan (plan.toml).',
      `  2. After each change to a protected file (plan.toml, bundle/, reference.py, the eval entrypoint), run \`${arbor} benchmark lock demo\`: an eval whose protected files differ from arbor.lock refuses to run (exit 3).`,
      '  3. Run `bash demo/eval.sh dev` for a score (0.0 until the baseline solves the task).',
      `  4. \`${arbor} benchmark verify demo\` lists what a zoo entry still needs (README.md, PROVENANCE.md).`,
      '',
    ]);
    expect(walk(path.join(zoo, 'demo'))).toEqual([
      '.arbor-scaffold',
      'arbor.lock',
      'bundle/fherma.toml',
      'bundle/generate.mjs',
      'bundle/oracle.mjs',
      'eval.sh',
      'plan.toml',
      'reference.py',
      'solution.py',
    ]);
    const verify = runCli(['benchmark', 'verify', 'demo'], {cwd: zoo});
    expect(verify.code).toBe(1);
    expect(verify.stdout).toContain('demo/README.md: error: Missing `README.md`');
    expect(verify.stdout).toContain('demo/PROVENANCE.md: error: Missing `PROVENANCE.md`');
  });

  it('--direction minimize: the README says lower is better and the plan says minimize', () => {
    const zoo = tempDir();
    expect(runCli(['benchmark', 'scaffold', 'demo', '--direction', 'minimize'], {cwd: zoo}).code).toBe(0);
    expect(read(zoo, 'demo/README.md')).toContain('**lower is better**');
    expect(read(zoo, 'demo/README.md')).not.toContain('higher is better');
    expect(read(zoo, 'demo/README.md')).toContain("a case that crashes, times out or returns no answer counts 1.0, plan.toml's `fail_score`");
    expect(read(zoo, 'demo/plan.toml')).toMatch(/^direction = "minimize" +# lower scores are better$/m);
    // A case with no scorable answer gets the worst share, not 0.0 (the best under minimize).
    expect(read(zoo, 'demo/plan.toml')).toMatch(/^fail_score = 1\.0 +# the score of a case with no scorable answer/m);
    // A lower-is-better score is no speedup: the metric is accuracy, and the plan loads (a lock was written).
    expect(read(zoo, 'demo/plan.toml')).toMatch(/^metric = "accuracy" /m);
    expect(existsSync(path.join(zoo, 'demo/arbor.lock'))).toBe(true);
  });

  it.each(['js', 'py'])('--metric accuracy (%s bundle): a plan scored by the verifier, no reference, a README that says so', (lang) => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', 'demo', '--metric', 'accuracy', '--bundle-lang', lang], {cwd: zoo});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Scaffolded demo \(style zoo, metric accuracy\): /);
    const dir = path.join(zoo, 'demo');
    const verifier = lang === 'py' ? 'verify.py' : 'verify.mjs';
    expect(walk(dir)).toEqual([
      '.arbor-scaffold',
      'PROVENANCE.md',
      'README.md',
      'arbor.lock',
      'bundle/fherma.toml',
      `bundle/generate.${lang === 'py' ? 'py' : 'mjs'}`,
      `bundle/oracle.${lang === 'py' ? 'py' : 'mjs'}`,
      `bundle/${verifier}`,
      'eval.sh',
      'plan.toml',
      'solution.py',
    ]);
    const plan = read(dir, 'plan.toml');
    expect(plan).toMatch(/^metric = "accuracy" .*\nnumerator = "correct"\ndenominator = "of"\ntimeout = 60 /m);
    expect(plan).not.toMatch(/^(reference|repetitions|clock|precision|max_seconds) =/m);
    expect(read(dir, 'bundle/fherma.toml')).toMatch(new RegExp(`^verify = "${verifier}" `, 'm'));
    expect(read(dir, 'README.md')).toContain(`The score is an accuracy: per case, the share of the answer that \`bundle/${verifier}\` counts correct`);
    expect(read(dir, 'README.md')).toContain('Everything else (`eval.sh`, `plan.toml` and `bundle/`) is protected.');
    expect(runCli(['benchmark', 'lock', '--check', 'demo'], {cwd: zoo}).code).toBe(0);
    // The verifier counts the right positions: all of an oracle's answer, none of zeros.
    const work = path.join(zoo, 'work');
    const env = {ARBOR_PYTHON: python};
    expect(runCli(['bundle', path.join(dir, 'bundle'), 'make', work, '--point', '{"N": 50}', '--seeds', '0-1'], {env}).code).toBe(0);
    cpSync(path.join(work, 'expected/000000'), path.join(work, 'out/000000'), {recursive: true});
    mkdirSync(path.join(work, 'out/000001'));
    writeFileSync(path.join(work, 'out/000001/y.bin'), Buffer.alloc(50 * 8));
    const verified = runCli(['bundle', path.join(dir, 'bundle'), 'verify', work], {env});
    expect(verified.code, verified.stderr).toBe(0);
    const verdicts = JSON.parse(read(work, 'verdicts.json')).cases as {passed: boolean; metrics: unknown}[];
    expect(verdicts.map((v) => [v.passed, v.metrics])).toEqual([
      [true, {correct: 50, of: 50}],
      [false, {correct: 0, of: 50}],
    ]);
  });

  it('filling a folder whose plan.toml names a metric fits that metric: no reference.py for an accuracy plan', () => {
    const zoo = tempDir();
    expect(runCli(['benchmark', 'scaffold', 'demo', '--metric', 'accuracy', '--style', 'light'], {cwd: zoo}).code).toBe(0);
    rmSync(path.join(zoo, 'demo/arbor.lock'));
    const filled = runCli(['benchmark', 'scaffold', 'demo', '--json'], {cwd: zoo});
    expect(JSON.parse(filled.stdout)).toMatchObject({metric: 'accuracy', created: ['PROVENANCE.md', 'README.md', 'arbor.lock'], withheld: []});
    expect(read(zoo, 'demo/README.md')).toContain('The score is an accuracy');
  });

  it('--metric speedup writes reference.py and a README about the speedup; with --direction minimize it is refused', () => {
    const zoo = tempDir();
    expect(runCli(['benchmark', 'scaffold', 'demo', '--metric', 'speedup', '--split-kind', 'path'], {cwd: zoo}).code).toBe(0);
    expect(existsSync(path.join(zoo, 'demo/reference.py'))).toBe(true);
    expect(read(zoo, 'demo/plan.toml')).toMatch(/^metric = "speedup" .*\nreference = "reference.py"\n/m);
    expect(read(zoo, 'demo/README.md')).toContain('The score is a speedup: per case, the time `reference.py` takes over the time the solution takes');
    expect(read(zoo, 'demo/README.md')).toContain('Everything else (`eval.sh`, `plan.toml`, `bundle/`, `data/` and `reference.py`) is protected.');
    expect(existsSync(path.join(zoo, 'demo/bundle/verify.mjs'))).toBe(false);
  });

  it('--split-kind path writes data/dev/ and data/test/, an accuracy plan that reads them and no sorting reference', () => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', 'demo', '--split-kind', 'path'], {cwd: zoo});
    expect(result.code).toBe(0);
    const arbor = invocation.arborCommand({cwd: zoo});
    expect(result.stdout).toContain(
      `  4. Put the dev and test cases in data/dev/ and data/test/, one made work directory per subfolder; to start from the generator's cases, run \`${arbor} bundle demo/bundle make demo/data/dev/generated --point '{"N": 1000}' --seeds 0-3\` and \`${arbor} bundle demo/bundle make demo/data/test/generated --point '{"N": 1000}' --seeds 1000-1003\`, then \`${arbor} benchmark lock demo\`.\n`,
    );
    const dir = path.join(zoo, 'demo');
    expect(walk(dir)).toContain('data/dev/README.md');
    expect(walk(dir)).toContain('data/test/README.md');
    expect(walk(dir)).not.toContain('reference.py');
    expect(walk(dir)).toContain('bundle/verify.mjs');
    expect(read(dir, 'plan.toml')).toMatch(/^metric = "accuracy" /m);
    expect(read(dir, 'README.md')).toContain('Everything else (`eval.sh`, `plan.toml`, `data/` and `bundle/`) is protected.');
    const plan = read(dir, 'plan.toml');
    expect(plan).toMatch(/^split_kind = "path" .*\n\n\[dev\]\npath = "data\/dev" .*\n\n\[test\]\npath = "data\/test" .*\n$/m);
    expect(plan).not.toMatch(/^seeds|^points/m);
    expect(read(dir, 'README.md')).toContain('The test split is only as held out as this folder');
    // The data READMEs are placeholders that verify reports until they are written.
    expect(runCli(['benchmark', 'verify', 'demo'], {cwd: zoo}).stdout).toMatch(/^demo\/data\/test\/README\.md:3:1: error: Unfilled placeholder/m);
  });

  it('--edit names the editable files in README and plan.toml; the first is the solution written from the template', () => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', 'demo', '--edit', 'solver.py', 'lib/kernel.py'], {cwd: zoo});
    expect(result.code).toBe(0);
    const dir = path.join(zoo, 'demo');
    expect(read(dir, 'plan.toml')).toContain('solution = "solver.py"\n');
    expect(read(dir, 'plan.toml')).toContain('editable = ["solver.py", "lib/kernel.py"]\n');
    expect(read(dir, 'README.md')).toContain('`solver.py` and `lib/kernel.py` are the files an agent may edit');
    expect(read(dir, 'solver.py')).toBe(read(templates, 'base/{{solution}}').replaceAll('{{name}}', 'demo'));
    expect(existsSync(path.join(dir, 'solution.py'))).toBe(false);
    expect(existsSync(path.join(dir, 'lib'))).toBe(false);
  });

  it('--name names the benchmark whatever its folder is called', () => {
    const zoo = tempDir();
    mkdirSync(path.join(zoo, 'My Project'));
    const unnamed = runCli(['benchmark', 'scaffold', 'My Project'], {cwd: zoo});
    expect(unnamed).toEqual({
      code: 2,
      stdout: '',
      stderr: "arbor: Invalid benchmark name `My Project` (the folder's name): it contains whitespace; expected [a-z0-9][a-z0-9_-]*, or give --name\n",
    });
    expect(readdirSync(path.join(zoo, 'My Project'))).toEqual([]);
    expect(runCli(['benchmark', 'scaffold', 'My Project', '--name', 'my_task'], {cwd: zoo}).code).toBe(0);
    expect(read(zoo, 'My Project/README.md')).toMatch(/^# my_task\n/);
    expect(read(zoo, 'My Project/plan.toml')).toContain('name = "my_task"\n');
    expect(read(zoo, 'My Project/bundle/fherma.toml')).toContain('spec = "zoo/my_task@0.1.0"\n');
  });

  it('--bundle-lang py writes a Python bundle skeleton that makes the same cases and answers as the JavaScript one', () => {
    const zoo = tempDir();
    for (const lang of ['js', 'py'])
      expect(runCli(['benchmark', 'scaffold', `${lang}/demo`, '--bundle-lang', lang, '--style', 'light'], {cwd: zoo}).code).toBe(0);
    expect(readdirSync(path.join(zoo, 'py/demo/bundle')).sort()).toEqual(['fherma.toml', 'generate.py', 'oracle.py']);
    const env = {ARBOR_PYTHON: python};
    for (const lang of ['js', 'py']) {
      const bundle = path.join(zoo, lang, 'demo/bundle');
      expect(runCli(['bundle', bundle, 'fingerprint', '--check']).code).toBe(0);
      const made = runCli(['bundle', bundle, 'make', path.join(zoo, lang, 'work'), '--point', '{"N": 1000}', '--seeds', '0-2'], {env});
      expect(made.code, made.stderr).toBe(0);
    }
    expect(walk(path.join(zoo, 'py/work'))).toEqual(walk(path.join(zoo, 'js/work')));
    for (const rel of walk(path.join(zoo, 'js/work')))
      expect(readFileSync(path.join(zoo, 'py/work', rel)).equals(readFileSync(path.join(zoo, 'js/work', rel)))).toBe(true);
  });

  it.each([
    [['--style', 'zooo'], 'Unknown --style `zooo`, expected one of: light, zoo'],
    [['--entrypoint', 'eval.rb'], 'Unknown --entrypoint `eval.rb`, expected one of: eval.sh, eval.py'],
    [['--direction', 'up'], 'Unknown --direction `up`, expected one of: maximize, minimize'],
    [['--split-kind', 'files'], 'Unknown --split-kind `files`, expected one of: seed_range, path'],
    [['--bundle-lang', 'go'], 'Unknown --bundle-lang `go`, expected one of: js, py'],
    [['--metric', 'speed'], 'Unknown --metric `speed`, expected one of: speedup, accuracy'],
    [
      ['--metric', 'speedup', '--direction', 'minimize'],
      '--direction minimize does not fit --metric speedup: a speedup is higher-is-better; expected --metric accuracy (or --direction maximize)',
    ],
    [
      ['--edit', 'eval.sh'],
      '--edit `eval.sh`: it is a protected file of the benchmark, which an agent must not edit; expected the solution file(s), e.g. solution.py',
    ],
    [
      ['--edit', 'bundle/oracle.mjs'],
      '--edit `bundle/oracle.mjs`: it is a protected file of the benchmark, which an agent must not edit; expected the solution file(s), e.g. solution.py',
    ],
    [['--edit', '../x.py'], '--edit `../x.py`: expected a path inside the benchmark folder'],
    [['--edit', 'my file.py'], '--edit `my file.py`: expected a file name of letters, digits, `.`, `_`, `-` and `/`'],
    [['--edit', 'a.py', './a.py'], '--edit `./a.py`: it is listed twice'],
    [
      ['--edit', 'kernel.c', 'solution.py'],
      '--edit `kernel.c`: the first editable file is the solution module the runner imports; expected a .py file first, e.g. --edit solution.py kernel.c solution.py',
    ],
    [['--name', 'Bad'], 'Invalid benchmark name `Bad`: it contains upper-case letters; expected [a-z0-9][a-z0-9_-]*'],
  ])('%j: exit 2, one line, nothing written', (flags, message) => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', 'demo', ...flags], {cwd: zoo});
    expect(result).toEqual({code: 2, stdout: '', stderr: `arbor: ${message}\n`});
    expect(readdirSync(zoo)).toEqual([]);
  });

  it.each([
    ['bad name', 'it contains whitespace'],
    ['Demo', 'it contains upper-case letters'],
    ['..', 'it contains `..`'],
    ['-demo', 'it starts with `-`'],
    ['dé', 'it contains characters other than'],
    ['_demo', 'a leading `_` marks scaffolding'],
  ])('refuses the folder name %j with exit 2 and one line', (name, why) => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', name.startsWith('-') ? `./${name}` : name], {cwd: zoo});
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(why);
    expect(readdirSync(zoo)).toEqual([]);
  });

  it('refuses a path through `..`', () => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', 'zoo/../demo'], {cwd: zoo});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/contains `\.\.`/);
  });

  it('allows a leading underscore with --allow-underscore', () => {
    const zoo = tempDir();
    expect(runCli(['benchmark', 'scaffold', '_template', '--allow-underscore'], {cwd: zoo}).code).toBe(0);
  });

  it('documents every option in --help', () => {
    const help = runCli(['benchmark', 'scaffold', '--help']).stdout;
    for (const flag of [
      '--style',
      '--entrypoint',
      '--direction',
      '--split-kind',
      '--metric',
      '--edit',
      '--name',
      '--bundle-lang',
      '--allow-underscore',
      '--json',
    ])
      expect(help).toContain(flag);
  });
});

describe('the eval entrypoints', () => {
  /** A stand-in arbor that prints the arguments it was given, one per line. */
  function fakeArbor(): string {
    const file = path.join(tempDir(), 'arbor');
    writeFileSync(file, '#!/bin/sh\nfor a in "$@"; do echo "$a"; done\n');
    chmodSync(file, 0o755);
    return file;
  }

  it('runs `arbor benchmark eval <folder> <split>` exactly as eval.sh does, passing the other options on', () => {
    const zoo = tempDir();
    expect(runCli(['benchmark', 'scaffold', 'sh/demo'], {cwd: zoo}).code).toBe(0);
    expect(runCli(['benchmark', 'scaffold', 'py/demo', '--entrypoint', 'eval.py'], {cwd: zoo}).code).toBe(0);
    expect(statSync(path.join(zoo, 'py/demo/eval.py')).mode & 0o111).not.toBe(0);
    expect(existsSync(path.join(zoo, 'py/demo/eval.sh'))).toBe(false);
    expect(read(zoo, 'py/demo/README.md')).toContain('`python3 eval.py --split dev|test` prints one `score: <float>` line');
    expect(read(zoo, 'py/demo/PROVENANCE.md')).toContain('how long one `python3 eval.py --split dev` takes');
    expect(read(zoo, 'sh/demo/PROVENANCE.md')).toContain('how long one `bash eval.sh dev` takes');
    const env = {...process.env, ARBOR: fakeArbor()};
    const sh = spawnSync('bash', [path.join(zoo, 'sh/demo/eval.sh'), 'test', '--json', 'r.json'], {encoding: 'utf8', env, cwd: os.tmpdir()});
    const py = spawnSync('python3', [path.join(zoo, 'py/demo/eval.py'), '--json', 'r.json', '--split=test'], {encoding: 'utf8', env, cwd: os.tmpdir()});
    expect(sh.stdout).toBe(`benchmark\neval\n${path.join(zoo, 'sh/demo')}\ntest\n--json\nr.json\n`);
    expect(py.stdout).toBe(sh.stdout.replace('/sh/demo', '/py/demo'));
    expect(py.status).toBe(0);
  });

  /** A stand-in arbor CLI (a .js file, as the recorded one is) that prints its tag and arguments as JSON. */
  function fakeCli(file: string, tag: string): string {
    mkdirSync(path.dirname(file), {recursive: true});
    writeFileSync(file, `console.log(JSON.stringify([${JSON.stringify(tag)}, ...process.argv.slice(2)]))\n`);
    return file;
  }
  /** A stand-in arbor command (a shell script) that prints its tag and arguments as JSON. */
  function fakeCommand(file: string, tag: string): string {
    mkdirSync(path.dirname(file), {recursive: true});
    writeFileSync(file, `#!/bin/sh\nexec node ${JSON.stringify(fakeCli(`${file}.js`, tag))} "$@"\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it.each(['eval.sh', 'eval.py'])(
    '%s finds arbor in order: $ARBOR, an arbor checkout or node_modules/.bin/arbor up the tree, the arbor that made it, the PATH; a bad $ARBOR or none is one line and 127',
    async (entrypoint) => {
      const root = tempDir();
      const made = async (dir: string, arborCli: string) => {
        await lib.scaffoldBenchmark(dir, {entrypoint, style: 'light', name: 'demo', arborCli});
        return path.join(dir, entrypoint);
      };
      // A clean environment: no arbor on the PATH, only node and the system's tools.
      const PATH = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(':');
      const run = (file: string, env: Record<string, string> = {}) => {
        const argv = entrypoint === 'eval.sh' ? ['bash', file, 'dev'] : [python, file, '--split', 'dev'];
        const result = spawnSync(argv[0]!, argv.slice(1), {encoding: 'utf8', cwd: root, env: {PATH, HOME: root, ...env}});
        return {code: result.status, stdout: result.stdout, stderr: result.stderr};
      };
      const called = (tag: string, dir: string) => ({code: 0, stdout: `${JSON.stringify([tag, 'benchmark', 'eval', dir, 'dev'])}\n`, stderr: ''});
      const recorded = fakeCli(path.join(root, 'made/cli.js'), 'made');

      // The arbor checkout the folder lives in wins over the one that made it; $ARBOR over both.
      const checkout = path.join(root, 'arbor');
      mkdirSync(checkout);
      writeFileSync(path.join(checkout, 'package.json'), '{\n  "name": "arbor"\n}\n');
      fakeCli(path.join(checkout, 'dist/cli/index.js'), 'checkout');
      const inCheckout = await made(path.join(checkout, 'zoo/demo'), recorded);
      expect(run(inCheckout)).toEqual(called('checkout', path.dirname(inCheckout)));
      expect(run(inCheckout, {ARBOR: fakeCommand(path.join(root, 'env/arbor'), 'env')})).toEqual(called('env', path.dirname(inCheckout)));
      // Made by the checkout it lives in, it records no arbor: it finds that one from its folder, and a path would hold only on this machine.
      const own = await made(path.join(checkout, 'zoo/own'), path.join(checkout, 'dist/cli/index.js'));
      expect(readFileSync(own, 'utf8')).toMatch(entrypoint === 'eval.sh' ? /^made_by=''$/m : /^MADE_BY = ""$/m);
      expect(readFileSync(inCheckout, 'utf8')).toContain(recorded);
      expect(run(own)).toEqual(called('checkout', path.dirname(own)));
      // One installed in the benchmark's repository (npm install), found from a folder below it.
      fakeCommand(path.join(root, 'repo/node_modules/.bin/arbor'), 'installed');
      const inRepo = await made(path.join(root, 'repo/benchmarks/demo'), recorded);
      expect(run(inRepo)).toEqual(called('installed', path.dirname(inRepo)));
      // Elsewhere, the arbor that made it.
      const alone = await made(path.join(root, 'alone/demo'), recorded);
      expect(run(alone)).toEqual(called('made', path.dirname(alone)));
      // Made by an arbor that is not on this machine (a clone): passed over for the PATH, or none.
      const cloned = await made(path.join(root, 'cloned/demo'), path.join(root, 'elsewhere/arbor/dist/cli/index.js'));
      const bin = path.dirname(fakeCommand(path.join(root, 'bin/arbor'), 'path'));
      expect(run(cloned, {PATH: `${bin}:${PATH}`})).toEqual(called('path', path.dirname(cloned)));
      const fix =
        "install it in this benchmark's repository (npm install /path/to/arbor), set ARBOR=/path/to/arbor/dist/cli/index.js, or put arbor on the PATH (npm link in arbor's repository)";
      expect(run(cloned)).toEqual({code: 127, stdout: '', stderr: `${entrypoint}: arbor not found: ${fix}\n`});
      // A bad $ARBOR is the entrypoint's own one line, never the shell's, and never falls through.
      const bad = (value: string, why: string) => ({
        code: 127,
        stdout: '',
        stderr: `${entrypoint}: ARBOR=${value}: ${why}; point ARBOR at arbor's dist/cli/index.js or an arbor command, or unset it\n`,
      });
      expect(run(alone, {ARBOR: '/nonexistent/arbor'})).toEqual(bad('/nonexistent/arbor', 'no such executable file'));
      expect(run(alone, {ARBOR: '/nonexistent/arbor/dist/cli/index.js'})).toEqual(bad('/nonexistent/arbor/dist/cli/index.js', 'no such file'));
      expect(run(alone, {ARBOR: 'no-such-arbor'})).toEqual(bad('no-such-arbor', 'no such command on the PATH'));
      expect(run(alone, {ARBOR: root})).toEqual(bad(root, 'no such executable file'));
    },
  );

  it.each([[[]], [['--split']], [['--split', 'prod']], [['dev']]])('exits 2 with one usage line for %j', (args) => {
    const zoo = tempDir();
    expect(runCli(['benchmark', 'scaffold', 'demo', '--entrypoint', 'eval.py'], {cwd: zoo}).code).toBe(0);
    const run = spawnSync('python3', [path.join(zoo, 'demo/eval.py'), ...args], {encoding: 'utf8', env: {...process.env, ARBOR: fakeArbor()}});
    expect({code: run.status, stdout: run.stdout, stderr: run.stderr}).toEqual({
      code: 2,
      stdout: '',
      stderr: 'usage: python3 eval.py --split dev|test [arbor benchmark eval options]\n',
    });
  });

  // Two sandboxed evals, one timed to a precision: over a minute on a loaded machine, hence its own timeout.
  it('a fresh scaffold evaluates through eval.sh and eval.py alike: one score line, 0 for the placeholder', () => {
    const zoo = tempDir();
    const env = {...process.env, ARBOR: cliPath, ARBOR_PYTHON: python};
    // eval.sh with the JavaScript bundle and the placeholder solution; eval.py with the Python bundle, solved.
    for (const [entry, run, solved] of [
      ['eval.sh', ['bash', 'eval.sh', 'dev'], false],
      ['eval.py', [python, 'eval.py', '--split', 'dev'], true],
    ] as const) {
      const dir = path.join(zoo, entry);
      expect(runCli(['benchmark', 'scaffold', dir, '--name', 'demo', '--entrypoint', entry, '--bundle-lang', solved ? 'py' : 'js']).code).toBe(0);
      if (solved) {
        cpSync(path.join(dir, 'reference.py'), path.join(dir, 'solution.py'));
        // A looser precision keeps the test short; the author relocks after changing the plan.
        writeFileSync(path.join(dir, 'plan.toml'), readFileSync(path.join(dir, 'plan.toml'), 'utf8').replace('precision = 0.01', 'precision = 0.2'));
        expect(runCli(['benchmark', 'lock', dir]).code).toBe(0);
      }
      const result = spawnSync(run[0], run.slice(1), {cwd: dir, encoding: 'utf8', env});
      expect(result.status, result.stderr).toBe(0);
      const score = Number(/^score: (\S+)\n$/.exec(result.stdout)?.[1]);
      if (solved) expect(score).toBeGreaterThan(0);
      else expect(result.stdout).toBe('score: 0.0\n');
    }
  }, 180_000);
});

describe('leftovers of killed scaffold and checkout runs', () => {
  const host = createHash('sha256').update(os.hostname()).digest('hex').slice(0, 8);
  /** The pid of a process that has exited. */
  const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid!;

  it('are removed by the next run when their process is gone; a live run’s and another host’s are kept', () => {
    const zoo = tempDir();
    const dead = deadPid();
    const leftovers = {
      [`.demo.scaffold-${host}-${dead}-AbC123`]: 'dead scaffold folder',
      [`.other.checkout-${host}-${dead}-x1y2z3`]: 'dead checkout folder',
      [`.demo.scaffold-${host}-${process.pid}-live00`]: 'a live run',
      [`.demo.scaffold-0badc0de-${dead}-remote`]: 'another host',
      '.demo.scaffold-Xy12ab': 'an old-style name without a pid',
    };
    for (const [name, text] of Object.entries(leftovers)) {
      mkdirSync(path.join(zoo, name));
      writeFileSync(path.join(zoo, name, 'README.md'), text);
    }
    expect(runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo}).code).toBe(0);
    expect(readdirSync(zoo).sort()).toEqual(
      [`.demo.scaffold-${host}-${process.pid}-live00`, `.demo.scaffold-0badc0de-${dead}-remote`, '.demo.scaffold-Xy12ab', 'demo'].sort(),
    );

    mkdirSync(path.join(zoo, `.copy.checkout-${host}-${dead}-QwErTy`));
    const checkout = runCli(['benchmark', 'checkout', 'demo', 'copy'], {
      cwd: zoo,
      env: {GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t'},
    });
    expect(checkout.code, checkout.stderr).toBe(0);
    expect(readdirSync(zoo).filter((n) => n.includes(`-${dead}-`) && n.includes(host))).toEqual([]);
  });

  it('inside a folder being filled: stale temporary files of a killed fill are removed', () => {
    const zoo = tempDir();
    const dir = path.join(zoo, 'demo');
    mkdirSync(path.join(dir, 'bundle'), {recursive: true});
    writeFileSync(path.join(dir, 'README.md'), 'mine');
    const stale = [`.plan.toml.scaffold-${host}-${deadPid()}-0a1b2c3d`, `bundle/.oracle.mjs.scaffold-${host}-${deadPid()}-0a1b2c3d`];
    for (const rel of stale) writeFileSync(path.join(dir, rel), 'half');
    expect(runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo}).code).toBe(0);
    for (const rel of stale) expect(existsSync(path.join(dir, rel))).toBe(false);
    expect(leftovers(walk(dir))).toEqual([]);
  });
});
