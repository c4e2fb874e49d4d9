import {existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {lib} from './helpers/zoo.js';

const templateDir = path.join(repoRoot, 'templates/zoo');

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

describe('arbor benchmark scaffold', () => {
  it('copies every template file with {{name}} filled in, LF endings and eval.sh executable', () => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo});
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^Scaffolded demo \(style zoo\)/);
    expect(result.stdout).toContain('Next steps:');
    expect(result.stdout).toContain('arbor benchmark verify demo');
    const dir = path.join(zoo, 'demo');
    expect(walk(dir)).toEqual(walk(templateDir));
    for (const rel of walk(dir)) {
      const text = readFileSync(path.join(dir, rel), 'utf8');
      expect(text).not.toContain('{{name}}');
      expect(text).not.toContain('\r');
    }
    expect(readFileSync(path.join(dir, 'README.md'), 'utf8')).toMatch(/^# demo\n/);
    expect(statSync(path.join(dir, 'eval.sh')).mode & 0o111).not.toBe(0);
    expect(readFileSync(path.join(dir, 'eval.sh'), 'utf8')).toBe(readFileSync(path.join(templateDir, 'eval.sh'), 'utf8'));
    // Nothing but the new folder next to it: the temporary sibling is gone.
    expect(readdirSync(zoo)).toEqual(['demo']);
  });

  it('writes a folder that fails verify naming each placeholder, and passes once they are filled in', () => {
    const zoo = tempDir();
    expect(runCli(['benchmark', 'scaffold', 'zoo/demo'], {cwd: zoo}).code).toBe(0);
    const placeholders = walk(templateDir)
      .map((rel) => (readFileSync(path.join(templateDir, rel), 'utf8').match(/TODO\(arbor\)/g) ?? []).length)
      .reduce((a, b) => a + b, 0);
    expect(placeholders).toBeGreaterThanOrEqual(9);
    const failing = runCli(['benchmark', 'verify', 'zoo/demo'], {cwd: zoo});
    expect(failing.code).toBe(1);
    const lines = failing.stdout.split('\n').filter((l) => l.includes('(placeholder)'));
    expect(lines).toHaveLength(placeholders);
    for (const line of lines) expect(line).toMatch(/^zoo\/demo\/[^:]+:\d+:\d+: error: Unfilled placeholder "TODO\(arbor\): /);
    fillIn(path.join(zoo, 'zoo/demo'));
    const passing = runCli(['benchmark', 'verify', 'zoo/demo'], {cwd: zoo});
    expect(passing.stdout).toBe('zoo/demo: ok\n');
    expect(passing.code).toBe(0);
  });

  it('refuses a non-empty folder with exit 1 and touches nothing', () => {
    const zoo = tempDir();
    mkdirSync(path.join(zoo, 'demo'));
    writeFileSync(path.join(zoo, 'demo', 'notes.txt'), 'mine');
    const result = runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo});
    expect(result).toEqual({code: 1, stdout: '', stderr: 'arbor: Refusing to scaffold into `demo`: the folder is not empty (nothing was changed)\n'});
    expect(readdirSync(path.join(zoo, 'demo'))).toEqual(['notes.txt']);
    expect(readdirSync(zoo)).toEqual(['demo']);
  });

  it('fills an existing empty folder', () => {
    const zoo = tempDir();
    mkdirSync(path.join(zoo, 'demo'));
    expect(runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo}).code).toBe(0);
    expect(existsSync(path.join(zoo, 'demo', 'PROVENANCE.md'))).toBe(true);
  });

  it('refuses a file where the folder should go with exit 1', () => {
    const zoo = tempDir();
    writeFileSync(path.join(zoo, 'demo'), 'x');
    const result = runCli(['benchmark', 'scaffold', 'demo'], {cwd: zoo});
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('arbor: Refusing to scaffold into `demo`: it is a file, expected a new or empty folder\n');
  });

  it.each([
    ['bad name', 'it contains whitespace'],
    ['Demo', 'it contains upper-case letters'],
    ['..', 'it contains `..`'],
    ['-demo', 'it starts with `-`'],
    ['dé', 'it contains characters other than'],
    ['_demo', 'a leading `_` marks scaffolding'],
  ])('refuses the name %j with exit 2 and one line', (name, why) => {
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

  it('refuses an unknown style with exit 2 naming the styles', () => {
    const zoo = tempDir();
    const result = runCli(['benchmark', 'scaffold', 'demo', '--style', 'nope'], {cwd: zoo});
    expect(result).toEqual({code: 2, stdout: '', stderr: 'arbor: Unknown style `nope`, expected one of: zoo\n'});
  });

  it('is available as a library function returning data', () => {
    const zoo = tempDir();
    const result = lib.scaffoldBenchmark('x1', {cwd: zoo});
    expect(result.name).toBe('x1');
    expect(result.placeholders.length).toBeGreaterThanOrEqual(9);
    expect(result.placeholders[0]).toMatchObject({file: expect.any(String), line: expect.any(Number)});
  });
});
