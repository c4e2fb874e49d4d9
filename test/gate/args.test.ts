import {spawnSync} from 'node:child_process';
import {cpSync, existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {parseGateArgs, pythonColumns, runGate} from '../../lib/gate/index.js';
import {optionHelp} from '../../lib/gate/args.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {havePython, referencePath} from './differential.js';

/** The real reference (the spec's copy when this machine has it; the fixture is byte-identical). */
const sharedReference = '/work/shared/spec/agent_gate_reference.py';
const reference = existsSync(sharedReference) ? sharedReference : referencePath;
const python = havePython();
const prog = 'arbor benchmark gate';

interface Outcome {
  stdout: string;
  stderr: string;
  rc: number;
}

/** A folder holding the gate fixtures, where the reference's defaults and the port's coincide. */
function gateFolder(): string {
  const dir = path.join(tempDir('arbor-gate-args-'), 'pkg');
  cpSync(path.join(fixtures, 'gate'), dir, {recursive: true, filter: (src) => !src.includes(`${path.sep}expected`)});
  return dir;
}

/** The reference's outcome for every job, run in one Python process. */
function referenceOutcomes(dir: string, jobs: {argv: string[]; columns: number | null}[]): Outcome[] {
  const driver = path.join(import.meta.dirname, 'args-driver.py');
  // The reference with arbor's help texts on its options: everything else is the reference's own.
  const env = {...process.env, GATE_HELP: JSON.stringify(optionHelp)};
  const result = spawnSync('python3', [driver, reference, dir], {input: JSON.stringify(jobs), encoding: 'utf8', maxBuffer: 1 << 28, env});
  if (result.status !== 0) throw new Error(`args-driver.py failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Outcome[];
}

/** The port's outcome through the library, as the CLI prints it. */
function portOutcome(dir: string, argv: string[], columns: number | null): Outcome {
  const parsed = parseGateArgs(argv, prog, pythonColumns(columns === null ? {} : {COLUMNS: String(columns)}, {isTTY: false}));
  if (parsed.kind === 'exit') return {stdout: parsed.stdout, stderr: parsed.stderr, rc: parsed.exitCode};
  const outcome = runGate({...parsed.options, cwd: dir});
  return {stdout: outcome.stdout, stderr: outcome.stderr, rc: outcome.exitCode};
}

/** Words a command line is drawn from: every spelling argparse reads differently. */
const words = [
  '--spec',
  '--spe',
  '--s',
  '--sp',
  '--cases',
  '--cas',
  '--ca',
  '--c',
  '--candidate',
  '--cand',
  '--can',
  '--results',
  '--res',
  '--r',
  '--help',
  '--he',
  '--h',
  '-h',
  '-hh',
  '-hx',
  '-help',
  "-h'",
  '-hé',
  '-h=',
  '--help=x',
  '-h=foo',
  '--',
  '-',
  '---spec',
  '--x',
  '-s',
  '-x',
  '--spec=benchmark_spec.json',
  '--sp=benchmark_spec.json',
  '--spec=',
  '--spec=--',
  '--cases=--',
  '--candidate=--',
  '--cand=candidate-review',
  '--res=benchmark_results_review.json',
  '--results=benchmark_results_block.json',
  '--=x',
  '--c=x',
  '--spec=a=b',
  'benchmark_spec.json',
  'benchmark_cases.json',
  'benchmark_results_pass.json',
  'benchmark_results_review.json',
  'error_results_nan.json',
  'candidate-pass',
  'candidate-review',
  'candidate-block',
  'baseline-v1',
  'nope.json',
  '',
  '-5',
  '-1.5',
  '-1e5',
  '-a b',
  'a b',
  'x',
  "it's",
  'é',
];

/** A deterministic generator (mulberry32). */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe.skipIf(!python)('arbor benchmark gate parses its options as the reference (argparse)', () => {
  it('matches stdout, stderr and exit code on 600 generated command lines', () => {
    const dir = gateFolder();
    const next = random(20261130);
    const columnChoices = [null, null, null, 12, 30, 45, 60, 79, 80, 100, 200];
    const jobs = Array.from({length: 600}, () => ({
      argv: Array.from({length: Math.floor(next() * 6)}, () => words[Math.floor(next() * words.length)]!),
      columns: columnChoices[Math.floor(next() * columnChoices.length)]!,
    }));
    const expected = referenceOutcomes(dir, jobs);
    const differences = jobs
      .map((job, k) => ({job, reference: expected[k]!, port: portOutcome(dir, job.argv, job.columns)}))
      .filter(({reference, port}) => reference.rc !== port.rc || reference.stdout !== port.stdout || reference.stderr !== port.stderr);
    expect(differences.slice(0, 5)).toEqual([]);
    // The lines exercise every outcome: runs, help, each kind of usage error, the crash.
    const errors = new Set(expected.map((o) => /error: ([a-z ]+)/.exec(o.stderr)?.[1]).filter(Boolean));
    expect([...errors].sort()).toEqual(expect.arrayContaining(['ambiguous option', 'argument ', 'unrecognized arguments']));
    expect(expected.filter((o) => o.rc === 0 && o.stdout.startsWith('usage:')).length).toBeGreaterThan(10);
    expect(expected.filter((o) => o.rc === 0 && o.stdout.startsWith('{')).length).toBeGreaterThan(10);
    expect(expected.filter((o) => o.rc === 1 && o.stderr.startsWith('AttributeError')).length).toBeGreaterThan(0);
  }, 120_000);

  it('lays out usage and help as argparse does at every terminal width', () => {
    const dir = gateFolder();
    const jobs = [10, 20, 25, 30, 31, 32, 40, 44, 45, 50, 60, 70, 78, 79, 80, 81, 90, 100, 150].flatMap((columns) => [
      {argv: ['-h'], columns},
      {argv: ['--bad'], columns},
    ]);
    const expected = referenceOutcomes(dir, jobs);
    jobs.forEach((job, k) => expect(portOutcome(dir, job.argv, job.columns), `COLUMNS=${job.columns} ${job.argv}`).toEqual(expected[k]));
  });

  it('through the CLI: prefixes, a usage error and the help, with the reference bytes', () => {
    const dir = gateFolder();
    const lines = [['--cand', 'candidate-review', '--res', 'benchmark_results_review.json'], ['--cand', 'x', '--', 'y'], ['--c', 'x'], ['--help']];
    const expected = referenceOutcomes(
      dir,
      lines.map((argv) => ({argv, columns: 100})),
    );
    lines.forEach((argv, k) => {
      const result = runCli(['benchmark', 'gate', ...argv], {cwd: dir, env: {COLUMNS: '100'}});
      expect({stdout: result.stdout, stderr: result.stderr, rc: result.code}).toEqual(expected[k]);
    });
    expect(expected[0]!.rc).toBe(1);
    expect(expected[2]!.stderr).toMatch(/^usage: arbor benchmark gate \[-h\]/);
  });

  it('the fixture copy of the reference is the spec itself', () => {
    if (!existsSync(sharedReference)) return;
    expect(readFileSync(referencePath, 'utf8')).toBe(readFileSync(sharedReference, 'utf8'));
  });
});
