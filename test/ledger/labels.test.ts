/**
 * What a run is called: a label its caller gave (`--label`), else its path and a short digest; and which runs
 * may be a best. A throwaway file evaluated once (a wrong key, an experiment) must not stand as an entry's best
 * in `runs`, `runs --json` and the report's model, whatever it scored.
 */
import {cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {repoRoot, runCli} from '../helpers/cli.js';

/** The baseline's coefficients replaced by zeros: p = 0 matches ReLU on the negative half only (a lower score than the entry's own). */
const zeros = (text: string) => text.replace('    return {"coef": coef}', '    return {"coef": np.zeros_like(coef)}');

describe('run labels', () => {
  let root: string;
  let entry: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'arbor-labels-'));
    entry = path.join(root, 'relu_poly');
    cpSync(path.join(repoRoot, 'zoo', 'relu_poly'), entry, {recursive: true});
    const own = readFileSync(path.join(entry, 'solution.py'), 'utf8');
    writeFileSync(path.join(root, 'weak.py'), zeros(own));
    // The throwaway: the entry's own code under another name, outside the entry (as ../wrongkey.py was).
    writeFileSync(path.join(root, 'wrongkey.py'), own);
  });
  afterAll(() => rmSync(root, {recursive: true, force: true}));

  const runsJson = () => {
    const listed = runCli(['benchmark', 'runs', 'relu_poly', '--json'], {cwd: root});
    expect(listed.code, listed.stderr).toBe(0);
    return JSON.parse(listed.stdout) as {
      summary: Array<{split: string; best: {id: number} | null; latest: {id: number} | null}>;
      runs: Array<Record<string, any>>;
    };
  };

  it('an unlabelled throwaway file that scores higher than the labelled baseline is listed, never the best', {timeout: 120_000}, () => {
    const labelled = runCli(['benchmark', 'eval', 'relu_poly', 'dev', '--solution', 'weak.py', '--label', 'zeros baseline', '-q'], {cwd: root});
    expect(labelled.code, labelled.stderr).toBe(0);
    const throwaway = runCli(['benchmark', 'eval', 'relu_poly', 'dev', '--solution', 'wrongkey.py', '-q'], {cwd: root});
    expect(throwaway.code, throwaway.stderr).toBe(0);
    const score = (result: {stdout: string}) => Number(/^score: (\S+)$/m.exec(result.stdout)![1]);
    expect(score(throwaway)).toBeGreaterThan(score(labelled));

    const {summary, runs} = runsJson();
    const [first, second] = [...runs].sort((a, b) => a.id - b.id);
    expect(first).toMatchObject({solutionLabel: 'zeros baseline', labelKind: 'given'});
    expect(second).toMatchObject({solutionLabel: expect.stringMatching(/^\.\.\/wrongkey\.py@[0-9a-f]{6}$/), labelKind: 'file'});
    expect(second!.solutionLabel.slice(-6)).toBe(second!.solutionSha256.slice(0, 6));
    expect(summary.find((each) => each.split === 'dev')).toMatchObject({best: {id: first!.id}, latest: {id: second!.id}});

    const text = runCli(['benchmark', 'runs', 'relu_poly'], {cwd: root});
    expect(text.stdout).toContain(`best ${Number(score(labelled).toPrecision(4))} (#${first!.id})`);
    expect(text.stdout).toMatch(/ zeros baseline +sha /);
    expect(text.stdout).toContain('an unlabelled --solution file is listed, never a best');

    // The entry's own solution, unlabelled, is named by its file and digest, and is a best.
    const plain = runCli(['benchmark', 'eval', 'relu_poly', 'dev', '-q'], {cwd: root});
    expect(plain.code, plain.stderr).toBe(0);
    const after = runsJson();
    const newest = after.runs[0]!;
    expect(newest).toMatchObject({solutionLabel: `solution.py@${newest.solutionSha256.slice(0, 6)}`, labelKind: 'entry'});
    expect(after.summary.find((each) => each.split === 'dev')!.best!.id).toBe(newest.id);
  });

  it('a bad --label is one usage line and exit 2, before anything runs', () => {
    const cases: Array<[string[], string]> = [
      [['eval', 'relu_poly', 'dev', '--label', ''], '--label ""'],
      [['eval', 'relu_poly', 'dev', '--label', 'x'.repeat(81)], `--label "${'x'.repeat(40)}…"`],
      [['eval', 'relu_poly', 'dev', '--label', 'two\nlines'], '--label "two\\nlines"'],
      [['compare', 'relu_poly', 'relu_poly/solution.py', 'relu_poly/solution.py', '--label', '\u0007bell'], '--label "\\u0007bell"'],
    ];
    for (const [args, shown] of cases) {
      const result = runCli(['benchmark', ...args], {cwd: root});
      expect(result.code, result.stderr).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `arbor: ${shown}: expected 1 to 80 printable characters naming the solution (no line breaks or control characters), e.g. --label "blocked v2"\n`,
      );
    }
  });

  it('compare records the candidate under its --label, the baseline by its file and digest', {timeout: 120_000}, () => {
    const result = runCli(['benchmark', 'compare', 'relu_poly', 'relu_poly/solution.py', 'wrongkey.py', '--label', 'the key, fixed', '-q'], {cwd: root});
    expect(result.code, result.stderr).toBe(0);
    const newest = runsJson().runs[0]!;
    expect(newest).toMatchObject({kind: 'compare', solutionLabel: 'the key, fixed', labelKind: 'given'});
    expect(newest.compare.baselineLabel).toMatch(/^solution\.py@[0-9a-f]{6}$/);
  });
});
