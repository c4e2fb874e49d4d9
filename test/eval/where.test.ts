// A crash says where: the solution's own frames (file:line and the line's text, the innermost 3),
// on the score line, in --json and per repetition; never the runner's frames, and on secret test
// cases neither the exception's message nor any frame (lib/eval/redact.ts, lib/sandbox/crash.ts, failure.ts, runner.py).
import {copyFileSync, cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {sourceFrames, whereText} from '../../lib/eval/failure.js';
import {framesOf} from '../../lib/sandbox/crash.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const solutions = path.join(fixtures, 'eval/solutions');

interface Frame {
  file: string;
  line: number;
  text?: string;
}

/** The accuracy fixture copied (its ledger beside it), a solution from the fixtures under its own name beside it, evaluated on `split`. */
function evaluateCopy(solution: string, split: string, env: Record<string, string> = {}) {
  const root = tempDir();
  const dir = path.join(root, 'accuracy-abs');
  cpSync(path.join(fixtures, 'eval/accuracy-abs'), dir, {recursive: true});
  const file = path.join(root, solution);
  copyFileSync(path.join(solutions, solution), file);
  const json = path.join(root, 'report.json');
  const result = runCli(['benchmark', 'eval', dir, split, '--solution', file, '--json-file', json], {env: {ARBOR_LEDGER: path.join(root, 'runs.db'), ...env}});
  expect(result.code, result.stderr).toBe(0);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  return {result, report, raw: readFileSync(json, 'utf8'), lines: readFileSync(path.join(solutions, solution), 'utf8').split('\n')};
}

/** The 1-based line of `text` in `lines`. */
const lineOf = (lines: string[], text: string) => lines.findIndex((line) => line.includes(text)) + 1;

describe('a crash says where in the solution it was raised', () => {
  it('names the innermost frame with its text on the score line, and the frames per case in --json (no runner frame)', () => {
    const {result, report, raw, lines} = evaluateCopy('crash-deep.py', 'dev');
    const inner = lineOf(lines, 'return values[k]');
    const middle = lineOf(lines, 'return pick(values, k)');
    const outer = lineOf(lines, 'last_plus(x)');
    expect(result.stderr).toMatch(
      new RegExp(
        `\\nscore is 0\\.0: case 0: crashed \\(IndexError: index \\d+ is out of bounds for axis 0 with size 1000\\) at crash-deep\\.py:${inner}: \`return values\\[k\\]\` \\(called from crash-deep\\.py:${middle}, crash-deep\\.py:${outer}\\)\\n`,
      ),
    );
    expect(report.failure).toMatch(/^case 0: crashed \(IndexError: .*\) at crash-deep\.py:\d+: `return values\[k\]` \(called from .*\)$/);
    const cases = report.points[0].cases;
    for (const c of cases) {
      expect(c.status).toBe('crashed');
      // Outermost first, innermost last, files relative to the solution's folder as evaluated (the plan's solution file).
      expect(c.where).toEqual<Frame[]>([
        {file: 'solution.py', line: outer, text: lines[outer - 1]!.trim()},
        {file: 'solution.py', line: middle, text: 'return pick(values, k)'},
        {file: 'solution.py', line: inner, text: 'return values[k]'},
      ]);
      expect(c.repetitions[0].where).toEqual(c.where);
    }
    // The harness's and the sandbox's paths never show.
    expect(raw).not.toMatch(/runner\.py|\/solution\/|importlib/);
  });

  it('says where a SyntaxError is, with its line, when the solution cannot be imported', () => {
    const {result, report, lines} = evaluateCopy('syntax-error.py', 'dev');
    const line = lineOf(lines, 'np.cumsum(x, dtype=np.float64}');
    expect(line).toBeGreaterThan(0);
    expect(result.stderr).toContain(`: crashed (the solution failed to start (SyntaxError: `);
    expect(result.stderr).toContain(`at syntax-error.py:${line}: \`return {"s": np.cumsum(x, dtype=np.float64}\`\n`);
    const [first, ...rest] = report.points[0].cases;
    expect(first).toMatchObject({status: 'crashed', where: [{file: 'solution.py', line, text: 'return {"s": np.cumsum(x, dtype=np.float64}'}]});
    for (const c of rest) expect(c).toMatchObject({status: 'not-run'});
  });

  it('keeps only the exception type of a crash on salted test cases: no message, no frame, no line, no line text', () => {
    const {result, report, raw} = evaluateCopy('crash-deep.py', 'test', {ARBOR_TEST_SALT: 'where-secret'});
    expect(report.seeds.source).toBe('derived');
    // A solution picks the lines it raises from (and their depth): on secret cases they would spell the case.
    expect(result.stderr).toContain('\nscore is 0.0: case 0: crashed (IndexError: message withheld (secret test cases))\n');
    for (const c of report.points[0].cases) {
      expect(c).toMatchObject({status: 'crashed', note: 'IndexError: message withheld (secret test cases)'});
      expect(c).not.toHaveProperty('where');
      for (const rep of c.repetitions) expect(rep).not.toHaveProperty('where');
    }
    // The index numpy names is made from a value of the case: it is nowhere, nor is any seed or frame.
    expect(`${result.stderr}${raw}`).not.toMatch(/out of bounds|index \d+|crash-deep\.py:\d|solution\.py|return values/);
    expect(report.points[0].cases.some((c: object) => 'seed' in c)).toBe(false);
  });
});

describe("the runner's frames are taken on no trust", () => {
  it('keeps the right shape only, the innermost 3', () => {
    const forged = [
      {file: 'a.py', line: 1},
      {file: 'b.py', line: 0},
      {file: 'c.py', line: 2.5},
      {file: 7, line: 3},
      null,
      {file: 'x'.repeat(201), line: 1},
      {file: 'd.py', line: 4},
      {file: 'e.py', line: 5},
    ];
    expect(framesOf(forged)).toEqual([
      {file: 'd.py', line: 4},
      {file: 'e.py', line: 5},
    ]);
    expect(framesOf([{file: 'a.py', line: 1, text: 'forged'}])).toEqual([{file: 'a.py', line: 1}]);
    expect(framesOf('solution.py:1')).toEqual([]);
  });

  it("keeps a frame only where it names a line of a file in the solution's folder, and reads the text there", async () => {
    const root = tempDir();
    const folder = path.join(root, 'solution');
    mkdirSync(path.join(folder, 'lib'), {recursive: true});
    writeFileSync(path.join(folder, 'solution.py'), 'import numpy as np\r\n\n    x = a[i]  \x1b[31m\u202e\nlast = 1');
    writeFileSync(path.join(folder, 'lib/helper.py'), `y = ${'1 + '.repeat(60)}1\n`);
    writeFileSync(path.join(root, 'outside.py'), 'secret = 42\n');
    symlinkSync(path.join(root, 'outside.py'), path.join(folder, 'link.py'));
    const frames = await sourceFrames(folder, [
      {file: '../outside.py', line: 1},
      {file: '/etc/passwd', line: 1},
      {file: 'link.py', line: 1},
      {file: 'missing.py', line: 1},
      {file: 'solution.py', line: 5},
      {file: './solution.py', line: 1},
      {file: 'solution.py', line: 2},
      {file: 'lib/helper.py', line: 1},
      {file: 'solution.py', line: 3},
    ]);
    expect(frames).toEqual([
      {file: 'solution.py', line: 2},
      {file: 'lib/helper.py', line: 1, text: `y = ${'1 + '.repeat(60)}1`.slice(0, 119) + '…'},
      {file: 'solution.py', line: 3, text: 'x = a[i]   [31m'},
    ]);
  });

  it('says where in one line: the innermost frame and its text, then its callers', () => {
    const where = [
      {file: 'solution.py', line: 20, text: 'y = f(x)'},
      {file: 'lib/helper.py', line: 3},
      {file: 'solution.py', line: 9, text: 'return a[k]'},
    ];
    expect(whereText(where, 'solution.py', 'try3.py')).toBe(' at try3.py:9: `return a[k]` (called from lib/helper.py:3, try3.py:20)');
    expect(whereText(where.slice(1, 2))).toBe(' at lib/helper.py:3');
    expect(whereText(undefined)).toBe('');
  });
});
