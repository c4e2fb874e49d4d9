/**
 * The report's first screen, in Debian's Chromium through playwright-core:
 * a 9-entry zoo with 3 entries failing verify must show every entry and the
 * top of the first chart at 1280 x 900, and nothing may be cut at 390 px.
 * Skipped only where /usr/bin/chromium is missing.
 */
import {existsSync, mkdirSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import type {Browser} from 'playwright-core';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {nineEntries, nineFailing, writeHistory, writeNineEntryZoo} from './helpers.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) console.warn(`skipping the report's first-screen tests: ${chromiumPath} is missing (apt-get install chromium)`);

/** Screenshots go here, kept after the run so a person can look at them. */
const shots = path.join(tmpdir(), 'arbor-report-first-screen');

/**
 * Write the report of the 9-entry zoo the way a user in the zoo folder does
 * (`arbor benchmark report .`), its ledger beside the zoo: runs for
 * algotune_knn (the first entry, so its chart is the page's first) and relu_poly.
 */
function writeNineEntryReport(): string {
  const dir = tempDir();
  const zoo = path.join(dir, 'lab-zoo');
  mkdirSync(zoo);
  writeNineEntryZoo(zoo);
  const ledger = path.join(dir, 'runs.db');
  writeHistory(ledger);
  const out = path.join(dir, 'report.html');
  const result = runCli(['benchmark', 'report', '.', '--out', out, '--ledger', ledger], {cwd: zoo});
  expect(result.code, result.stderr).toBe(0);
  return out;
}

/** Each entry row's box and its cells' boxes, and the page's widths, as the page lays them out. */
function readLayout() {
  const doc = (globalThis as any).document;
  const win = globalThis as any;
  const box = (e: any) => {
    const r = e.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height};
  };
  const table = doc.querySelector('#entries');
  return {
    innerWidth: win.innerWidth,
    innerHeight: win.innerHeight,
    scrollWidth: doc.documentElement.scrollWidth,
    tableBox: {scrollWidth: table.parentElement.scrollWidth, clientWidth: table.parentElement.clientWidth},
    rows: [...table.querySelectorAll('tbody tr')].map((tr: any) => ({
      entry: tr.dataset.entry,
      display: win.getComputedStyle(tr).display,
      ...box(tr),
      cells: [...tr.children].map((cell: any) => ({...box(cell), clipped: cell.scrollWidth > cell.clientWidth + 1})),
    })),
    chart: doc.querySelector('.chart') ? box(doc.querySelector('.chart')) : null,
    // Anything reaching past the screen's right edge, or a box that scrolls sideways to show its content.
    beyond: [...doc.querySelectorAll('body *')]
      .filter((e: any) => e.getBoundingClientRect().right > win.innerWidth + 0.5)
      .map((e: any) => `${e.tagName.toLowerCase()}.${e.className}`),
    sideways: [...doc.querySelectorAll('.scroll')]
      .filter((e: any) => e.scrollWidth > e.clientWidth)
      .map((e: any) => e.firstElementChild.className || e.firstElementChild.id),
  };
}

describe.skipIf(!haveChromium)("the report's first screen in Chromium", () => {
  let browser: Browser;

  beforeAll(async () => {
    const {chromium} = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-breakpad'],
    });
    mkdirSync(shots, {recursive: true});
  });

  afterAll(async () => {
    await browser?.close();
  });

  async function open(file: string, width: number, javaScriptEnabled = true) {
    const context = await browser.newContext({viewport: {width, height: 900}, offline: true, javaScriptEnabled});
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(pathToFileURL(file).href);
    if (javaScriptEnabled) await page.waitForSelector('html[data-charts]', {timeout: 20_000});
    return {page, problems, close: () => context.close()};
  }

  it('at 1280 x 900 shows all 9 entries one line each, 3 failing with a one-line reason, and the top of the first chart', async () => {
    const out = writeNineEntryReport();
    const {page, problems, close} = await open(out, 1280);
    try {
      const layout = await page.evaluate(readLayout);
      await page.screenshot({path: path.join(shots, 'first-screen-1280.png')});
      const clipped = layout.rows.flatMap((r) => r.cells.flatMap((c, k) => (c.clipped ? [`${r.entry}:${k}`] : [])));
      console.log(
        `first screen at 1280: ${path.join(shots, 'first-screen-1280.png')} (${JSON.stringify({rows: layout.rows.map((r) => [r.entry, Math.round(r.bottom)]), chart: layout.chart, clipped})})`,
      );
      expect(layout.rows.map((r) => r.entry)).toEqual(nineEntries);
      // One line per entry: no row taller than the shortest (an ok entry with no runs), give or take a pixel.
      const line = Math.min(...layout.rows.map((r) => r.height));
      for (const row of layout.rows) {
        expect(row.height, row.entry).toBeLessThanOrEqual(line + 1);
        expect(row.bottom, row.entry).toBeLessThanOrEqual(layout.innerHeight);
      }
      expect(layout.chart, 'a chart').not.toBeNull();
      expect(layout.chart!.top).toBeLessThan(layout.innerHeight);

      // A failing entry: its status and its first finding on one line; the whole verify text is behind a toggle.
      const failing = page.locator('#entries tbody tr[data-entry="ntt_forward"] td.health');
      expect(await failing.locator('.status').textContent()).toBe('2 errors');
      expect(await failing.locator('summary .reason').textContent()).toBe(
        '`README.md` is empty, expected a description of the task, its metric, what may be edited and the dev/test split',
      );
      expect(await failing.locator('.findings').isVisible()).toBe(false);
      expect(
        await page.locator('#entries tbody td.health.failing').evaluateAll((cells) => cells.map((c) => c.closest('tr')!.getAttribute('data-entry'))),
      ).toEqual(nineFailing);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('names the zoo by its folder, not `.`, and the ledger relative to the zoo', async () => {
    const out = writeNineEntryReport();
    const {page, close} = await open(out, 1280, false);
    try {
      expect(await page.locator('h1').textContent()).toBe('lab-zoo');
      expect(await page.locator('header .meta').textContent()).toMatch(
        /^Benchmark report of the zoo lab-zoo\. 9 entries: 6 ok, 3 failing verify\. 15 runs from the ledger \.\.\/runs\.db\. Made /,
      );
    } finally {
      await close();
    }
  });

  it("opens a failing entry's full verify text without any script", async () => {
    const out = writeNineEntryReport();
    const {page, close} = await open(out, 1280, false);
    try {
      const cell = page.locator('#entries tbody tr[data-entry="ntt_forward"] td.health');
      await cell.locator('summary').click();
      expect(await cell.locator('.findings').isVisible()).toBe(true);
      expect(await cell.locator('.findings li').allTextContents()).toEqual([
        'ntt_forward/README.md: error: `README.md` is empty, expected a description of the task, its metric, what may be edited and the dev/test split (readme-content)',
        'ntt_forward/PROVENANCE.md: error: Missing `PROVENANCE.md`, expected the human card with the five required sections (provenance-present)',
      ]);
    } finally {
      await close();
    }
  });

  it('at 390 px shows every entry as a card, nothing wider than the screen or scrolling sideways', async () => {
    const out = writeNineEntryReport();
    const {page, problems, close} = await open(out, 390);
    try {
      const layout = await page.evaluate(readLayout);
      await page.screenshot({path: path.join(shots, 'first-screen-390.png'), fullPage: true});
      await page.screenshot({path: path.join(shots, 'first-screen-390-top.png')});
      await page.locator('#entry-0').screenshot({path: path.join(shots, 'first-screen-390-entry.png')});
      console.log(`at 390: ${path.join(shots, 'first-screen-390.png')} (${JSON.stringify({scrollWidth: layout.scrollWidth, table: layout.tableBox})})`);
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
      // Nothing cut: no element past the right edge, no table scrolling inside its box (solutions, compares and changes are cards too).
      expect(layout.beyond).toEqual([]);
      expect(layout.sideways).toEqual([]);
      // The entries table itself does not scroll sideways either: each entry is a card, each of its cells inside the screen.
      expect(layout.tableBox.scrollWidth).toBeLessThanOrEqual(layout.tableBox.clientWidth);
      expect(layout.rows.map((r) => r.entry)).toEqual(nineEntries);
      for (const row of layout.rows) {
        expect(row.display, row.entry).toBe('grid');
        expect(row.left, row.entry).toBeGreaterThanOrEqual(0);
        expect(row.right, row.entry).toBeLessThanOrEqual(layout.innerWidth);
        for (const [k, cell] of row.cells.entries()) {
          expect(cell.right, `${row.entry} cell ${k}`).toBeLessThanOrEqual(row.right + 0.5);
          expect(cell.clipped, `${row.entry} cell ${k}`).toBe(false);
        }
      }
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
