import {spawnSync} from 'node:child_process';
import {chmodSync, rmSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {canRunAsOrdinaryUser, runCli, runCliAsOrdinaryUser} from '../helpers/cli.js';
import {copyFixture, zooFixtures} from './helpers/zoo.js';

const fixture = (name: string) => path.relative(process.cwd(), path.join(zooFixtures, name));

describe('arbor benchmark verify (end to end)', () => {
  it('exits 0 and says ok for a clean benchmark', () => {
    const result = runCli(['benchmark', 'verify', fixture('minimal-ok')]);
    expect(result).toEqual({code: 0, stdout: `${fixture('minimal-ok')}: ok\n`, stderr: ''});
  });

  it('exits 1 with file:line:col findings naming the rule', () => {
    const dir = fixture('provenance-section-empty');
    const result = runCli(['benchmark', 'verify', dir]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe(
      `${dir}/PROVENANCE.md:11:1: error: Section \`Baseline\` in \`PROVENANCE.md\` is empty, expected prose under the heading (provenance-section-empty)\n${dir}: 1 error\n`,
    );
  });

  it('verifies several folders and reports each', () => {
    const result = runCli(['benchmark', 'verify', fixture('minimal-ok'), fixture('eval-missing')]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`${fixture('minimal-ok')}: ok`);
    expect(result.stdout).toContain(`${fixture('eval-missing')}: error: Missing eval entrypoint, expected \`eval.sh\` or \`eval.py\` (eval-entrypoint)`);
  });

  it('exits 0 with warnings only', () => {
    const result = runCli(['benchmark', 'verify', fixture('readme-warnings-only')]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/: ok, 2 warnings\n$/);
  });

  it('warns, never errs, for each of the four README topics the format lists, naming the section to add', () => {
    const dir = fixture('readme-topics-missing');
    const result = runCli(['benchmark', 'verify', dir]);
    expect(result.code).toBe(0);
    const warnings = result.stdout.split('\n').filter((line) => line.includes(': warning: '));
    expect(warnings.map((line) => /\((readme-[a-z-]+)\)$/.exec(line)?.[1])).toEqual([
      'readme-task',
      'readme-metric-direction',
      'readme-editable',
      'readme-split',
    ]);
    for (const [line, section] of warnings.map((line, k) => [line, ['## Task', '## Metric', '## What may be edited', '## Dev and test'][k]!]))
      expect(line).toContain(`\`${section}\` section`);
    expect(result.stdout).toMatch(/: ok, 4 warnings\n$/);
  });

  it('prints the documented JSON shape with --json', () => {
    const result = runCli(['benchmark', 'verify', '--json', fixture('readme-missing')]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: false,
      errors: 1,
      warnings: 0,
      benchmarks: [
        {
          dir: fixture('readme-missing'),
          ok: false,
          errors: 1,
          warnings: 0,
          findings: [
            {
              file: `${fixture('readme-missing')}/README.md`,
              severity: 'error',
              ruleId: 'readme-present',
              message: 'Missing `README.md`, expected the task description Arbor reads',
            },
          ],
        },
      ],
      unusable: [],
    });
  });

  it('lists the rules with --list-rules', () => {
    const result = runCli(['benchmark', 'verify', '--list-rules']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^readme-present +error +/m);
    expect(result.stdout).toMatch(/^readme-split +warning +/m);
  });

  it('exits 2 with one line for a folder that does not exist', () => {
    const result = runCli(['benchmark', 'verify', 'no/such/bench']);
    expect(result).toEqual({code: 2, stdout: '', stderr: 'arbor: Benchmark folder `no/such/bench` does not exist, expected a benchmark folder\n'});
  });

  it('exits 2 with one line for a file where a folder is expected', () => {
    const file = `${fixture('minimal-ok')}/README.md`;
    const result = runCli(['benchmark', 'verify', file]);
    expect(result).toEqual({code: 2, stdout: '', stderr: `arbor: Benchmark folder \`${file}\` is a file, expected a benchmark folder\n`});
  });

  it('exits 2 with one line when no folder is given', () => {
    const result = runCli(['benchmark', 'verify']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^arbor: Missing argument for `arbor benchmark verify`/);
  });

  it('reports non-UTF-8 markdown as a finding naming the file, not a crash', () => {
    const dir = copyFixture('minimal-ok', 'latin1');
    writeFileSync(path.join(dir, 'README.md'), Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x0a]));
    const result = runCli(['benchmark', 'verify', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `${dir}/README.md:1:4: error: \`README.md\` is not valid UTF-8 (first bad byte at offset 3), expected UTF-8 text (file-readable)`,
    );
    expect(result.stderr).toBe('');
  });

  it('reports a README that is a symlink loop', () => {
    const dir = copyFixture('minimal-ok', 'loop');
    const readme = path.join(dir, 'README.md');
    rmSync(readme);
    symlinkSync('README.md', readme);
    const result = runCli(['benchmark', 'verify', dir]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Cannot read `README.md` (symlink loop), expected a readable file (file-readable)');
  });

  // Root reads through any mode: as root, the verify runs as an ordinary user.
  it.skipIf(!canRunAsOrdinaryUser)('reports an unreadable file', () => {
    const dir = copyFixture('minimal-ok', 'unreadable');
    chmodSync(path.join(dir, 'PROVENANCE.md'), 0);
    const result = runCliAsOrdinaryUser(['benchmark', 'verify', dir], [path.dirname(dir)]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Cannot read `PROVENANCE.md` (permission denied)');
  });

  it('reports a README that is a named pipe without reading (and hanging on) it', () => {
    const dir = copyFixture('minimal-ok', 'fifo');
    rmSync(path.join(dir, 'README.md'));
    spawnSync('mkfifo', [path.join(dir, 'README.md')]);
    const result = runCli(['benchmark', 'verify', dir], {timeout: 20_000});
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('`README.md` is a named pipe, expected a regular file');
  });
});
