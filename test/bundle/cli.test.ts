import {readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli} from '../helpers/cli.js';
import {bundleCopy, rowsum, sortExact} from './helpers.js';

describe('arbor bundle --help', () => {
  it.each([
    [[], 'arbor bundle <bundle-dir> <command>'],
    [['make'], `arbor bundle <bundle-dir> make <dir> --point '<json>' --seeds <spec>`],
    [['verify'], 'arbor bundle <bundle-dir> verify <dir>'],
    [['info'], 'arbor bundle <bundle-dir> info'],
    [['fingerprint'], 'arbor bundle <bundle-dir> fingerprint [--check | --write]'],
  ])('bundle <dir> %j --help', (sub, usage) => {
    const result = runCli(['bundle', sortExact, ...sub, '--help']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')[0]).toBe(usage);
  });

  it('make --help shows --point and --seeds, info --help does not', () => {
    expect(runCli(['bundle', sortExact, 'make', '--help']).stdout).toMatch(/--point[\s\S]*--seeds/);
    expect(runCli(['bundle', sortExact, 'info', '--help']).stdout).not.toMatch(/--point/);
  });
});

describe('arbor bundle usage errors (exit 2)', () => {
  it.each([
    [['bundle'], /Missing argument <bundle-dir> for `arbor bundle`/],
    [['bundle', sortExact], /Missing bundle command: expected make, verify, info or fingerprint/],
    [['bundle', sortExact, 'mak'], /unknown bundle command `mak`, expected make, verify, info or fingerprint \(did you mean make\?\)/],
    [['bundle', sortExact, 'info', '/tmp/x'], /info takes no work directory/],
    [['bundle', sortExact, 'verify', '/tmp/x', '--point', '{}'], /--point applies to make only/],
    [['bundle', sortExact, 'make', '/tmp/x', '--point', '{"N":3}', '--seeds', '0', '--seeds', '1'], /--seeds is given more than once; pass it once/],
    [['bundle', sortExact, 'info', '--bogus'], /Unknown option `--bogus` for `arbor bundle`/],
  ])('%j', (args, message) => {
    const result = runCli(args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });
});

describe('arbor bundle info', () => {
  it('prints the signature, field by field', () => {
    const result = runCli(['bundle', rowsum, 'info']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const info = JSON.parse(result.stdout);
    expect(Object.keys(info)).toEqual(['spec', 'fingerprint', 'point', 'args', 'results', 'verifier']);
    expect(info).toEqual({
      spec: 'test/rowsum-verify@1.0.0',
      fingerprint: readFileSync(path.join(rowsum, 'fherma.toml'), 'utf8').match(/^fingerprint = "(.*)"$/m)![1],
      point: [
        {name: 'N', type: 'int', min: 1, max: 4096},
        {name: 'D', type: 'int', min: 1, max: 64},
      ],
      args: [
        {name: 'a', type: 'f32', dims: ['N', 'D']},
        {name: 't', type: 'i32', dims: []},
      ],
      results: [
        {name: 'sums', type: 'f64', dims: ['N']},
        {name: 'above', type: 'u64', dims: []},
      ],
      verifier: true,
    });
    expect(result.stdout.endsWith('}\n')).toBe(true);
  });

  it('never runs the authored code', async () => {
    const bundle = await bundleCopy(sortExact, {'generate.mjs': 'throw new Error("imported!");'});
    const result = runCli(['bundle', bundle, 'info']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).verifier).toBe(false);
  });
});

describe('fherma.toml and the fingerprint', () => {
  it('fingerprint prints the value; the fixtures hold it', () => {
    const result = runCli(['bundle', sortExact, 'fingerprint', '--check']);
    expect(result).toMatchObject({code: 0, stderr: ''});
    expect(result.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    expect(readFileSync(path.join(sortExact, 'fherma.toml'), 'utf8')).toContain(`fingerprint = "${result.stdout.trim()}"`);
  });

  it('ignores spec, entry and accept; changes with any signature field', async () => {
    const base = runCli(['bundle', sortExact, 'fingerprint']).stdout;
    const same = await bundleCopy(sortExact, {}, {fixFingerprint: false, edit: (t) => t.replace('test/sort-exact@1.0.0', 'other@9') + '\n[accept]\nx = 1\n'});
    expect(runCli(['bundle', same, 'fingerprint', '--check']).stdout).toBe(base);
    for (const edit of [
      (t: string) => t.replace('max = 1000000', 'max = 999999'),
      (t: string) => t.replace('name = "x"', 'name = "z"'),
      (t: string) => t.replace('type = "f64"', 'type = "f32"'),
      (t: string) => t.replace('dims = ["N"]', 'dims = ["N + 1"]'),
    ]) {
      const other = await bundleCopy(sortExact, {}, {fixFingerprint: false, edit});
      expect(runCli(['bundle', other, 'fingerprint']).stdout).not.toBe(base);
    }
  });

  it('whitespace inside a dimension does not change the fingerprint', async () => {
    const a = await bundleCopy(sortExact, {}, {fixFingerprint: false, edit: (t) => t.replace('dims = ["N"]', 'dims = ["N*2"]')});
    const b = await bundleCopy(sortExact, {}, {fixFingerprint: false, edit: (t) => t.replace('dims = ["N"]', 'dims = [" N * 2 "]')});
    expect(runCli(['bundle', a, 'fingerprint']).stdout).toBe(runCli(['bundle', b, 'fingerprint']).stdout);
  });

  it('refuses to run when the marker disagrees, showing the expected value', async () => {
    const bundle = await bundleCopy(sortExact, {}, {fixFingerprint: false, edit: (t) => t.replace('max = 1000000', 'max = 5')});
    const want = runCli(['bundle', bundle, 'fingerprint']);
    expect(want.code).toBe(0);
    expect(want.stderr).toMatch(/^arbor: note: .*fherma\.toml says sha256:[0-9a-f]{64}; write fingerprint = "sha256:/);
    for (const sub of [['info'], ['verify', '/tmp/x'], ['make', '/tmp/x', '--point', '{"N":1}', '--seeds', '0']]) {
      const result = runCli(['bundle', bundle, ...sub]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`but its signature's fingerprint is "${want.stdout.trim()}"`);
      expect(result.stderr).toContain(`write fingerprint = "${want.stdout.trim()}"`);
    }
    expect(runCli(['bundle', bundle, 'fingerprint', '--check']).code).toBe(1);
  });

  it('a marker without fingerprint is refused the same way', async () => {
    const bundle = await bundleCopy(sortExact, {}, {fixFingerprint: false, edit: (t) => t.replace(/^fingerprint = .*$/m, '')});
    expect(runCli(['bundle', bundle, 'info'])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/fherma\.toml has no fingerprint, but its signature's fingerprint is "sha256:/),
    });
  });

  const broken: [string, (t: string) => string, RegExp][] = [
    ['not TOML', (t) => t + '\n[[point]\n', /is not valid TOML/],
    [
      'an unterminated string',
      (t) => t.replace('spec = "test/sort-exact@1.0.0"', 'spec = "test/sort-exact@1.0.0'),
      /fherma\.toml is not valid TOML: line 2: a string is not closed before the end of its line \(close it with its quote, or use """ for a multi-line string\)$/m,
    ],
    [
      'a control character in a string',
      (t) => t.replace('spec = "test/', 'spec = "\u0001test/'),
      /is not valid TOML: line 2: control characters are not allowed in strings$/m,
    ],
    ['no spec', (t) => t.replace(/^spec = .*$/m, ''), /`spec` must be a non-empty string/],
    ['an unknown key', (t) => t.replace('name = "x"', 'name = "x"\nshape = ["N"]'), /unknown key `shape` in \[\[args\]\] #1, expected one of name, type, dims/],
    [
      'an unknown type',
      (t) => t.replace('type = "f64"', 'type = "float"'),
      /\[\[args\]\] #1 \(x\): type must be one of i8 i16 i32 i64 u8 u16 u32 u64 f32 f64, got "float"/,
    ],
    ['a dimension over an unknown name', (t) => t.replace('dims = ["N"]', 'dims = ["M"]'), /dimension `M` uses `M`, which is not a point parameter/],
    ['a bad dimension expression', (t) => t.replace('dims = ["N"]', 'dims = ["N /2"]'), /bad dimension: unexpected `\/` in `N \/2`/],
    ['a point with min above max', (t) => t.replace('min = 1', 'min = 7').replace('max = 1000000', 'max = 3'), /min 7 is above max 3/],
    [
      'a duplicate name',
      (t) => t.replace('name = "y"', 'name = "y"').replace('[[results]]', '[[results]]\nname = "y"\ntype = "u8"\n\n[[results]]'),
      /\[\[results\]\]: name `y` appears twice/,
    ],
    [
      'an entry file that is missing',
      (t) => t.replace('oracle = "oracle.mjs"', 'oracle = "nope.mjs"'),
      /\[entry\] oracle = "nope\.mjs" does not name a file in the bundle/,
    ],
  ];
  it.each(broken)('a marker with %s: exit 1, naming the file and the problem', async (_name, edit, message) => {
    const bundle = await bundleCopy(sortExact, {}, {fixFingerprint: false, edit});
    const result = runCli(['bundle', bundle, 'info']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^arbor: .*fherma\.toml/);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('writes nothing into the bundle', async () => {
    const bundle = await bundleCopy(sortExact);
    writeFileSync(path.join(bundle, 'sentinel'), '');
    runCli(['bundle', bundle, 'info']);
    runCli(['bundle', bundle, 'fingerprint']);
    expect(readFileSync(path.join(bundle, 'sentinel'), 'utf8')).toBe('');
  });
});
