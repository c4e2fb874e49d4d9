/** `verify --mutants`: trivial answers scored on every dev case, and the verifier's mutants killed or named (no eval runs). */
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {changedCopy, probeLib} from './helpers.js';

const shipped = ['zoo/algotune_knn', 'zoo/polymul_negacyclic', 'zoo/relu_poly', 'zoo/toeplitz_solve'];
const loose = 'test/fixtures/probe/loose-prefix';

interface MutantJson {
  mutant: string;
  kind: 'source' | 'accept' | 'wrapper';
  changes: string;
  status: 'killed' | 'survived' | 'equivalent' | 'unobservable';
  killedBy?: string;
  killedOn?: string;
  note?: string;
}

describe('verify --mutants', {timeout: 300_000}, () => {
  it('the shipped entries kill at least 90% of at least 20 mutants each, and every trivial answer fails', () => {
    const result = runCli(['benchmark', 'verify', '--mutants', '--json', ...shipped]);
    // stderr holds only the mutant phase's progress: where it runs, then at most a line a second.
    for (const line of result.stderr.trimEnd().split('\n'))
      expect(line).toMatch(/^zoo\/\w+: mutants: (at .+, \d+ cases|\d+ of \d+ \(\d+ killed\) in \d+\.\d s)$/);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report.benchmarks.map((b: {dir: string}) => b.dir)).toEqual(shipped);
    for (const b of report.benchmarks) {
      expect(b.findings, b.dir).toEqual([]);
      const mutants = b.mutants as MutantJson[];
      const counted = mutants.filter((m) => m.status === 'killed' || m.status === 'survived');
      expect(counted.length, b.dir).toBeGreaterThanOrEqual(20);
      expect(b.killRate, b.dir).toBeGreaterThanOrEqual(0.9);
      expect(b.killRate).toBeCloseTo(counted.filter((m) => m.status === 'killed').length / counted.length, 12);
      // Every kill names the answer that made it.
      for (const m of mutants.filter((x) => x.status === 'killed'))
        expect(
          b.answers.map((a: {answer: string}) => a.answer),
          `${b.dir} ${m.mutant}`,
        ).toContain(m.killedBy);
      expect(b.answers[0]).toMatchObject({answer: 'expected', kind: 'control'});
    }
    const [knn, polymul, relu, toeplitz] = report.benchmarks;
    // Without a verifier (the exact rule) only the wrapper mutants exist; with one, its source is mutated too.
    expect(new Set(polymul.mutants.map((m: MutantJson) => m.kind))).toEqual(new Set(['wrapper']));
    expect(knn.mutants.some((m: MutantJson) => m.kind === 'source' && m.mutant.startsWith('passed-true@'))).toBe(true);
    expect(knn.mutants.find((m: MutantJson) => m.mutant === 'accept-max_wrong_rows')).toMatchObject({
      kind: 'accept',
      status: 'killed',
      changes: '[accept] max_wrong_rows = 0 -> 1',
    });
    // The host fails NaN whatever the verifier says: said so, never counted as a kill.
    for (const b of [relu, toeplitz]) {
      expect(
        b.mutants.find((m: MutantJson) => m.mutant === 'nan-accepted'),
        b.dir,
      ).toMatchObject({status: 'unobservable', note: expect.stringContaining('fails every answer holding NaN')});
    }
    expect(knn.mutants.some((m: MutantJson) => m.mutant === 'nan-accepted')).toBe(false);
    // A speedup entry's answers all fail every case but the oracle's; an accuracy entry's are scored, below all zeros' bar.
    for (const b of [knn, polymul, toeplitz]) {
      for (const a of b.answers) {
        if (a.kind === 'wrong') expect(a.passed, `${b.dir} ${a.answer}`).toBe(0);
        if (a.kind === 'control') expect(a.passed).toBe(a.cases);
      }
    }
    expect(relu.probeFloor).toMatchObject({from: 'zeros'});
    const held = relu.answers.filter((x: {limit?: number}) => x.limit !== undefined);
    expect(held.map((a: {answer: string}) => a.answer)).toEqual(['ones', 'constant', 'nan', 'infinity', 'echo', 'random']);
    for (const a of held) expect(a.score, a.answer).toBeLessThanOrEqual(relu.probeFloor.value);
  });

  it('a fixture with a loose verifier fails, naming each surviving mutant and each wrong answer it passes', () => {
    const result = runCli(['benchmark', 'verify', '--mutants', loose]);
    expect(result.code).toBe(1);
    const lines = result.stdout.trimEnd().split('\n');
    const survivors = lines.filter((l) => l.startsWith(`${loose}: mutant survived: `)).map((l) => l.slice(`${loose}: mutant survived: `.length));
    expect(survivors).toEqual([
      'even-elements-only (wrapper): checks every other element',
      'last-element-ignored (wrapper): skips the last element, a loop bound one short',
      'sign-ignored (wrapper): compares absolute values, ignoring the sign',
      'off-by-one-accepted (wrapper): accepts each element within 1 of the expected one',
      'tolerance-1e-3 (wrapper): accepts each element within 1e-3 relative of the expected one',
      'tolerance-1e-6 (wrapper): accepts each element within 1e-6 relative of the expected one',
      'f32-accepted (wrapper): compares in f32, so the expected answer rounded to f32 passes',
    ]);
    expect(lines).toContain(
      `${loose}: mutant not observable: nan-accepted (wrapper): skips elements that are NaN: the bundle host fails every answer holding NaN whatever the verifier says, so no verifier can accept NaN`,
    );
    expect(lines.find((l) => l.startsWith(`${loose}: mutants: `))).toMatch(
      /^\S+: mutants: 23 of 30 killed \(76\.6%, at least 90% needed\), 1 of them by their metrics alone \(73\.3% on pass and score\); 1 not observable in \d+\.\d s$/,
    );
    const findings = lines.filter((l) => l.includes(': error: '));
    expect(findings.map((l) => /\((probe-[a-z]+)\)$/.exec(l)?.[1])).toEqual(['probe-answer', 'probe-answer', 'probe-answer', 'probe-answer', 'probe-mutants']);
    expect(findings[0]).toBe(
      `${loose}: error: Trivial answer \`alternate\` (the expected answer at even elements and zeros at odd ones) passed 2 of 2 dev cases: the verifier accepts a wrong answer; make the verifier check the answer (probe-answer)`,
    );
    expect(findings.map((l) => /Trivial answer `([a-z-]+)`/.exec(l)?.[1]).slice(0, 4)).toEqual(['alternate', 'wrong-last', 'duplicate', 'negated']);
    expect(findings[4]).toContain(
      'The trivial answers kill 23 of 30 mutants of the verifier (76.6%), expected at least 90%: `even-elements-only` (checks every other element; the verifier accepts a wrong answer, alternate: case 0, element 1 of s = 0 (expected -78)); ',
    );
    // Each survivor is shown with a concrete answer: a wrong one the verifier accepts, or one only the mutant accepts.
    const after = (name: string) => lines[lines.findIndex((l) => l.startsWith(`${loose}: mutant survived: ${name} `)) + 1];
    expect(after('sign-ignored')).toBe(`${loose}:   the verifier accepts a wrong answer, negated: case 0, element 0 of s = 180 (expected -180)`);
    expect(after('off-by-one-accepted')).toBe(
      `${loose}:   answer edge: +1 at element 0 of s: case 0, element 0 of s = -179 (expected -180): the mutant accepts it, the verifier rejects it`,
    );
    expect(after('tolerance-1e-3')).toMatch(
      /^\S+:   the verifier accepts a wrong answer, edge: x\(1\+2\^-10\) at element 0 of s: case 0, element 0 of s = -180\.17\d+ \(expected -180\)$/,
    );
    // The mutant phase says where it runs and how far it is, on stderr.
    expect(result.stderr.split('\n')[0]).toBe(`${loose}: mutants: at N = 1000, 2 cases`);
    expect(lines.at(-1)).toBe(`${loose}: 5 errors`);
    // The near answers pass a tolerance verifier without being findings; the oracle's passes everything.
    expect(lines[0]).toMatch(
      new RegExp(`^${loose}: trivial answers on 2 dev cases \\(cases passed\\): expected 2/2, zeros 0/2, .*f32 2/2, f16 2/2, noise-1e-3 2/2, noise-1e-6 2/2, `),
    );
  });

  it('--json holds the answers, each mutant with what it changed, and the kill rate', () => {
    const result = runCli(['benchmark', 'verify', '--mutants', '--json', loose]);
    expect(result.code).toBe(1);
    const [b] = JSON.parse(result.stdout).benchmarks;
    expect(b.killRate).toBeCloseTo(23 / 30, 12);
    expect(b.answerCases).toBe(2);
    expect(b.answers.find((a: {answer: string}) => a.answer === 'negated')).toEqual({
      answer: 'negated',
      kind: 'wrong',
      tries: 'the expected answer with every sign flipped, for a signed result',
      cases: 2,
      passed: 2,
      ok: false,
    });
    const mutants = b.mutants as MutantJson[];
    expect(mutants.find((m) => m.mutant === 'passed-true@9')).toEqual({
      mutant: 'passed-true@9',
      kind: 'source',
      changes: 'line 9: `passed: wrong === 0` -> true',
      line: 9,
      before: 'return {passed: wrong === 0, metrics: {wrong, of: expected.s.length}};',
      after: 'return {passed: true, metrics: {wrong, of: expected.s.length}};',
      status: 'killed',
      killedBy: 'zeros',
      killedOn: 'passed',
    });
    expect(mutants.find((m) => m.mutant === 'sign-ignored')).toMatchObject({status: 'survived'});
    expect(typeof b.checkerSeconds).toBe('number');
  });
});

describe('verify --mutants under direction = "minimize"', {timeout: 120_000}, () => {
  it('scores an answer the verifier cannot score at fail_score, as the eval does, not 0.0 (the best)', () => {
    // The minimize fixture's verifier, made to throw on the all-ones answer.
    const source = readFileSync(path.join(repoRoot, 'test/fixtures/eval/accuracy-minimize/bundle/verify.mjs'), 'utf8');
    const copy = changedCopy(path.join(repoRoot, 'test/fixtures/eval/accuracy-minimize'), {
      'bundle/verify.mjs': source.replace('let worst = 0;', "if (actual.y.every((v) => v === 1)) throw new Error('all ones');\n  let worst = 0;"),
    });
    const result = runCli(['benchmark', 'verify', '--mutants', '--json', copy]);
    const [b] = JSON.parse(result.stdout).benchmarks;
    expect(b.answers.find((a: {answer: string}) => a.answer === 'ones')).toMatchObject({score: 1, ok: true});
    expect(b.findings.map((f: {message: string}) => f.message).join('\n')).not.toContain('Trivial answer `ones`');
  });
});

describe('probe_floor', {timeout: 120_000}, () => {
  // relu_poly at a small dev point: all zeros scores about 0.5 there (relu is 0 on half the range).
  const small = (floor: string) =>
    changedCopy(path.join(repoRoot, 'zoo/relu_poly'), {
      'plan.toml': `bundle = "bundle"\nsolution = "solution.py"\nmetric = "accuracy"\nnumerator = "within"\ndenominator = "of"\n${floor}\n[dev]\nseeds = "0-1"\npoints = [ { D = 15, M = 256 } ]\n\n[test]\nseeds = "1000-1001"\npoints = [ { D = 15, M = 256 } ]\n`,
    });

  it('is shown, and a trivial answer above it is a finding (all zeros too)', () => {
    const copy = small('probe_floor = 0.3');
    const result = runCli(['benchmark', 'verify', '--mutants', copy]);
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toMatch(/: trivial answers on 2 dev cases \(score\); probe floor 0\.3 \(plan\.toml's probe_floor\): expected 0\.\d+, zeros 0\.\d+, /);
    const findings = lines.filter((l) => l.endsWith('(probe-answer)'));
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatch(
      /error: Trivial answer `zeros` \(every element 0\) scored 0\.\d+ on dev, expected no more than the plan's probe_floor 0\.3: a trivial answer earns partial credit; /,
    );
  });

  it('an answer at or under it is not a finding', () => {
    const copy = small('probe_floor = 0.6');
    const result = runCli(['benchmark', 'verify', '--mutants', '--json', copy]);
    const [b] = JSON.parse(result.stdout).benchmarks;
    expect(b.probeFloor).toEqual({value: 0.6, from: 'probe_floor'});
    expect(b.findings.filter((f: {ruleId: string}) => f.ruleId === 'probe-answer')).toEqual([]);
    const zeros = b.answers.find((a: {answer: string}) => a.answer === 'zeros');
    expect(zeros).toMatchObject({limit: 0.6, ok: true});
    expect(zeros.score).toBeGreaterThan(0.3);
  });

  it('holds the eval probes too: all zeros past it is a probe-score finding', async () => {
    const copy = small('probe_floor = 0.3');
    const report = await probeLib.probeBenchmark(copy, {only: ['zeros']});
    expect(report.probes).toEqual([expect.objectContaining({probe: 'zeros', limit: 0.3, ok: false})]);
    expect(report.findings).toEqual([
      expect.objectContaining({
        ruleId: 'probe-score',
        message: expect.stringMatching(/^Probe `zeros` \(.*\) scored 0\.\d+ on dev, expected no more than the plan's probe_floor \(0\.3\): /),
      }),
    ]);
  });

  it('belongs to an accuracy plan, and a typo of it gets a did-you-mean', () => {
    const speed = planCopy('zoo/algotune_knn', 'probe_floor = 0.5');
    expect(runCli(['benchmark', 'verify', '--mutants', speed]).stdout).toContain(
      '"probe_floor" belongs to metric = "accuracy": a speedup probe must score 0.0 (probe-harness)',
    );
    const typo = planCopy('zoo/relu_poly', 'probe_flor = 0.5');
    expect(runCli(['benchmark', 'verify', '--mutants', typo]).stdout).toContain('unknown key "probe_flor", did you mean "probe_floor"? (probe-harness)');
  });
});

/** A copy of an entry with `line` put first in its plan (not locked again: the plan is broken on purpose). */
function planCopy(entry: string, line: string): string {
  const dest = path.join(tempDir('arbor-floor-test-'), path.basename(entry));
  cpSync(path.join(repoRoot, entry), dest, {recursive: true});
  writeFileSync(path.join(dest, 'plan.toml'), `${line}\n${readFileSync(path.join(repoRoot, entry, 'plan.toml'), 'utf8')}`);
  return dest;
}

describe('verify --mutants: equivalent mutants and progress', {timeout: 120_000}, () => {
  // A strict verifier with a redundant guard: the comparison after it already rejects NaN and ±Infinity.
  const guarded = [
    '// Strict, with a redundant guard (a fixture for `verify --mutants`): the comparison rejects NaN and infinities anyway.',
    'export default function verify(point, args, expected, actual) {',
    '  let wrong = 0;',
    '  for (let i = 0; i < expected.s.length; i++) {',
    '    const a = actual.s[i];',
    '    if (!Number.isFinite(a)) {',
    '      wrong++;',
    '      continue;',
    '    }',
    '    if (!(Math.abs(a - expected.s[i]) <= 1e-7 * Math.abs(expected.s[i]))) wrong++;',
    '  }',
    '  return {passed: wrong === 0, metrics: {wrong, of: expected.s.length}};',
    '}',
    '',
  ].join('\n');

  it('a redundant Number.isFinite guard is an equivalent mutant, shown and not counted; the verifier passes', () => {
    const copy = changedCopy(path.join(repoRoot, loose), {'bundle/verify.mjs': guarded});
    const result = runCli(['benchmark', 'verify', '--mutants', copy]);
    const dir = path.relative(repoRoot, copy) === copy ? copy : copy;
    const lines = result.stdout.trimEnd().split('\n');
    const at = lines.findIndex((l) => l.includes(': mutant equivalent: condition-dropped@6 (source): '));
    expect(at, result.stdout).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe(`${dir}:   line 6: \`if (!Number.isFinite(a)) {\` -> \`if (false) {\``);
    expect(lines[at + 2]).toMatch(/:   not counted: no trivial or edge answer tells it apart from the verifier \(NaN, ±Infinity, /);
    expect(lines.find((l) => l.includes(': mutants: '))).toMatch(
      /: mutants: \d+ of 31 killed \(9\d\.\d%, at least 90% needed\).*; 1 equivalent; 1 not observable in \d+\.\d s$/,
    );
    expect(result.code, result.stdout).toBe(0);
    const json = JSON.parse(runCli(['benchmark', 'verify', '--mutants', '--json', copy]).stdout).benchmarks[0];
    expect(json.mutants.find((m: MutantJson) => m.mutant === 'condition-dropped@6')).toMatchObject({
      kind: 'source',
      status: 'equivalent',
      line: 6,
      before: 'if (!Number.isFinite(a)) {',
      after: 'if (false) {',
    });
    expect(json.killRate).toBeGreaterThanOrEqual(0.9);
    expect(json.mutantPoint).toEqual({point: {N: 1000}, index: 0, of: 1});
  });

  it('a guard that is not redundant is no equivalent mutant: its survivor is shown with the line and the answer that tells it apart', () => {
    // Without the guard, -Infinity would pass (the comparison lets it through), and no trivial answer is -Infinity.
    const weak = guarded
      .replace('if (!Number.isFinite(a)) {', 'if (a === -Infinity) {')
      .replace(
        'if (!(Math.abs(a - expected.s[i]) <= 1e-7 * Math.abs(expected.s[i]))) wrong++;',
        'if (Math.abs(a - expected.s[i]) > 1e-7 * Math.abs(expected.s[i]) && a !== -Infinity) wrong++;',
      );
    const copy = changedCopy(path.join(repoRoot, loose), {'bundle/verify.mjs': weak});
    const result = runCli(['benchmark', 'verify', '--mutants', '--json', copy]);
    const [b] = JSON.parse(result.stdout).benchmarks;
    const m = (b.mutants as Array<MutantJson & {answer?: Record<string, unknown>; before?: string; after?: string}>).find(
      (x) => x.mutant === 'condition-dropped@6',
    )!;
    expect(m.status).toBe('survived');
    expect(m.after).toBe('if (false) {');
    expect(m.answer).toMatchObject({case: 0, result: 's', value: '-Infinity', verifier: 'rejects', mutant: 'accepts', differs: 'passed'});
    const text = runCli(['benchmark', 'verify', '--mutants', copy]).stdout;
    expect(text).toMatch(
      /:   answer edge: -Infinity at element 0 of s: case 0, element 0 of s = -Infinity \(expected -180\): the mutant accepts it, the verifier rejects it\n/,
    );
  });

  it('a verifier that returns `metrics: null` is read as the eval reads it (no metrics): its mutants are judged on what it passes, not all failed', () => {
    const copy = changedCopy(path.join(repoRoot, loose), {'bundle/verify.mjs': guarded.replace('metrics: {wrong, of: expected.s.length}', 'metrics: null')});
    const json = JSON.parse(runCli(['benchmark', 'verify', '--mutants', '--json', copy]).stdout).benchmarks[0];
    expect(json.answers[0]).toMatchObject({answer: 'expected', passed: json.answers[0].cases});
    const mutants = json.mutants as MutantJson[];
    expect(mutants.find((m) => m.mutant === 'shapes-only')).toMatchObject({status: 'killed', killedBy: 'zeros', killedOn: 'passed'});
    expect(mutants.find((m) => m.mutant.startsWith('passed-true@'))).toMatchObject({status: 'killed', killedOn: 'passed'});
    expect(json.killRate).toBeGreaterThanOrEqual(0.9);
  });

  it('progress lines go to stderr while the mutants run, at most one a second', () => {
    const result = runCli(['benchmark', 'verify', '--mutants', loose]);
    const progress = result.stderr.trimEnd().split('\n');
    expect(progress[0]).toBe(`${loose}: mutants: at N = 1000, 2 cases`);
    for (const line of progress.slice(1)) expect(line).toMatch(new RegExp(`^${loose}: mutants: \\d+ of 31 \\(\\d+ killed\\) in \\d+\\.\\d s$`));
    const times = progress.slice(1).map((l) => Number(/in (\d+\.\d) s$/.exec(l)![1]));
    for (let k = 1; k < times.length; k++) expect(times[k]! - times[k - 1]!).toBeGreaterThanOrEqual(0.9);
  });
});
