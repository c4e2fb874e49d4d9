/**
 * Secret test cases leave nothing a solution chooses but a fixed vocabulary
 * (lib/eval/redact.ts): an adversary that spells bits of its case's input into
 * the line it raises from, a class named at run time, the depth of its frames,
 * the keys of its answer and an exception's message finds none of them in
 * stdout, stderr, the --json report or the ledger. Two salts (two sets of
 * secret cases) give the same outputs once the times and paths are taken out.
 */
import {copyFileSync, cpSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {openLedger} from '../../lib/ledger/index.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const adversary = path.join(fixtures, 'eval/solutions/leak-where.py');

/** Fields that hold a time, a CPU or a path: what differs between two evals of the same solution whatever their cases. */
const varying = new Set(['seconds', 'cpuSeconds', 'wallSeconds', 'processSeconds', 'phases', 'cpu', 'pinned', 'time', 'id', 'git', 'overhead', 'environment']);

/** A value with its varying fields left out and `root` written as <root>. */
function steady(value: unknown, root: string): unknown {
  if (typeof value === 'string') return value.split(root).join('<root>');
  if (Array.isArray(value)) return value.map((each) => steady(each, root));
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !varying.has(key))
      .map(([key, each]) => [key, steady(each, root)]),
  );
}

/** stderr's lines with `root` as <root>, the CPU an eval was pinned to and any wait for a CPU's lease left out. */
function steadyLines(stderr: string, root: string): string[] {
  return stderr
    .split(root)
    .join('<root>')
    .replace(/pinned to CPU \d+/g, 'pinned to CPU N')
    .split('\n')
    .filter((line) => !/lease|waiting/i.test(line));
}

/** The accuracy fixture's test split, salted with `salt`, evaluated on the adversary: what every output says. */
function evaluateSalted(salt: string) {
  const root = tempDir();
  const dir = path.join(root, 'accuracy-abs');
  cpSync(path.join(fixtures, 'eval/accuracy-abs'), dir, {recursive: true});
  const file = path.join(root, 'leak-where.py');
  copyFileSync(adversary, file);
  const json = path.join(root, 'report.json');
  const ledger = path.join(root, 'runs.db');
  const result = runCli(['benchmark', 'eval', dir, 'test', '--solution', file, '--json-file', json], {env: {ARBOR_TEST_SALT: salt, ARBOR_LEDGER: ledger}});
  expect(result.code, result.stderr).toBe(0);
  const report = JSON.parse(readFileSync(json, 'utf8'));
  const runs = openLedger(ledger, {readonly: true}).listRuns();
  expect(runs).toHaveLength(1);
  return {root, result, report, raw: readFileSync(json, 'utf8'), cases: runs[0]!.cases};
}

describe('secret test cases leave only a fixed vocabulary', () => {
  it('an adversary spelling its input into crash lines, class names, frame depth, answer keys and messages leaks nothing', () => {
    const one = evaluateSalted('redact-secret-one');
    const two = evaluateSalted('redact-secret-two');
    for (const run of [one, two]) {
      expect(run.report.seeds.source).toBe('derived');
      const everything = `${run.result.stdout}${run.result.stderr}${run.raw}${JSON.stringify(run.cases)}`;
      // No frame, no line number, no class or key the solution named, no message.
      expect(everything).not.toMatch(/"where"|"line"|leak-where\.py:\d|solution\.py:\d|\bE\d+\b|\bk\d+\b|'x'|ValueError: \d/);
      for (const c of run.report.points[0].cases) {
        expect(Object.keys(c.metrics ?? {}).sort()).toEqual(c.metrics ? ['of', 'within'] : []);
        for (const rep of c.repetitions) expect(rep).not.toHaveProperty('where');
      }
    }
    // The cases differ, the adversary's bits with them; what arbor says of them does not.
    expect(steady(one.report, one.root)).toEqual(steady(two.report, two.root));
    expect(steady(one.cases, one.root)).toEqual(steady(two.cases, two.root));
    expect(one.result.stdout).toBe(two.result.stdout);
    expect(steadyLines(one.result.stderr, one.root)).toEqual(steadyLines(two.result.stderr, two.root));
  });
});

describe('secret test cases through a run in a child without the salt (`benchmark run`, as a queue worker runs them)', () => {
  it('the child, given only the derived seeds, shows the same fixed vocabulary: result, stderr and ledger alike under two salts', () => {
    const outputs = ['redact-run-one', 'redact-run-two'].map((salt) => {
      const root = tempDir();
      const entry = path.join(root, 'abs-a');
      cpSync(path.join(fixtures, 'run/zoo/abs-a'), entry, {recursive: true});
      copyFileSync(adversary, path.join(root, 'leak-where.py'));
      const ledger = path.join(root, 'runs.db');
      const json = path.join(root, 'run.json');
      const args = ['benchmark', 'run', entry, '--split', 'test', '--solution', `abs-a=${path.join(root, 'leak-where.py')}`, '--json-file', json];
      const result = runCli(args, {env: {ARBOR_TEST_SALT: salt, ARBOR_LEDGER: ledger}});
      expect(result.code, result.stderr).toBe(1);
      const runs = openLedger(ledger, {readonly: true}).listRuns();
      expect(runs.map((run) => run.seeds.source)).toEqual(['derived']);
      const everything = `${result.stdout}${result.stderr}${readFileSync(json, 'utf8')}${JSON.stringify(runs[0]!.cases)}`;
      expect(everything).not.toMatch(/"where"|"line"|leak-where\.py:\d|solution\.py:\d|\bE\d+\b|\bk\d+\b|'x'/);
      return {
        cases: steady(runs[0]!.cases, root),
        failure: (JSON.parse(readFileSync(json, 'utf8')) as {results: Array<{failure?: string}>}).results[0]!.failure,
      };
    });
    expect(outputs[0]).toEqual(outputs[1]);
  });
});
