import {writeFileSync, mkdirSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {deriveSeeds, formatScore, loadPlan, parseSeedSpec, splitSeeds, warmupSeed, accuracyRatio, speedupRatio} from '../../lib/eval/index.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const speedEntry = path.join(fixtures, 'eval/prefix-speed');

function planDir(text: string): string {
  const dir = tempDir('arbor-plan-');
  mkdirSync(path.join(dir, 'bundle'));
  writeFileSync(path.join(dir, 'reference.py'), '');
  writeFileSync(path.join(dir, 'plan.toml'), text);
  return dir;
}

const base = `metric = "speedup"\n[dev]\nseeds = "0-3"\npoints = [ { N = 8 } ]\n[test]\nseeds = "10-13"\npoints = [ { N = 8 } ]\n`;

describe('plan.toml', () => {
  it('loads a fixture plan with defaults filled in', async () => {
    const plan = await loadPlan(speedEntry);
    expect(plan.metric).toBe('speedup');
    expect(plan.name).toBe('eval_prefix');
    expect(plan.repetitions).toBe(2);
    expect(plan.timeoutFactor).toBe(10);
    expect(plan.minTimeout).toBe(1);
    expect(plan.dev.seeds).toEqual([0, 1, 2]);
    expect(plan.test.points).toEqual([{N: 20000}, {N: 5000}]);
    expect(plan.reference).toBe(path.join(speedEntry, 'reference.py'));
  });

  it('accepts a minimal speedup plan', async () => {
    const plan = await loadPlan(planDir(base));
    expect(plan.bundle).toMatch(/bundle$/);
    expect(plan.solution).toMatch(/solution\.py$/);
    expect(plan.repetitions).toBe(3);
  });

  it.each([
    ['overlapping seeds', base.replace('"10-13"', '"3-5"'), /dev and test seeds overlap \(seed 3\)/],
    ['unknown key', `colour = "red"\n${base}`, /unknown key "colour", expected one of name, .*repetitions/],
    ['misspelt key', `repetitons = 4\n${base}`, /unknown key "repetitons", did you mean "repetitions"\?$/],
    ['misspelt split key', base.replace('[dev]\n', '[dev]\nseed = "1"\n'), /unknown key "dev\.seed", did you mean "dev\.seeds"\?$/],
    ['bad metric', base.replace('"speedup"', '"speed"'), /"metric" must be "speedup" or "accuracy"/],
    ['missing test', base.split('[test]')[0]!, /missing \[test\] table/],
    ['bad seeds', base.replace('"0-3"', '"3-0"'), /dev\.seeds "3-0" has a descending range 3-0/],
    ['non-integer point', base.replace('N = 8 }', 'N = 8.5 }'), /dev\.points\[0\]\.N" must be an integer/],
    ['accuracy without metric names', base.replace('"speedup"', '"accuracy"'), /needs "numerator" and "denominator"/],
    [
      'a minimize plan without fail_score',
      base.replace('"speedup"', '"accuracy"\ndirection = "minimize"\nnumerator = "worst"\ndenominator = "one"'),
      /direction = "minimize" needs "fail_score".*would score 0, the best/,
    ],
    ['fail_score on a speedup plan', `fail_score = 1\n${base}`, /"fail_score" belongs to metric = "accuracy"/],
    ['one repetition', `repetitions = 1\n${base}`, /"repetitions" must be an integer >= 2/],
    ['an unknown clock', `clock = "tsc"\n${base}`, /"clock" must be "cpu", "wall" or "instructions", got "tsc"/],
    ['not TOML', 'metric = ', /not valid TOML/],
    ['an unterminated string', `name = "x\n${base}`, /not valid TOML: line 1: a string is not closed before the end of its line/],
    ['an unknown split kind', `split_kind = "folders"\n${base}`, /"split_kind" must be "seed_range" or "path", got "folders"/],
    [
      'a path split outside data/',
      'metric = "speedup"\nsplit_kind = "path"\n[dev]\npath = "cases/dev"\n[test]\npath = "data/test"\n',
      /"dev\.path" = "cases\/dev" must be a folder under data\/ \(protected by arbor\.lock\)/,
    ],
    [
      'seeds in a path split',
      'metric = "speedup"\nsplit_kind = "path"\n[dev]\npath = "data/dev"\nseeds = "0-3"\n[test]\npath = "data/test"\n',
      /unknown key "dev\.seeds" in a plan with split_kind = "path"/,
    ],
  ])('rejects %s with one line naming the problem', async (_name, text, message) => {
    const error = await loadPlan(planDir(text)).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('plan.toml');
    expect((error as Error).message.split('\n')).toHaveLength(1);
  });

  it('eval names every problem of plan.toml at once, each at its line, before anything runs', () => {
    const text = base
      .replace('metric = "speedup"\n', 'metric = "speedup"\nrepetitons = 4\ntimeout = -1\n')
      .replace('points = [ { N = 8 } ]', 'points = [ { N = 8.5 } ]');
    const result = runCli(['benchmark', 'eval', planDir(text), 'dev']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(
      'plan.toml: line 2: unknown key "repetitons", did you mean "repetitions"?; line 3: "timeout" must be a number >= 0.001, got "-1"; line 6: "dev.points[0].N" must be an integer',
    );
  });

  it('reads fail_score: 0 unless set, the worst score a minimize plan names', async () => {
    const accuracy = base.replace('"speedup"', '"accuracy"\nnumerator = "within"\ndenominator = "of"');
    expect((await loadPlan(planDir(accuracy))).failScore).toBe(0);
    const minimize = await loadPlan(planDir(accuracy.replace('numerator', 'direction = "minimize"\nfail_score = 2\nnumerator')));
    expect(minimize).toMatchObject({direction: 'minimize', failScore: 2});
  });

  it('names a missing plan, as a usage error (the folder is not a benchmark with an eval)', async () => {
    const error = await loadPlan(tempDir()).catch((e: unknown) => e as Error);
    expect((error as Error).message).toMatch(/no eval plan \(plan\.toml\) in this folder/);
    expect(error).toMatchObject({name: 'UsageError', code: 'no-plan', exitCode: 2});
  });
});

describe('seeds', () => {
  it('parses ranges and lists like the bundle does', () => {
    expect(parseSeedSpec('0-2,7,9')).toEqual([0, 1, 2, 7, 9]);
    expect(() => parseSeedSpec('1,1')).toThrow(/lists seed 1 twice/);
    expect(() => parseSeedSpec('a')).toThrow(/not a seed or a range/);
  });

  it('derives salted test seeds: 48 bits of SHA-256("salt|name|k"), distinct, never a dev seed', async () => {
    const seeds = deriveSeeds('s3cret', 'eval_prefix', 5);
    expect(seeds).toHaveLength(5);
    expect(new Set(seeds).size).toBe(5);
    for (const seed of seeds) expect(seed).toBeLessThan(2 ** 48);
    expect(deriveSeeds('s3cret', 'eval_prefix', 5)).toEqual(seeds);
    expect(deriveSeeds('other', 'eval_prefix', 5)).not.toEqual(seeds);
    // Known answer: first 6 bytes of sha256("s3cret|eval_prefix|0").
    const {createHash} = await import('node:crypto');
    expect(seeds[0]).toBe(createHash('sha256').update('s3cret|eval_prefix|0').digest().readUIntBE(0, 6));
    // A candidate that collides with an excluded seed is skipped.
    expect(deriveSeeds('s3cret', 'eval_prefix', 2, [seeds[0]!])).toEqual([seeds[1], seeds[2]]);
  });

  it('uses the salt only for the test split, with the published count', async () => {
    const plan = await loadPlan(speedEntry);
    const env = {ARBOR_TEST_SALT: 'x'};
    expect(splitSeeds(plan, 'dev', env)).toEqual({seeds: [0, 1, 2], derived: false});
    const test = splitSeeds(plan, 'test', env);
    expect(test.derived).toBe(true);
    expect(test.seeds).toHaveLength(3);
    expect(splitSeeds(plan, 'test', {})).toEqual({seeds: [100, 101, 102], derived: false});
    expect(warmupSeed(plan, [100, 101, 102])).toBe(103);
  });
});

describe('scores', () => {
  it('prints finite scores that Python float() and Number() both read', () => {
    expect(formatScore(0)).toBe('0.0');
    expect(formatScore(-0)).toBe('0.0');
    expect(formatScore(1)).toBe('1.0');
    expect(formatScore(1.25)).toBe('1.25');
    expect(formatScore(1e-7)).toBe('1e-7');
    expect(formatScore(2.5e21)).toBe('2.5e+21');
    expect(formatScore(0.1 + 0.2)).toBe('0.30000000000000004');
    expect(() => formatScore(Number.NaN)).toThrow();
    expect(() => formatScore(Infinity)).toThrow();
    for (const value of [0.1, 1 / 3, 123456.789]) expect(Number(formatScore(value))).toBe(value);
  });

  it('computes case ratios defensively', () => {
    expect(speedupRatio(2, 1)).toBe(2);
    expect(speedupRatio(1, 0)).toBe(1e6);
    expect(accuracyRatio({within: 3, of: 4}, 'within', 'of')).toBe(0.75);
    expect(accuracyRatio({within: 3, of: 0}, 'within', 'of')).toBe(0);
    expect(accuracyRatio({within: Number.NaN, of: 4}, 'within', 'of')).toBe(0);
    expect(accuracyRatio(undefined, 'within', 'of')).toBe(0);
  });
});
