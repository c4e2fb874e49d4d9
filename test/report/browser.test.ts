/**
 * The report in a real browser: Debian's Chromium, driven by playwright-core
 * (never a browser Playwright downloads). Skipped only where /usr/bin/chromium
 * is missing; CI installs it (.ci/run).
 */
import {existsSync, readFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import type {Browser} from 'playwright-core';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {recordRun} from '../../lib/ledger/index.js';
import {runCli, tempDir} from '../helpers/cli.js';
import {sampleRecord, sha} from '../ledger/helpers.js';
import {knnSolutions, shippedEntries, shippedZoo, writeHistory} from './helpers.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) console.warn(`skipping the report's browser tests: ${chromiumPath} is missing (apt-get install chromium)`);

/** Pixels of each chart's canvas by what drew them: the first, second and fourth solution's colour, the baseline band's fill. */
interface ChartPixels {
  id: string;
  first: number;
  second: number;
  fourth: number;
  baselineBand: number;
  painted: number;
}

/** Count each chart's pixels by colour, in the page (the canvas holds what uPlot drew, before any page compositing). */
function countChartPixels(): ChartPixels[] {
  const near = (d: Uint8ClampedArray, k: number, rgb: number[], tolerance: number) =>
    Math.abs(d[k]! - rgb[0]!) <= tolerance && Math.abs(d[k + 1]! - rgb[1]!) <= tolerance && Math.abs(d[k + 2]! - rgb[2]!) <= tolerance;
  const doc = (globalThis as any).document;
  return [...doc.querySelectorAll('.chart')].map((chart: {id: string; querySelector(s: string): unknown}) => {
    const canvas = chart.querySelector('canvas') as any;
    const counts = {id: chart.id, first: 0, second: 0, fourth: 0, baselineBand: 0, painted: 0};
    if (!canvas) return counts;
    const d: Uint8ClampedArray = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let k = 0; k < d.length; k += 4) {
      const alpha = d[k + 3]!;
      if (alpha === 0) continue;
      counts.painted++;
      // lib/report/chart.ts solutionColours[0], [1] and [3].
      if (alpha > 200 && near(d, k, [31, 111, 180], 8)) counts.first++;
      else if (alpha > 200 && near(d, k, [194, 65, 12], 8)) counts.second++;
      else if (alpha > 200 && near(d, k, [126, 34, 206], 8)) counts.fourth++;
      else if (alpha >= 40 && alpha <= 75 && near(d, k, [100, 116, 139], 8)) counts.baselineBand++;
    }
    return counts;
  });
}

/** Per chart: its legend's visible rows as [label, value] (what it shows now), and its y axis as uPlot has it. */
function readCharts() {
  const win = globalThis as any;
  return win.arborReport.plots.map(({entry, split, plot}: any) => {
    const rows = [...plot.root.querySelectorAll('.u-legend .u-series')].filter((row: any) => row.style.display !== 'none');
    const y = (value: number) => plot.valToPos(value, 'y');
    return {
      entry,
      split,
      id: plot.root.parentElement.id,
      legend: rows.map((row: any) => [row.querySelector('.u-label').textContent, row.querySelector('.u-value').textContent]),
      distr: plot.scales.y.distr,
      // CSS pixels from 1 to 10 and from 10 to 100: equal on a log axis.
      decades: [y(1) - y(10), y(10) - y(100)],
      // How far apart a 1.32 and a 0.99 are drawn, beside a 39x.
      smallGap: y(0.99) - y(1.32),
    };
  });
}

describe.skipIf(!haveChromium)('the report in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    const {chromium} = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-default-apps',
        '--disable-sync',
        '--no-first-run',
        '--disable-breakpad',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Open the report file; every request the page makes is recorded, and any that is not the file itself is refused. */
  async function open(file: string, width = 1200) {
    const url = pathToFileURL(file).href;
    const context = await browser.newContext({viewport: {width, height: 900}, offline: true});
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    await context.route('**/*', (route) => (route.request().url() === url ? route.continue() : route.abort()));
    await page.goto(url);
    await page.waitForSelector('html[data-charts]', {timeout: 20_000});
    return {page, url, requests, problems, close: () => context.close()};
  }

  it('draws a series per solution, dev and test apart, speedups on a log axis, values shown without hovering; loads nothing but itself', async () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    writeHistory(ledger);
    const out = path.join(dir, 'report.html');
    const result = runCli(['benchmark', 'report', 'zoo', '--out', out], {env: {ARBOR_LEDGER: ledger}});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const {page, url, requests, problems, close} = await open(out);
    try {
      expect(await page.title()).toBe('zoo: benchmark report');
      expect(await page.locator('h1').textContent()).toBe('zoo');
      expect(await page.locator('#entries tbody th').allTextContents()).toEqual(shippedEntries);
      expect(await page.locator('#entries tbody td.health .status').allTextContents()).toEqual(shippedEntries.map(() => 'ok'));
      expect(await page.getAttribute('html', 'data-charts')).toBe('3');
      expect(await page.locator('.chart canvas').count()).toBe(3);
      expect(await page.locator('#entry-0 .verdict').allTextContents()).toEqual(['better', 'better']);
      expect(await page.locator('#entry-0 td.side').allTextContents()).toEqual([
        '../fast.py 333333333333',
        'ledger run #6 (../knn_blocked.py) 111111111111',
        '../fast.py 333333333333',
        'solution.py · 99999999 999999999999',
      ]);
      expect(await page.locator('#entry-0 .panel figcaption').allTextContents()).toEqual([
        'dev: the published cases; speedup on a log axis (equal steps are equal ratios)',
        "test: held-out cases, on an axis of its own; not comparable with dev's scores; speedup on a log axis (equal steps are equal ratios)",
      ]);

      const [knnDev, knnTest, relu] = await page.evaluate(readCharts);
      // One legend row per solution, each with its newest run before anything is hovered (never "-").
      expect(knnDev).toMatchObject({entry: 0, split: 'dev', id: 'chart-0-0'});
      expect(knnDev.legend).toEqual([
        ['run', 'newest'],
        [knnSolutions[0], '0.99 [0.96, 1.02] #12'],
        [knnSolutions[1], '1.32 [1.27, 1.36] #5'],
        [knnSolutions[2], '0 failed #7'],
        [knnSolutions[3], '39.2 [37.5, 41] #8'],
        [`calibrate: ${knnSolutions[0]}`, '3 runs, 0.97 to 1.03'],
      ]);
      expect(knnTest).toMatchObject({entry: 0, split: 'test', id: 'chart-0-1'});
      expect(knnTest.legend).toEqual([
        ['run', 'newest'],
        ['../knn_blocked.py', '1.29 [1.22, 1.35] #6'],
        ['../fast.py', '38.1 [36.2, 40.1] #10'],
      ]);
      const reluIndex = shippedEntries.indexOf('relu_poly');
      expect(relu).toMatchObject({entry: reluIndex, split: 'dev', id: `chart-${reluIndex}-0`});
      expect(relu.legend).toEqual([
        ['run', 'newest'],
        ['commit 111111111111 · 55555555', '0.633 #13'],
        ['commit abcdef0123ab', '0.71 #14'],
      ]);
      // Speedups on a log axis (uPlot's distr 3): a decade is a decade, and 1.32 stands clear of 0.99 beside a 39x.
      for (const chart of [knnDev, knnTest]) {
        expect(chart.distr).toBe(3);
        expect(Math.abs(chart.decades[0] - chart.decades[1])).toBeLessThan(0.5);
      }
      expect(knnDev.smallGap).toBeGreaterThan(10);
      expect(relu.distr).toBe(1);

      const [devPixels, testPixels, reluPixels] = await page.evaluate(countChartPixels);
      // dev: the baseline's line and circles, the blocked and the 39x solutions' points, each in its colour, over the grey band.
      expect(devPixels).toMatchObject({id: 'chart-0-0'});
      expect(devPixels!.first).toBeGreaterThan(300);
      expect(devPixels!.second).toBeGreaterThan(20);
      expect(devPixels!.fourth).toBeGreaterThan(20);
      // Thin on a log axis (0.97 to 1.03), and partly under the baseline's own interval band.
      expect(devPixels!.baselineBand).toBeGreaterThan(100);
      // test: the blocked and the 39x solutions only, no baseline band (it was calibrated on dev).
      expect(testPixels).toMatchObject({id: 'chart-0-1', first: 0, baselineBand: 0});
      expect(testPixels!.second).toBeGreaterThan(20);
      expect(testPixels!.fourth).toBeGreaterThan(20);
      expect(reluPixels).toMatchObject({id: `chart-${reluIndex}-0`, baselineBand: 0});
      expect(reluPixels!.first).toBeGreaterThan(20);
      expect(reluPixels!.second).toBeGreaterThan(20);

      const screenshot = path.join(tmpdir(), 'arbor-report-screenshot.png');
      await page.screenshot({path: screenshot, fullPage: true});
      const entryShot = path.join(tmpdir(), 'arbor-report-entry-screenshot.png');
      await page.locator('#entry-0').screenshot({path: entryShot});
      console.log(`report screenshots: ${screenshot}, ${entryShot} (charts: ${JSON.stringify([devPixels, testPixels, reluPixels])})`);

      // Hovering a run shows that run's values; leaving shows the newest again.
      const over = page.locator('#chart-0-0 .u-over');
      const box = (await over.boundingBox())!;
      await page.mouse.move(box.x + 2, box.y + box.height / 2);
      const hovered = (await page.evaluate(readCharts))[0].legend;
      expect(hovered[0]).toEqual(['run', '#1']);
      expect(hovered[5]).toEqual([`calibrate: ${knnSolutions[0]}`, '0.97']);
      await page.mouse.move(0, 0);
      expect((await page.evaluate(readCharts))[0].legend).toEqual(knnDev.legend);

      expect(requests).toEqual([url]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it("fits the entries table in 1280 px with long solution names, shows the plan's metric while no run has one, and lists the entries without runs on one line", async () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    writeHistory(ledger);
    // A solution named by a long path with no space to break at, on dev and test.
    const label = '/home/someone/projects/benchmark-solutions/modmatmul_montgomery_limbs_v2.py';
    for (const split of ['dev', 'test']) {
      const outcome = recordRun(
        ledger,
        sampleRecord({
          benchmark: {path: path.join(shippedZoo, 'modmatmul'), name: 'modmatmul'},
          split,
          solutionSha256: sha(4),
          solutionLabel: label,
          score: 12.345,
          interval: [12.11, 12.62],
        }),
      );
      if (!outcome.ok) throw new Error(outcome.warning);
    }
    const out = path.join(dir, 'report.html');
    const result = runCli(['benchmark', 'report', 'zoo', '--out', out], {env: {ARBOR_LEDGER: ledger}});
    expect(result.code, result.stderr).toBe(0);

    const {page, problems, close} = await open(out, 1280);
    try {
      const layout = await page.evaluate(() => {
        const doc = (globalThis as any).document;
        const table = doc.querySelector('#entries');
        const right = (e: any) => e.getBoundingClientRect().right;
        return {
          page: doc.documentElement.scrollWidth,
          table: table.scrollWidth,
          box: table.parentElement.clientWidth,
          boxRight: right(table.parentElement),
          headers: [...table.querySelectorAll('thead th')].map((th: any) => ({
            text: th.textContent,
            right: right(th),
            clipped: th.scrollWidth > th.clientWidth,
          })),
        };
      });
      // Nothing scrolls sideways at 1280 px: the table fits its box, every header whole inside it.
      expect(layout.page).toBeLessThanOrEqual(1280);
      expect(layout.table).toBeLessThanOrEqual(layout.box);
      expect(layout.headers.map((h: {text: string}) => h.text)).toEqual([
        'entry',
        'verify',
        'metric',
        'dev latest',
        'dev best',
        'test latest',
        'test best',
        'test exposure',
      ]);
      for (const header of layout.headers) {
        expect(header.clipped, header.text).toBe(false);
        expect(header.right, header.text).toBeLessThanOrEqual(layout.boxRight + 0.5);
      }
      // Every entry's metric: its newest run's, else its plan's (never "-" for a metric plan.toml knows).
      const planMetric = (entry: string) => /^metric\s*=\s*"(\w+)"/m.exec(readFileSync(path.join(shippedZoo, entry, 'plan.toml'), 'utf8'))![1];
      expect(await page.locator('#entries tbody td:nth-child(3)').allTextContents()).toEqual(shippedEntries.map(planMetric));
      // Entries with runs get a card; the others share one line, each still the target of its table link.
      const withRuns = ['algotune_knn', 'modmatmul', 'relu_poly'];
      expect(await page.locator('section.entry h2').allTextContents()).toEqual(withRuns);
      const without = shippedEntries.filter((e) => !withRuns.includes(e));
      expect(await page.locator('#entries-without-runs .entry-name').allTextContents()).toEqual(without);
      expect(await page.locator('#entries-without-runs .empty').textContent()).toBe(
        `No runs recorded yet for ${without.length} entries: ${without.join(', ')}.`,
      );
      const link = await page.locator(`#entries a[href="#entry-${shippedEntries.indexOf(without[0]!)}"]`).count();
      expect(link).toBe(1);
      expect(await page.locator(`#entry-${shippedEntries.indexOf(without[0]!)}`).textContent()).toBe(without[0]);
      const screenshot = path.join(tmpdir(), 'arbor-report-1280-screenshot.png');
      await page.screenshot({path: screenshot});
      console.log(`report screenshot at 1280 px: ${screenshot} (${JSON.stringify(layout)})`);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('stays readable with an empty ledger: every entry with its health, "no runs recorded yet", no chart, no error', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'report.html');
    const result = runCli(['benchmark', 'report', 'zoo', '--out', out, '--ledger', path.join(dir, 'runs.db')]);
    expect(result.code).toBe(0);

    const {page, url, requests, problems, close} = await open(out);
    try {
      expect(await page.locator('#entries tbody th').allTextContents()).toEqual(shippedEntries);
      expect(await page.locator('#entries tbody td.health .status').allTextContents()).toEqual(shippedEntries.map(() => 'ok'));
      expect(await page.locator('#no-runs').isVisible()).toBe(true);
      expect(await page.locator('#no-runs').textContent()).toMatch(/^No runs recorded yet in .*runs\.db \(no ledger there yet\)\./);
      expect(await page.getAttribute('html', 'data-charts')).toBe('0');
      // One line names every entry (each keeps its anchor), instead of an empty card each.
      expect(await page.locator('section.entry').count()).toBe(0);
      expect(await page.locator('.empty').count()).toBe(1);
      expect(await page.locator('#entries-without-runs .entry-name').allTextContents()).toEqual(shippedEntries);
      const screenshot = path.join(tmpdir(), 'arbor-report-empty-screenshot.png');
      await page.screenshot({path: screenshot, fullPage: true});
      console.log(`empty-ledger report screenshot: ${screenshot}`);
      expect(requests).toEqual([url]);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });
});
