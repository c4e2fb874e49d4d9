/**
 * One `--json` convention across every command: a boolean flag that makes
 * stdout one JSON document (messages go to stderr); `--json-file FILE` where
 * a file is wanted. The walk starts from `arbor benchmark --help`, so a new
 * command is checked (or must be named as an exception) without editing this
 * test. eval, compare, calibrate, run and report are run with `--json` in
 * test/ledger/one-history.test.ts, which shares their evals with the ledger's
 * checks; the quick commands run here.
 */
import {cpSync, mkdirSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, runCli, tempDir} from './helpers/cli.js';

/** Commands without `--json`, and why. */
const withoutJson: Record<string, string> = {
  gate: "the reference program's own command line, byte for byte",
  worker: 'a long-running service that prints a log',
};

function benchmarkCommands(): string[] {
  const help = runCli(['benchmark', '--help']).stdout;
  return [...help.matchAll(/^ {2}arbor benchmark ([a-z-]+)/gm)].map((match) => match[1]!);
}

/** The help text of one option: its line and the lines that continue it. */
function optionHelp(help: string, option: string): string | null {
  const lines = help.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^\\s+(-\\w, )?${option}\\b`).test(line));
  if (start === -1) return null;
  let end = start + 1;
  while (end < lines.length && /^\s{10,}\S/.test(lines[end]!)) end++;
  return lines.slice(start, end).join(' ').replace(/\s+/g, ' ');
}

describe('--json, the same in every command', () => {
  const commands = benchmarkCommands();

  it('finds the commands to walk', () => {
    expect(commands).toEqual(
      expect.arrayContaining(['scaffold', 'verify', 'list', 'checkout', 'eval', 'calibrate', 'compare', 'lock', 'runs', 'report', 'run']),
    );
  });

  it.each(benchmarkCommands())('benchmark %s: --json is a flag that prints JSON on stdout, or the command says why it has none', (command) => {
    const help = runCli(['benchmark', command, '--help']).stdout;
    const json = optionHelp(help, '--json');
    if (json === null) {
      expect(withoutJson, `benchmark ${command} has no --json and is not a named exception`).toHaveProperty(command);
      return;
    }
    expect(withoutJson).not.toHaveProperty(command);
    expect(json).toContain('[boolean]');
    expect(json).toMatch(/JSON\b.* on stdout/);
    const file = optionHelp(help, '--json-file');
    if (file !== null) expect(file).toContain('[string]');
  });

  it('the quick commands print exactly one JSON document on stdout with --json', () => {
    const dir = tempDir();
    const zoo = path.join(dir, 'zoo');
    mkdirSync(zoo);
    cpSync(path.join(fixtures, 'run/zoo/abs-a'), path.join(zoo, 'abs-a'), {recursive: true});
    const env = {ARBOR_LEDGER: path.join(dir, 'runs.db')};
    const runs: [string, string[]][] = [
      ['scaffold', ['benchmark', 'scaffold', path.join(dir, 'new-one'), '--json']],
      ['verify', ['benchmark', 'verify', path.join(zoo, 'abs-a'), '--json']],
      ['list', ['benchmark', 'list', zoo, '--json']],
      ['checkout', ['benchmark', 'checkout', path.join(zoo, 'abs-a'), path.join(dir, 'workspace'), '--json']],
      ['lock', ['benchmark', 'lock', '--check', path.join(dir, 'workspace'), '--json']],
      ['runs', ['benchmark', 'runs', '--json']],
    ];
    for (const [name, args] of runs) {
      const result = runCli(args, {cwd: dir, env});
      expect(() => JSON.parse(result.stdout), `${name}: ${result.stdout}${result.stderr}`).not.toThrow();
      expect(typeof JSON.parse(result.stdout), name).toBe('object');
    }
  });

  it('takes the earlier `--json FILE` of eval, compare and run as --json-file, with a deprecation warning', () => {
    const dir = tempDir();
    const file = path.join(dir, 'report.json');
    const result = runCli(['benchmark', 'eval', path.join(fixtures, 'eval/accuracy-abs'), 'dev', '--quiet', '--json', file], {
      env: {ARBOR_LEDGER: path.join(dir, 'runs.db')},
    });
    expect(result).toEqual({
      code: 0,
      stdout: 'score: 0.199\n',
      stderr: `arbor: warning: \`--json ${file}\` is deprecated: use \`--json-file ${file}\` (\`--json\` alone now prints the JSON on stdout)\n`,
    });
  });
});
