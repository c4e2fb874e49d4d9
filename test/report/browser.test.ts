/**
 * The report in a real browser: Debian's Chromium, driven by playwright-core
 * (never a browser Playwright downloads). Skipped only where /usr/bin/chromium
 * is missing; CI installs it (.ci/run).
 */
import {existsSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import type {Browser} from 'playwright-core';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';
import {shippedEntries, writeHistory} from './helpers.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) console.warn(`skipping the report's browser tests: ${chromiumPath} is missing (apt-get install chromium)`);

/** Pixels of each chart's canvas by what drew them: a split's line colour, the baseline band's fill. */
interface ChartPixels {
  id: string;
  dev: number;
  test: number;
  baselineBand: number;
  painted: number;
}

/** Count a chart's pixels by colour, in the page (the canvas holds what uPlot drew, before any page compositing). */
function countChartPixels(): ChartPixels[] {
  const near = (d: Uint8ClampedArray, k: number, rgb: number[], tolerance: number) =>
    Math.abs(d[k]! - rgb[0]!) <= tolerance && Math.abs(d[k + 1]! - rgb[1]!) <= tolerance && Math.abs(d[k + 2]! - rgb[2]!) <= tolerance;
  const doc = (globalThis as any).document;
  return [...doc.querySelectorAll('.chart')].map((chart: {id: string; querySelector(s: string): unknown}) => {
      const canvas = chart.querySelector('canvas') as any;
    const counts = {id: chart.id, dev: 0, test: 0, baselineBand: 0, painted: 0};
    if (!canvas) return counts;
    const d: Uint8ClampedArray = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let k = 0; k < d.length; k += 4) {
      const alpha = d[k + 3]!;
      if (alpha === 0) continue;
      counts.painted++;
      if (alpha > 200 && near(d, k, [31, 111, 180], 8)) counts.dev++;
      else if (alpha > 200 && near(d, k, [194, 65, 12], 8)) counts.test++;
      else if (alpha >= 40 && alpha <= 75 && near(d, k, [100, 116, 139], 8)) counts.baselineBand++;
    }
    return counts;
  });
}

describe.skipIf(!haveChromium)('the report in Chromium', () => {
  let browser: Browser;

  beforeAll(async () => {
    const {chromium} = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-default-apps', '--disable-sync', '--no-first-run', '--disable-breakpad'],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  /** Open the report file; every request the page makes is recorded, and any that is not the file itself is refused. */
  async function open(file: string) {
    const url = pathToFileURL(file).href;
    const context = await browser.newContext({viewport: {width: 1200, height: 900}, offline: true});
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

  it('lists every entry, draws the score charts with the baseline band, and loads nothing but itself', async () => {
    const dir = tempDir();
    const ledger = path.join(dir, 'runs.db');
    writeHistory(ledger);
    const out = path.join(dir, 'report.html');
    const result = runCli(['benchmark', 'report', 'zoo', '--out', out], {env: {ARBOR_LEDGER: ledger}});
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const {page, url, requests, problems, close} = await open(out);
    try {
      expect(await page.locator('#entries tbody th').allTextContents()).toEqual(shippedEntries);
      expect(await page.locator('#entries tbody td.health .status').allTextContents()).toEqual(['ok', 'ok', 'ok', 'ok']);
      expect(await page.getAttribute('html', 'data-charts')).toBe('2');
      expect(await page.locator('.chart canvas').count()).toBe(2);
      expect(await page.locator('#entry-0 .verdict').allTextContents()).toEqual(['same', 'better']);

      const [knn, relu] = await page.evaluate(countChartPixels);
      // algotune_knn: dev and test lines, the baseline's calibrate band; relu_poly: a dev line only.
      expect(knn).toMatchObject({id: 'chart-0'});
      expect(knn!.dev).toBeGreaterThan(300);
      expect(knn!.test).toBeGreaterThan(100);
      expect(knn!.baselineBand).toBeGreaterThan(300);
      expect(relu).toMatchObject({id: 'chart-2', test: 0, baselineBand: 0});
      expect(relu!.dev).toBeGreaterThan(300);

      const screenshot = path.join(tmpdir(), 'arbor-report-screenshot.png');
      await page.screenshot({path: screenshot, fullPage: true});
      console.log(`report screenshot: ${screenshot} (charts: ${JSON.stringify([knn, relu])})`);

      expect(requests).toEqual([url]);
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
      expect(await page.locator('#entries tbody td.health .status').allTextContents()).toEqual(['ok', 'ok', 'ok', 'ok']);
      expect(await page.locator('#no-runs').isVisible()).toBe(true);
      expect(await page.locator('#no-runs').textContent()).toMatch(/^No runs recorded yet in .*runs\.db \(no ledger there yet\)\./);
      expect(await page.getAttribute('html', 'data-charts')).toBe('0');
      expect(await page.locator('.empty').count()).toBe(4);
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
