// The eval's copy of a solution never follows a link and copies regular files only (issue 51): root
// evaluating another user's solution that is a link to a root-only file must not read that file, and
// nothing of it may show in the score line, the diagnostics or the --json report.
import {execFileSync} from 'node:child_process';
import {chmodSync, cpSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {copyRegularFiles} from '../../lib/eval/snapshot.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {rewritePlan} from './adversaries.js';

/** Python that crashes on its first line, so a crash report would quote that line (the secret). */
const secretText = 'SECRET_TOKEN_51_d9e4 = 1 / 0  # root-only\nSECOND_SECRET_LINE_51 = 2\n';

/** A private copy of the accuracy fixture whose plan lists an editable folder `helpers/`, and a 0600 secret outside it. */
function entryWithFolder(): {dir: string; secret: string; json: string} {
  const root = tempDir();
  const dir = path.join(root, 'entry');
  cpSync(path.join(fixtures, 'eval/accuracy-abs'), dir, {recursive: true});
  mkdirSync(path.join(dir, 'helpers'));
  writeFileSync(path.join(dir, 'helpers/__init__.py'), '');
  rewritePlan(dir, {'metric = "accuracy"': 'editable = ["solution.py", "helpers"]\nmetric = "accuracy"'});
  // The solution imports its helpers: a copied link would be imported, crash, and be quoted.
  writeFileSync(path.join(dir, 'solution.py'), `import helpers.mod\n${readFileSync(path.join(dir, 'solution.py'), 'utf8')}`);
  const secret = path.join(root, 'secret.py');
  writeFileSync(secret, secretText);
  chmodSync(secret, 0o600);
  return {dir, secret, json: path.join(root, 'report.json')};
}

/** The eval refused with one usage line naming `shown`, and the secret is nowhere in what it said or wrote. */
function expectRefused(dir: string, json: string, args: string[], shown: string, what: RegExp): void {
  const result = runCli(['benchmark', 'eval', dir, 'dev', '--json-file', json, ...args]);
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(new RegExp(`^arbor: solution ${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${what.source}\n$`));
  const written = existsSync(json) ? readFileSync(json, 'utf8') : '';
  for (const text of [result.stdout, result.stderr, written]) {
    expect(text).not.toContain('SECRET');
    expect(text).not.toContain('root-only');
  }
}

describe('the eval copies regular files only, never through a link', () => {
  it('a --solution that is a link to a 0600 file outside is refused (exit 2) and nothing of the file shows', {timeout: 60_000}, () => {
    const {dir, secret, json} = entryWithFolder();
    const link = path.join(path.dirname(dir), 'solution.py');
    symlinkSync(secret, link);
    expectRefused(dir, json, ['--solution', link], link, /a symbolic link, never followed: pass the file itself \(copy it in place of the link\)/);
  });

  it('a link inside an editable folder is refused, as is an editable folder that is itself a link', {timeout: 60_000}, () => {
    const {dir, secret, json} = entryWithFolder();
    const inside = path.join(dir, 'helpers/mod.py');
    symlinkSync(secret, inside);
    expectRefused(dir, json, [], inside, /a symbolic link, never followed: pass the file itself \(copy it in place of the link\)/);

    const {dir: other, secret: otherSecret, json: otherJson} = entryWithFolder();
    const elsewhere = path.join(path.dirname(other), 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(path.join(elsewhere, '__init__.py'), '');
    cpSync(otherSecret, path.join(elsewhere, 'mod.py'));
    cpSync(path.join(other, 'helpers'), path.join(elsewhere), {recursive: true});
    execFileSync('rm', ['-r', path.join(other, 'helpers')]);
    symlinkSync(elsewhere, path.join(other, 'helpers'));
    expectRefused(other, otherJson, [], path.join(other, 'helpers'), /a symbolic link, never followed: pass the file itself \(copy it in place of the link\)/);
  });

  it("a link inside the entry's bundle is refused too (the one copier), locked or not, and nothing of its target shows", {timeout: 120_000}, () => {
    const {dir, secret, json} = entryWithFolder();
    const inside = path.join(dir, 'bundle/data.txt');
    symlinkSync(secret, inside);
    // Locked with the link in it: the lock names a link by its target's text, so only the copy can refuse it.
    expect(runCli(['benchmark', 'lock', dir]).code).toBe(0);
    const result = runCli(['benchmark', 'eval', dir, 'dev', '--json-file', json]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^arbor: bundle \S+data\.txt: a symbolic link, never followed: pass the file itself \(copy it in place of the link\)\n$/);
    const written = existsSync(json) ? readFileSync(json, 'utf8') : '';
    for (const text of [result.stdout, result.stderr, written]) expect(text).not.toContain('SECRET');
  });

  it('a fifo inside an editable folder is refused without being opened for reading', {timeout: 60_000}, () => {
    const {dir, json} = entryWithFolder();
    const fifo = path.join(dir, 'helpers/mod.py');
    execFileSync('mkfifo', [fifo]);
    expectRefused(dir, json, [], fifo, /a fifo, not a regular file: pass a regular file/);
  });

  it('a regular editable folder is copied with its files, and scores as before', {timeout: 60_000}, () => {
    const {dir, json} = entryWithFolder();
    writeFileSync(path.join(dir, 'helpers/mod.py'), 'VALUE = 1\n');
    chmodSync(path.join(dir, 'helpers/mod.py'), 0o700);
    const result = runCli(['benchmark', 'eval', dir, 'dev', '--json-file', json]);
    expect(result.stderr).not.toMatch(/internal error|Traceback/);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^score: 0\.\d+\n$/);
  });
});

describe('the copier, raced: a folder swapped for a link between the check and the open', () => {
  /** A solution folder with `sub/solution.py`, and a folder elsewhere holding a secret under the same names. */
  function raced(): {from: string; to: string; secretDir: string} {
    const root = tempDir();
    const from = path.join(root, 'side');
    mkdirSync(path.join(from, 'sub'), {recursive: true});
    writeFileSync(path.join(from, 'sub/solution.py'), 'VALUE = 1\n');
    const secretDir = path.join(root, 'root-only');
    mkdirSync(secretDir);
    writeFileSync(path.join(secretDir, 'solution.py'), secretText);
    return {from, to: path.join(root, 'copy'), secretDir};
  }
  /** A confinement hook (it runs after the copier resolved the path, before the open) that swaps `folder` for a link to `secretDir`. */
  const swapping = (folder: string, secretDir: string) => async (file: string) => {
    const vetted = realpathSync(file);
    renameSync(folder, `${folder}.moved`);
    symlinkSync(secretDir, folder);
    return vetted;
  };

  it('an editable path whose folder becomes a link is refused, and nothing is copied', async () => {
    const {from, to, secretDir} = raced();
    const copy = copyRegularFiles(from, ['sub/solution.py'], to, {what: 'solution', confine: swapping(path.join(from, 'sub'), secretDir)});
    await expect(copy).rejects.toThrow(/^solution \S+\/sub\/solution\.py: moved or replaced while it was copied: pass a path nothing else changes$/);
    expect(existsSync(path.join(to, 'sub/solution.py'))).toBe(false);
  });

  it('a --solution whose folder becomes a link is refused, and nothing is copied', async () => {
    const {from, to, secretDir} = raced();
    const given = path.join(from, 'sub/solution.py');
    const copy = copyRegularFiles(from, ['solution.py'], to, {
      what: 'solution',
      rename: {'solution.py': given},
      confine: swapping(path.join(from, 'sub'), secretDir),
    });
    await expect(copy).rejects.toThrow(/^solution \S+\/sub\/solution\.py: moved or replaced while it was copied: pass a path nothing else changes$/);
    expect(existsSync(path.join(to, 'solution.py'))).toBe(false);
  });
});
