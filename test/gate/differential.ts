/**
 * Differential runner: writes generated packages to folders, runs the
 * reference (one Python process for all of them, see py-driver.py) and the
 * port, and lists every difference in stdout, stderr or exit code.
 */
import {spawnSync} from 'node:child_process';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {runGate, type GateOptions} from '../../lib/gate/index.js';
import {cliPath, fixtures} from '../helpers/cli.js';
import type {GeneratedCase} from './generate-packages.js';

export const referencePath = path.join(fixtures, 'gate/agent_gate_reference.py');
const driverPath = path.join(path.dirname(new URL(import.meta.url).pathname), 'py-driver.py');

/** Whether python3 can run here. */
export function havePython(): boolean {
  const result = spawnSync('python3', ['--version']);
  return !result.error && result.status === 0;
}

/** argv (as the reference takes it) to runGate options. */
function optionsFromArgv(argv: string[], cwd: string): GateOptions {
  const options: GateOptions = {cwd};
  for (let i = 0; i < argv.length; i += 2) {
    const key = (argv[i] as string).replace(/^--/, '') as 'spec' | 'cases' | 'results' | 'candidate';
    options[key] = argv[i + 1] as string;
  }
  return options;
}

interface Outcome {
  stdout: string;
  stderr: string;
  rc: number;
}

export interface Difference {
  name: string;
  dir: string;
  reference: Outcome;
  port: Outcome;
}

/** A reference crash prints a traceback; the port prints only its last line. */
function comparable(outcome: Outcome): Outcome {
  if (outcome.rc === 1 && outcome.stderr.startsWith('Traceback (most recent call last):')) {
    const lines = outcome.stderr.trimEnd().split('\n');
    return {...outcome, stderr: (lines[lines.length - 1] as string) + '\n'};
  }
  return outcome;
}

/** Run both sides on `cases` under `root`; `cliEvery` spawns the built CLI for every n-th case. */
export function runDifferential(
  root: string,
  cases: GeneratedCase[],
  cliEvery = 0,
): {compared: number; differences: Difference[]; classes: Map<string, number>} {
  const classes = new Map<string, number>();
  const jobs = cases.map((item) => {
    const dir = path.join(root, item.name);
    mkdirSync(dir, {recursive: true});
    for (const [name, bytes] of Object.entries(item.files)) {
      const file = path.join(dir, name);
      mkdirSync(path.dirname(file), {recursive: true});
      if (bytes === null) mkdirSync(file, {recursive: true});
      else writeFileSync(file, bytes);
    }
    return {dir, argv: item.argv};
  });
  const jobsFile = path.join(root, 'jobs.json');
  writeFileSync(jobsFile, JSON.stringify(jobs));
  const py = spawnSync('python3', [driverPath, referencePath, jobsFile], {encoding: 'utf8', maxBuffer: 1 << 26});
  if (py.status !== 0) throw new Error(`python driver failed: ${py.stderr}`);
  const differences: Difference[] = [];
  cases.forEach((item, index) => {
    const {dir, argv} = jobs[index] as {dir: string; argv: string[]};
    const reference = comparable({
      stdout: readFileSync(path.join(dir, 'py.stdout'), 'utf8'),
      stderr: readFileSync(path.join(dir, 'py.stderr'), 'utf8'),
      rc: Number(readFileSync(path.join(dir, 'py.rc'), 'utf8')),
    });
    const kind =
      reference.rc === 2
        ? reference.stderr.replace(/\d+/g, 'N').slice(0, 60)
        : reference.rc === 1 && reference.stdout === ''
          ? reference.stderr.slice(0, 40)
          : JSON.parse(reference.stdout).action;
    classes.set(kind, (classes.get(kind) ?? 0) + 1);
    const outcome = runGate(optionsFromArgv(argv, dir));
    const ports: Outcome[] = [{stdout: outcome.stdout, stderr: outcome.stderr, rc: outcome.exitCode}];
    if (cliEvery > 0 && index % cliEvery === 0) {
      const cli = spawnSync(process.execPath, [cliPath, 'benchmark', 'gate', ...argv], {cwd: dir, encoding: 'utf8'});
      ports.push({stdout: cli.stdout, stderr: cli.stderr, rc: cli.status ?? -1});
    }
    for (const port of ports) {
      if (port.stdout !== reference.stdout || port.stderr !== reference.stderr || port.rc !== reference.rc) {
        differences.push({name: item.name, dir, reference, port});
      }
    }
  });
  return {compared: cases.length, differences, classes};
}
