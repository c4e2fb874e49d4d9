import {cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {openLedger} from '../../lib/ledger/index.js';
import {repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {shippedEntries, shippedZoo, writeHistory} from './helpers.js';

/** The summary table's rows: `data-entry` attribute of each, in page order. */
function tableEntries(html: string): string[] {
  const table = html.slice(html.indexOf('<table id="entries">'), html.indexOf('</table>', html.indexOf('<table id="entries">')));
  return [...table.matchAll(/<tr data-entry="([^"]*)">/g)].map((m) => m[1]!);
}

/** Every src= or href= that is not a fragment link: what the page would load or open. */
function outsideReferences(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)\s*=\s*"([^"#][^"]*)"/gi)].map((m) => m[1]!);
}

describe('arbor benchmark report', () => {
  it('prints its help with the options and exit codes', () => {
    const result = runCli(['benchmark', 'report', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--out');
    expect(result.stdout).toContain('--ledger');
    expect(result.stdout).toMatch(/Exit 0 when the report was written.*1 when.*2 for bad usage/s);
  });

  it('writes report.html in the current folder for ./zoo with a missing ledger: every entry listed, "no runs recorded yet"', () => {
    const dir = tempDir();
    cpSync(shippedZoo, path.join(dir, 'zoo'), {recursive: true});
    const result = runCli(['benchmark', 'report'], {cwd: dir, env: {ARBOR_LEDGER: path.join(dir, 'none', 'runs.db')}});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Wrote ${path.join(dir, 'report.html')}: 4 entries, no runs recorded yet (ledger ${path.join(dir, 'none', 'runs.db')}).\n`);
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(tableEntries(html)).toEqual(shippedEntries);
    expect(html).toContain('id="no-runs"');
    expect(html).toContain('(no ledger there yet)');
    expect(html.match(/<td class="health ok">/g)).toHaveLength(4);
    expect(html.match(/No runs recorded yet for this entry/g)).toHaveLength(4);
    expect(outsideReferences(html)).toEqual([]);
    expect(html).toMatch(/<\/html>\n$/);
    expect(readdirSync(dir).sort()).toEqual(['report.html', 'zoo']);
  });

  it('reads an existing but empty ledger the same way, and keeps every entry with its health', () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    openLedger(ledger).close();
    const result = runCli(['benchmark', 'report', 'zoo', '--ledger', ledger, '--out', path.join(dir, 'r.html')]);
    expect(result.code).toBe(0);
    const html = readFileSync(path.join(dir, 'r.html'), 'utf8');
    expect(tableEntries(html)).toEqual(shippedEntries);
    expect(html).toContain('id="no-runs"');
    expect(html).not.toContain('(no ledger there yet)');
  });

  it('shows scores, intervals, compare verdicts, baseline spread and test exposure from the ledger', () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    writeHistory(ledger);
    const result = runCli(['benchmark', 'report', 'zoo', '--out', path.join(dir, 'r.html')], {env: {ARBOR_LEDGER: ledger}});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(': 4 entries, 15 run(s) (ledger ');
    const html = readFileSync(path.join(dir, 'r.html'), 'utf8');
    expect(tableEntries(html)).toEqual(shippedEntries);
    expect(html).not.toContain('id="no-runs"');
    const row = html.slice(html.indexOf('<tr data-entry="algotune_knn">'), html.indexOf('</tr>', html.indexOf('<tr data-entry="algotune_knn">')));
    const cells = [...row.matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    expect(cells).toEqual(['algotune_knn', 'ok', 'speedup', '1.38 [1.33, 1.43] #12', '1.45 [1.4, 1.5] #8', '1.41 [1.35, 1.47] #10', '1.41 [1.35, 1.47] #10', '2 of 5']);
    expect(html).toMatch(/<td class="score-cell"><span class="failed">error<\/span> <span class="run">#15<\/span><\/td>/);
    expect(html).toContain('<td class="verdict better">better</td>');
    expect(html).toContain('<td class="verdict same">same</td>');
    expect(html).toContain('from the lowest to the highest score of 3 calibrate runs');
    expect(html).toContain('1 run in this ledger belongs to a benchmark not in this zoo');
    expect(html.match(/<div class="chart" id="chart-\d+"/g)).toHaveLength(2);
  });

  it('lists an entry failing verify with its first finding, and a broken one with what is wrong', () => {
    const dir = tempDir();
    const zoo = path.join(dir, 'zoo');
    cpSync(path.join(shippedZoo, 'relu_poly'), path.join(zoo, 'relu_poly'), {recursive: true});
    mkdirSync(path.join(zoo, 'empty_one'));
    mkdirSync(path.join(zoo, '_template'));
    writeFileSync(path.join(zoo, 'notes.txt'), 'not a benchmark');
    symlinkSync(path.join(dir, 'gone'), path.join(zoo, 'dangling'));
    const result = runCli(['benchmark', 'report', 'zoo', '--ledger', path.join(dir, 'runs.db')], {cwd: dir});
    expect(result.code).toBe(0);
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(tableEntries(html)).toEqual(['dangling', 'empty_one', 'relu_poly']);
    expect(html).toContain('3 entries: 1 ok, 1 failing verify, 1 broken');
    expect(html).toMatch(/<td class="health broken"><span class="status">broken<\/span><div class="finding">Benchmark folder `zoo\/dangling` does not exist/);
    expect(html).toMatch(/<td class="health failing"><span class="status">3 errors<\/span><div class="finding">zoo\/empty_one\/README.md: error: Missing `README.md`/);
  });

  it('refuses an --out in a missing folder or an --out that is a folder, writing nothing (exit 2)', () => {
    const dir = tempDir();
    const missing = runCli(['benchmark', 'report', 'zoo', '--out', path.join(dir, 'nope', 'r.html')]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe(`arbor: Cannot write the report to \`${path.join(dir, 'nope', 'r.html')}\`: its folder \`${path.join(dir, 'nope')}\` does not exist; pass --out a file in an existing folder\n`);
    const folder = runCli(['benchmark', 'report', 'zoo', '--out', dir]);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/^arbor: Cannot write the report to `.*`: it is a folder; pass --out a file in an existing folder\n$/);
    const empty = runCli(['benchmark', 'report', 'zoo', '--out', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr.split('\n')[0]).toMatch(/^arbor: /);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('names a missing zoo (exit 2)', () => {
    const dir = tempDir();
    const result = runCli(['benchmark', 'report', 'no-such-zoo'], {cwd: dir});
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('arbor: Zoo `no-such-zoo` does not exist, expected a folder of benchmarks\n');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves an existing report whole when the ledger is corrupt (exit 1), and replaces it whole when it succeeds', () => {
    const dir = tempDir();
    const out = path.join(dir, 'report.html');
    writeFileSync(out, 'the previous report');
    const corrupt = path.join(dir, 'corrupt.db');
    writeFileSync(corrupt, 'this is not a SQLite database, just some text long enough to be read as one'.repeat(20));
    const failed = runCli(['benchmark', 'report', 'zoo', '--ledger', corrupt, '--out', out]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^arbor: run ledger .*corrupt\.db is corrupt .*move it aside to start a new one\n$/);
    expect(readFileSync(out, 'utf8')).toBe('the previous report');
    expect(readdirSync(dir).sort()).toEqual(['corrupt.db', 'report.html']);

    const written = runCli(['benchmark', 'report', 'zoo', '--ledger', path.join(dir, 'none.db'), '--out', out]);
    expect(written.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toMatch(/<\/html>\n$/);
    expect(readdirSync(dir).sort()).toEqual(['corrupt.db', 'report.html']);
  });

  it('inlines the chart library from node_modules: the page names no outside file', () => {
    const dir = tempDir();
    const out = path.join(dir, 'r.html');
    expect(runCli(['benchmark', 'report', 'zoo', '--ledger', path.join(dir, 'none.db'), '--out', out]).code).toBe(0);
    const html = readFileSync(out, 'utf8');
    const uplot = readFileSync(path.join(repoRoot, 'node_modules/uplot/dist/uPlot.iife.min.js'), 'utf8');
    expect(html).toContain(uplot.slice(0, 2000));
    expect(html).toContain("default-src 'none'");
    expect(outsideReferences(html)).toEqual([]);
    expect(html).not.toMatch(/<link\b/i);
  });
});
