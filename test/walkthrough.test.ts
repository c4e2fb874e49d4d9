/**
 * docs/walkthrough.md ("Write your first benchmark"), run as it is written: every block marked
 * `<!-- walkthrough: file PATH -->` is written to PATH, every block marked
 * `<!-- walkthrough: run[, exit N][, expect "TEXT"]... -->` is run through bash, in order, in a
 * fresh folder with a clean environment (`env -i`: PATH with only the system folders and an `arbor`
 * that is this checkout's CLI, as `npm link` makes it; HOME a fresh folder). A reader who follows
 * the section gets what the test gets. The README's summary of it holds only commands it runs.
 */
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {cliPath, repoRoot, tempDir} from './helpers/cli.js';

/** One marked block of the walkthrough. */
type Step = {kind: 'file'; path: string; content: string; line: number} | {kind: 'run'; script: string; exit: number; expect: string[]; line: number};

const heading = '# Write your first benchmark';

/** The marked blocks of the walkthrough, in order. */
function walkthroughSteps(readme: string): Step[] {
  if (!readme.startsWith(`${heading}\n`)) throw new Error(`docs/walkthrough.md does not start with "${heading}"`);
  const section = readme;
  const firstLine = 1;
  const steps: Step[] = [];
  const marker = /<!-- walkthrough: (.*?) -->\n```[^\n]*\n([\s\S]*?)\n```\n/g;
  for (const match of section.matchAll(marker)) {
    const [, spec, body] = match as unknown as [string, string, string];
    const line = firstLine + section.slice(0, match.index).split('\n').length - 1;
    const file = /^file (\S+)$/.exec(spec);
    if (file) {
      steps.push({kind: 'file', path: file[1]!, content: `${body}\n`, line});
      continue;
    }
    if (!spec.startsWith('run')) throw new Error(`docs/walkthrough.md:${line}: unknown walkthrough marker "${spec}"`);
    const exit = /, exit (\d+)/.exec(spec);
    const expects = [...spec.matchAll(/, expect "([^"]*)"/g)].map((m) => m[1]!);
    steps.push({kind: 'run', script: body, exit: exit ? Number(exit[1]) : 0, expect: expects, line});
  }
  // A marker not right before a fenced block would be skipped without a word: refuse it.
  const markers = section.split('<!-- walkthrough:').length - 1;
  if (markers !== steps.length) throw new Error(`docs/walkthrough.md: ${markers - steps.length} walkthrough marker(s) not followed by a fenced block`);
  return steps;
}

/** The clean PATH: a folder holding only `arbor` (this checkout's CLI), then the system's; node's folder where it is not there. */
function cleanPath(bin: string): string {
  const system = ['/usr/bin', '/bin'];
  const node = system.some((dir) => existsSync(path.join(dir, 'node'))) ? [] : [path.dirname(process.execPath)];
  return [bin, ...system, ...node].join(':');
}

describe('the walkthrough (docs/walkthrough.md)', () => {
  const readme = readFileSync(path.join(repoRoot, 'docs/walkthrough.md'), 'utf8');
  const steps = walkthroughSteps(readme);

  it("is what the README's summary says: each of its lines is a command the walkthrough runs", () => {
    const summary = /<!-- walkthrough-summary -->\n```sh\n([\s\S]*?)\n```/.exec(readFileSync(path.join(repoRoot, 'README.md'), 'utf8'))?.[1];
    expect(summary).toBeDefined();
    const run = steps.flatMap((s) => (s.kind === 'run' ? s.script.split('\n') : []));
    for (const line of summary!.split('\n')) expect(run, line).toContain(line);
  });

  it('has the steps the section promises: scaffold, bundle, solutions, plan, verify, lock, eval, calibrate, compare', () => {
    const scripts = steps
      .filter((s) => s.kind === 'run')
      .map((s) => s.script)
      .join('\n');
    for (const command of [
      'benchmark scaffold',
      'fingerprint --write',
      'benchmark verify',
      'benchmark lock',
      'eval.sh dev',
      'benchmark calibrate',
      'benchmark compare',
    ]) {
      expect(scripts).toContain(command);
    }
    const files = steps.filter((s) => s.kind === 'file').map((s) => s.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'window_sums/bundle/fherma.toml',
        'window_sums/bundle/generate.mjs',
        'window_sums/bundle/oracle.mjs',
        'window_sums/reference.py',
        'window_sums/solution.py',
        'window_sums/plan.toml',
        'fast.py',
      ]),
    );
  });

  it('runs as written: verify exits 0, eval prints one score line, compare says better', {timeout: 600_000}, () => {
    const root = tempDir('arbor-walkthrough-');
    const zoo = path.join(root, 'my-zoo');
    const home = path.join(root, 'home');
    const bin = path.join(root, 'bin');
    for (const dir of [zoo, home, bin]) mkdirSync(dir);
    // What `npm link` puts on the PATH: a link to the package's bin.
    symlinkSync(cliPath, path.join(bin, 'arbor'));
    const env = [
      `PATH=${cleanPath(bin)}`,
      `HOME=${home}`,
      `TMPDIR=${root}`,
      ...(process.env.ARBOR_CPU_LEASES ? [`ARBOR_CPU_LEASES=${process.env.ARBOR_CPU_LEASES}`] : []),
    ];
    const seen: string[] = [];
    for (const step of steps) {
      if (step.kind === 'file') {
        const target = path.join(zoo, step.path);
        // Every file the walkthrough writes replaces one scaffold made, or is new beside the zoo.
        expect(path.relative(zoo, target).startsWith('..'), `docs/walkthrough.md:${step.line}`).toBe(false);
        writeFileSync(target, step.content);
        continue;
      }
      const started = Date.now();
      const run = spawnSync('env', ['-i', ...env, 'bash', '-eo', 'pipefail', '-c', step.script], {cwd: zoo, encoding: 'utf8'});
      seen.push(`${step.script.split('\n')[0]} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      const where = `docs/walkthrough.md:${step.line}: ${step.script}\n--- stdout\n${run.stdout}--- stderr\n${run.stderr}`;
      expect(run.status, where).toBe(step.exit);
      for (const text of step.expect) expect(run.stdout, where).toContain(text);
      if (/eval\.sh dev/.test(step.script)) expect(run.stdout, where).toMatch(/^score: \d+\.\d+(e[+-]?\d+)?\n$/);
      // A changed fingerprint's next step names this benchmark's lock as it can be pasted.
      if (/fingerprint --write/.test(step.script)) expect(run.stderr, where).toContain('; lock the benchmark again: arbor benchmark lock window_sums\n');
      if (/benchmark compare/.test(step.script)) expect(run.stdout, where).toMatch(/^verdict: better \(ratio /m);
      if (/benchmark verify window_sums$/.test(step.script) && step.exit === 0) expect(run.stdout, where).toBe('window_sums: ok\n');
    }
    // Every eval and compare of the walkthrough is on record in the zoo's ledger.
    expect(existsSync(path.join(zoo, '.arbor/runs.db'))).toBe(true);
    console.log(`walkthrough steps:\n  ${seen.join('\n  ')}`);
  });
});
