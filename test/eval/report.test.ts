import {readFileSync, existsSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {progressPrinter, writeReport} from '../../lib/eval/report.js';
import type {EvalReport} from '../../lib/eval/index.js';
import {tempDir} from '../helpers/cli.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return {stream: {isTTY, columns: 40, write: (text: string) => chunks.push(text)}, text: () => chunks.join('')};
}

describe('progress display', () => {
  it('prints only finished steps, one plain line each, when stderr is not a terminal', () => {
    const out = sink(false);
    const printer = progressPrinter(out.stream);
    printer.progress('status', 'making cases');
    printer.progress('line', 'point 1/1: speedup 1.02');
    printer.done();
    expect(out.text()).toBe('point 1/1: speedup 1.02\n');
  });

  it('overwrites one status line on a terminal and clears it before lines and at the end', () => {
    const previous = process.env.CI;
    delete process.env.CI;
    try {
      const out = sink(true);
      const printer = progressPrinter(out.stream);
      printer.progress('status', 'making cases');
      printer.progress('status', 'a status line much longer than the forty columns of this terminal');
      printer.progress('line', 'done');
      printer.done();
      expect(out.text()).toBe('making cases\r\x1b[Ka status line much longer than the for…\r\x1b[Kdone\n');
    } finally {
      if (previous !== undefined) process.env.CI = previous;
    }
  });

  it('says nothing when quiet', () => {
    const out = sink(true);
    const printer = progressPrinter(out.stream, true);
    printer.progress('line', 'x');
    printer.done();
    expect(out.text()).toBe('');
  });
});

describe('--json report', () => {
  it('is written atomically, and an unwritable path is a harness failure naming it', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'report.json');
    await writeReport(file, {score: 1.5} as EvalReport);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({score: 1.5});
    const error = await writeReport(path.join(dir, 'missing/report.json'), {score: 1} as EvalReport).then(
      () => new Error('written'),
      (e: unknown) => e as Error,
    );
    expect(error.message).toMatch(/^--json-file .*missing\/report\.json: cannot write the report/);
    expect((error as Error & {exitCode: number}).exitCode).toBe(1);
    expect(existsSync(path.join(dir, 'missing'))).toBe(false);
  });
});
