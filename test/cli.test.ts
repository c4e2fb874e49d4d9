import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot, runCli, tempDir} from './helpers/cli.js';

/** Each bad command line: exit 2, nothing on stdout, exactly this one line on stderr. */
const usageErrors: [string[], string][] = [
  [[], 'arbor: Missing command: expected one of `benchmark`, `bundle`, `mcp`, `doctor`'],
  [['lst'], 'arbor: Unknown command `lst`, did you mean `benchmark list`?'],
  [['benchmark', 'lst'], 'arbor: Unknown command `lst` for `arbor benchmark`, did you mean `list`?'],
  [['benchmark', 'verfy', 'x'], 'arbor: Unknown command `verfy` for `arbor benchmark`, did you mean `verify`?'],
  [['benchmark', 'scafold'], 'arbor: Unknown command `scafold` for `arbor benchmark`, did you mean `scaffold`?'],
  [['frobnicate'], 'arbor: Unknown command `frobnicate`; expected one of `benchmark`, `bundle`, `mcp`, `doctor`'],
  [
    ['benchmark'],
    'arbor: Missing command for `arbor benchmark`: expected one of `scaffold`, `verify`, `list`, `checkout`, `eval`, `gate`, `calibrate`, `compare`, `lock`, `runs`, `report`, `run`, `worker`, `import`',
  ],
  [['benchmark', 'list', 'a', 'b'], 'arbor: Unexpected extra argument `b` for `arbor benchmark list`: usage `arbor benchmark list [zoo]`'],
  [['benchmark', 'list', '--frob'], 'arbor: Unknown option `--frob` for `arbor benchmark list`; run `arbor benchmark list --help` for usage'],
  [['benchmark', 'scaffold'], 'arbor: Missing argument <dir> for `arbor benchmark scaffold`: usage `arbor benchmark scaffold <dir>`'],
  [['benchmark', 'scaffold', 'a', 'b'], 'arbor: Unexpected extra argument `b` for `arbor benchmark scaffold`: usage `arbor benchmark scaffold <dir>`'],
  [['benchmark', 'checkout', 'x'], 'arbor: Missing argument <dest> for `arbor benchmark checkout`: usage `arbor benchmark checkout <benchmark> <dest>`'],
  [
    ['benchmark', 'checkout', 'a', 'b', 'c'],
    'arbor: Unexpected extra argument `c` for `arbor benchmark checkout`: usage `arbor benchmark checkout <benchmark> <dest>`',
  ],
];

describe('arbor (top level)', () => {
  it('prints help with exit 0', () => {
    const result = runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('arbor benchmark');
    expect(result.stdout).toContain('arbor bundle');
    expect(result.stderr).toBe('');
  });

  it('has --help on every zoo subcommand', () => {
    for (const command of ['scaffold', 'verify', 'list', 'checkout']) {
      const result = runCli(['benchmark', command, '--help']);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`arbor benchmark ${command}`);
    }
  });

  it('--version prints the package version from any working directory', () => {
    const version = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).version;
    const elsewhere = tempDir();
    writeFileSync(path.join(elsewhere, 'package.json'), '{"name": "other", "version": "9.9.9"}');
    expect(runCli(['--version'], {cwd: elsewhere})).toEqual({code: 0, stdout: `${version}\n`, stderr: ''});
    expect(runCli(['--version'], {cwd: tempDir()})).toEqual({code: 0, stdout: `${version}\n`, stderr: ''});
  });

  it('help examples name zoo folders that exist, and the bundle example runs as written', () => {
    const helps = [
      [],
      ['benchmark'],
      ...['scaffold', 'verify', 'list', 'checkout', 'eval', 'gate'].map((c) => ['benchmark', c]),
      ['bundle', 'x'],
      ['bundle', 'x', 'make'],
    ];
    const named = new Set<string>();
    for (const args of helps) for (const m of runCli([...args, '--help']).stdout.matchAll(/\bzoo\/[\w/]+/g)) named.add(m[0]);
    expect([...named].filter((p) => p !== 'zoo/my_task' && !existsSync(path.join(repoRoot, p)))).toEqual([]);
    expect(named).toContain('zoo/algotune_knn/bundle');
    const dir = path.join(tempDir(), 'w');
    const made = runCli(['bundle', 'zoo/algotune_knn/bundle', 'make', dir, '--point', '{"N": 1000, "Q": 10, "D": 8, "K": 5}', '--seeds', '0-2,7']);
    expect(made).toEqual({code: 0, stdout: '', stderr: `arbor: made 4 cases in ${dir}\n`});
  });

  it('eval of a file says it is a file, naming the folder to give', () => {
    expect(runCli(['benchmark', 'eval', 'zoo/relu_poly/README.md', 'dev'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'arbor: benchmark zoo/relu_poly/README.md is a file: pass the benchmark folder holding plan.toml, e.g. arbor benchmark eval zoo/relu_poly dev\n',
    });
    expect(runCli(['benchmark', 'eval', 'package.json', 'dev']).stderr).toBe(
      'arbor: benchmark package.json is a file: pass the benchmark folder holding plan.toml\n',
    );
  });

  it.each(usageErrors)('%j -> one line, exit 2', (args, line) => {
    const result = runCli(args, {cwd: tempDir()});
    expect(result).toEqual({code: 2, stdout: '', stderr: `${line}\n`});
  });

  it('does not load remark, micromark, simple-git or better-sqlite3 for --help', () => {
    const log = path.join(tempDir(), 'loads.txt');
    const hook = path.join(import.meta.dirname, 'zoo/helpers/record-loads.mjs');
    const result = runCli(['--help'], {env: {ARBOR_LOAD_LOG: log, NODE_OPTIONS: `--import=${hook}`}});
    expect(result.code).toBe(0);
    const loaded = readFileSync(log, 'utf8');
    expect(loaded).toContain('/dist/cli/index.js');
    expect(loaded).toContain('/dist/cli/yargs.js');
    for (const heavy of ['remark-parse', 'micromark', 'unified', 'simple-git', 'mdast-util', 'better-sqlite3', 'smol-toml'])
      expect(loaded).not.toContain(`/${heavy}`);
  });
});

describe('empty paths', () => {
  it.each([
    [['benchmark', 'verify', ''], 'arbor: Benchmark folder `` is an empty path, expected a benchmark folder'],
    [['benchmark', 'list', ''], 'arbor: The zoo path is empty, expected a folder of benchmarks'],
    [['benchmark', 'scaffold', ''], 'arbor: The benchmark folder path is empty, expected e.g. `zoo/my_task`'],
    [['benchmark', 'checkout', '', 'x'], 'arbor: The benchmark path is empty, expected a benchmark folder'],
  ])('%j -> exit 2', (args, line) => {
    expect(runCli(args, {cwd: tempDir()})).toEqual({code: 2, stdout: '', stderr: `${line}\n`});
  });
});
