/** `arbor mcp` as a command: its help names every tool, bad usage is one line and exit 2, and `arbor --help` does not load the MCP SDK. */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';

describe('arbor mcp (command line)', () => {
  it('--help documents the tools, the transports and the sealed test split', () => {
    const result = runCli(['mcp', '--help']);
    expect(result.code).toBe(0);
    for (const tool of ['list_benchmarks', 'get_benchmark', 'checkout', 'evaluate', 'compare', 'list_runs', 'get_run', 'submit_test'])
      expect(result.stdout).toContain(tool);
    expect(result.stdout).toContain('--http');
    expect(result.stdout).toContain('ARBOR_MCP_TOKEN');
    expect(result.stdout).toMatch(/sealed: a verdict and a coarse\s+bucket/);
    // Where the server's own salt lives, and the fixed release time of sealed answers.
    expect(result.stdout).toMatch(/\$XDG_CONFIG_HOME\/arbor\/test-salt/);
    expect(result.stdout).toContain('--sealed-release');
    expect(runCli(['--help']).stdout).toMatch(/arbor mcp \[zoo\]/);
  });

  it.each([
    [['mcp', 'no/such/zoo'], 'arbor: Zoo `no/such/zoo` does not exist, expected a folder of benchmarks'],
    [
      ['mcp'],
      'arbor: No zoo found: neither `./arbor-zoo` nor `./zoo` exists and this folder holds no benchmark folders; pass the zoo folder, e.g. `arbor mcp path/to/zoo`',
    ],
    [['mcp', '.', '--http', 'x'], 'arbor: --http x: expected a port number (0-65535; 0 picks a free one)'],
    [['mcp', '.', '--http', '70000'], 'arbor: --http 70000: expected a port number (0-65535; 0 picks a free one)'],
    [['mcp', '.', '--sealed-release', '0'], 'arbor: --sealed-release 0: expected seconds (more than 0, at most 86400)'],
    [['mcp', '.', '--keep-days', '0'], 'arbor: --keep-days 0: expected days (more than 0, at most 3650)'],
  ])('%j -> one line, exit 2', (args, line) => {
    const cwd = tempDir();
    const result = runCli(args[1] === '.' ? [args[0]!, path.resolve('zoo'), ...args.slice(2)] : args, {cwd});
    expect(result).toEqual({code: 2, stdout: '', stderr: `${line}\n`});
  });

  it('arbor --help does not load the MCP SDK or zod', () => {
    const log = path.join(tempDir(), 'loads.txt');
    const hook = path.join(import.meta.dirname, '../zoo/helpers/record-loads.mjs');
    expect(runCli(['--help'], {env: {ARBOR_LOAD_LOG: log, NODE_OPTIONS: `--import=${hook}`}}).code).toBe(0);
    const loaded = readFileSync(log, 'utf8');
    expect(loaded).toContain('/dist/cli/index.js');
    for (const heavy of ['@modelcontextprotocol', '/zod/', '/dist/lib/mcp/']) expect(loaded).not.toContain(heavy);
  });
});
