import {cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {openLedger, recordRun} from '../../lib/ledger/index.js';
import {sampleRecord} from '../ledger/helpers.js';
import {repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {knnSolutions, shippedEntries, shippedZoo, writeHistory} from './helpers.js';

/** The summary table's rows: `data-entry` attribute of each, in page order. */
function tableEntries(html: string): string[] {
  const table = html.slice(html.indexOf('<table id="entries"'), html.indexOf('</table>', html.indexOf('<table id="entries"')));
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
    expect(result.stdout).toBe(
      `Wrote ${path.join(dir, 'report.html')}: ${shippedEntries.length} entries, no runs recorded yet (ledger ${path.join(dir, 'none', 'runs.db')}).\n`,
    );
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(tableEntries(html)).toEqual(shippedEntries);
    expect(html).toContain('id="no-runs"');
    expect(html).toContain('(no ledger there yet)');
    expect(html.match(/<td class="health ok" data-label="verify">/g)).toHaveLength(shippedEntries.length);
    // One line for every entry without runs, not a card each.
    expect(html.match(/No runs recorded yet for/g)).toHaveLength(1);
    expect(html).toContain(
      `No runs recorded yet for any entry: ${shippedEntries.map((e, i) => `<span class="entry-name" id="entry-${i}">${e}</span>`).join(', ')}.`,
    );
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

  it('shows scores, intervals, solutions, compare verdicts naming both sides, baseline spread and test exposure from the ledger', () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    writeHistory(ledger);
    const result = runCli(['benchmark', 'report', 'zoo', '--out', path.join(dir, 'r.html')], {env: {ARBOR_LEDGER: ledger}});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`: ${shippedEntries.length} entries, 15 run(s) (ledger `);
    const html = readFileSync(path.join(dir, 'r.html'), 'utf8');
    expect(tableEntries(html)).toEqual(shippedEntries);
    expect(html).not.toContain('id="no-runs"');
    const row = html.slice(html.indexOf('<tr data-entry="algotune_knn">'), html.indexOf('</tr>', html.indexOf('<tr data-entry="algotune_knn">')));
    const cells = [...row.matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ''));
    expect(cells).toEqual([
      'algotune_knn',
      'ok',
      'speedup',
      '0.99 [0.96, 1.02] #12 solution.py · 99999999',
      // The best is among runs whose label says what they were: the 39x ../fast.py is an unlabelled file, listed, never a best.
      '1.01 [0.98, 1.04] #4 solution.py · 99999999',
      '38.1 [36.2, 40.1] #10 ../fast.py',
      '-',
      '2 of 5',
    ]);
    expect(html).toMatch(
      /<td class="score-cell" data-label="dev latest" title="error #15 commit 111111111111 · 77777777"><span class="failed">error<\/span> <span class="run">#15<\/span> <span class="solution">commit 111111111111 · 77777777<\/span><\/td>/,
    );
    expect(html).toContain('<title>zoo: benchmark report</title>');
    expect(html).toContain('<h1>zoo</h1>');
    // Every solution of an entry in its own row, the edited solution.py apart from the baseline's.
    const solutions = html.slice(html.indexOf('<table class="solutions'), html.indexOf('</table>', html.indexOf('<table class="solutions')));
    expect([...solutions.matchAll(/<tr data-solution="([^"]*)">/g)].map((m) => m[1])).toEqual(knnSolutions);
    // Compare rows name both sides, digests after.
    const compares = html.slice(html.indexOf('<table class="compares'), html.indexOf('</table>', html.indexOf('<table class="compares')));
    const sides = [
      ...compares.matchAll(
        /<td class="side (candidate|baseline)" data-label="(?:candidate|baseline)"><span class="solution">([^<]*)<\/span> <code class="sha">([0-9a-f]{12})<\/code><\/td>/g,
      ),
    ].map((m) => `${m[1]}: ${m[2]} ${m[3]}`);
    expect(sides).toEqual([
      'candidate: ../fast.py 333333333333',
      'baseline: ledger run #6 (../knn_blocked.py) 111111111111',
      'candidate: ../fast.py 333333333333',
      'baseline: solution.py · 99999999 999999999999',
    ]);
    expect(html.match(/<td class="verdict better" data-label="verdict">better<\/td>/g)).toHaveLength(2);
    expect(html).toContain('from the lowest to the highest score of 3 calibrate runs of <span class="solution">solution.py · 99999999</span>');
    expect(html).toContain('1 run in this ledger belongs to a benchmark not in this zoo');
    // dev and test in panels of their own: algotune_knn has both, relu_poly dev only; speedups on a log axis, accuracy on a linear one.
    expect([...html.matchAll(/<div class="chart" id="(chart-\d+-\d+)" data-split="(\w+)" data-scale="(\w+)"/g)].map((m) => m.slice(1).join(' '))).toEqual([
      `chart-${shippedEntries.indexOf('algotune_knn')}-0 dev log`,
      `chart-${shippedEntries.indexOf('algotune_knn')}-1 test log`,
      `chart-${shippedEntries.indexOf('relu_poly')}-0 dev linear`,
    ]);
    expect(html).toContain('<strong>test</strong>: held-out cases, on an axis of its own; not comparable with dev');
    expect(html).toContain('Not drawn on the log axis: #7 (solution.py · 22222222, score 0).');
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
    // One line each: the status and the first finding's message, every finding behind the toggle.
    expect(html).toMatch(
      /<td class="health broken" data-label="verify"><details><summary title="Benchmark folder `zoo\/dangling` does not exist[^"]*"><span class="status">broken<\/span><span class="reason">Benchmark folder `zoo\/dangling` does not exist/,
    );
    expect(html).toMatch(
      /<td class="health failing" data-label="verify"><details><summary title="zoo\/empty_one\/README.md: error: Missing `README.md`[^"]*"><span class="status">3 errors<\/span><span class="reason">Missing `README.md`, expected [^<]*<\/span><\/summary><ul class="findings"><li>zoo\/empty_one\/README.md: error: Missing `README.md`[^<]*<\/li><li>[^<]+<\/li><li>[^<]+<\/li><\/ul><\/details><\/td>/,
    );
  });

  it('refuses an --out in a missing folder or an --out that is a folder, writing nothing (exit 2)', () => {
    const dir = tempDir();
    const missing = runCli(['benchmark', 'report', 'zoo', '--out', path.join(dir, 'nope', 'r.html')]);
    expect(missing.code).toBe(2);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toBe(
      `arbor: Cannot write the report to \`${path.join(dir, 'nope', 'r.html')}\`: its folder \`${path.join(dir, 'nope')}\` does not exist; pass --out a file in an existing folder\n`,
    );
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
  it("lists the steps in an entry's score series (runs --changes) with the runs on either side", () => {
    const dir = tempDir();
    const file = path.join(dir, 'runs.db');
    const scores = [2.0, 2.01, 1.99, 2.0, 1.8, 1.81, 1.79];
    scores.forEach((score, k) => {
      const time = new Date(Date.UTC(2026, 2, 1, 10, k)).toISOString();
      const record = sampleRecord({
        time,
        benchmark: {path: path.join(shippedZoo, 'polymul_negacyclic'), name: 'polymul_negacyclic'},
        score,
        interval: [score - 0.02, score + 0.02],
        git: null,
      });
      expect(recordRun(file, record).ok).toBe(true);
    });
    const out = path.join(dir, 'report.html');
    expect(runCli(['benchmark', 'report', shippedZoo, '--out', out], {env: {ARBOR_LEDGER: file}}).code).toBe(0);
    const html = readFileSync(out, 'utf8');
    const table = html.slice(html.indexOf('<table class="changes'), html.indexOf('</table>', html.indexOf('<table class="changes')));
    const rows = [...table.matchAll(/<tr><td data-label="split">(.*?)<\/tr>/g)].map((m) =>
      m[1]!
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/^dev \S+ regression x0\.9\d* \[0\.\d+, 0\.\d+\] #4 2026-03-01 10:03:00Z \(4 at 2\) #5 2026-03-01 10:04:00Z \(3 at 1\.8\)$/);
  });
});
