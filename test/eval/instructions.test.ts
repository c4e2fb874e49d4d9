// The instructions clock (lib/eval/instructions.ts): the parser of callgrind's
// log and parts on small text fixtures, the plan value, and end to end under
// valgrind in the sandbox: deterministic counts, and adversaries that reach the
// counter from inside run() fail their case.
import {spawnSync} from 'node:child_process';
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {loadPlan} from '../../lib/eval/index.js';
import {readCounts, type CountInput} from '../../lib/eval/instructions.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {evaluate, hasBundle, sandboxed} from './adversaries.js';

const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;
const entry = path.join(fixtures, 'eval/prefix-instructions');

/** A -v log as callgrind writes it for a run of `cases`, with `extra` lines inserted after line `at` of the body. */
function log(cases: number[], blocks: Array<[number, number]>, options: {extra?: string[]; at?: number; collected?: number; pid?: number} = {}): string {
  const pid = options.pid ?? 2;
  const body: string[] = [];
  for (const [k, i] of cases.entries()) {
    const [pre, post] = blocks[k]!;
    body.push(`--${pid}-- Start dumping at BB ${pre} (Client Request: pre-${i})...`, `--${pid}-- Dump to /callgrind/r1.${pid}.${2 * k + 1}`, `--${pid}-- Dumping done.`);
    body.push(`--${pid}-- Start dumping at BB ${post} (Client Request: case-${i})...`, `--${pid}-- Dump to /callgrind/r1.${pid}.${2 * k + 2}`, `--${pid}-- Dumping done.`);
  }
  body.splice(options.at ?? body.length, 0, ...(options.extra ?? []));
  return [
    `==${pid}== Callgrind, a call-graph generating cache profiler`,
    `==${pid}== Command: /usr/bin/python3.11 -s -B /arbor/runner.py --solution /solution/solution.py --count-instructions`,
    `--${pid}-- Reading syms from /usr/bin/python3.11`,
    ...body,
    `--${pid}-- Start dumping at BB 999999 (Prg.Term.)...`,
    `--${pid}-- Dump to /callgrind/r1.${pid}`,
    `==${pid}== Events    : Ir`,
    `==${pid}== Collected : ${options.collected ?? 1000}`,
    `==${pid}== I   refs:      1,000`,
  ].join('\n');
}

function part(name: string, trigger: string, totals: number): {name: string; text: string} {
  return {name, text: `# callgrind format\nversion: 1\npart: 1\n\ndesc: Trigger: ${trigger}\n\npositions: line\nevents: Ir\nsummary: ${totals}\n\nfn=(1) f\n0 ${totals}\n\ntotals: ${totals}\n`};
}

/** An honest two-case run: parts of 100 (start-up), 300 and 200 (cases), the gaps and the end; 1000 in all. */
function honest(): CountInput {
  return {
    log: log([0, 1], [[100, 200], [210, 260]]),
    parts: [
      part('r1.2.1', 'Client Request: pre-0', 100),
      part('r1.2.2', 'Client Request: case-0', 300),
      part('r1.2.3', 'Client Request: pre-1', 20),
      part('r1.2.4', 'Client Request: case-1', 200),
      part('r1.2', 'Program termination', 380),
    ],
    runId: 'r1',
    cases: [0, 1],
  };
}

const problem = (result: unknown) => (result as {problem?: string}).problem ?? '';

describe('readCounts (callgrind log and parts)', () => {
  it('reads each case from its case-<i> part, and its blocks from the log', () => {
    const counts = readCounts(honest());
    expect(counts.get(0)).toEqual({instructions: 300, blocks: 100});
    expect(counts.get(1)).toEqual({instructions: 200, blocks: 50});
  });

  it.each([
    ['a Zeroing costs line', ['--2-- Zeroing costs...'], 3, 0, /costs were zeroed/],
    ['an instrumentation switch', ['--2-- Client Request: instrumentation switched OFF'], 9, 1, /instrumentation was switched off/],
    ['a second Command: line', ['==2== Command: /usr/bin/true'], 3, 0, /second "Command:" line/],
    ['another process', ['==3== Events    : Ir', '==3== Collected : 5000'], 3, 0, /a second process \(pid 3\)/],
    ['an extra dump', ['--2-- Start dumping at BB 150 (Client Request: mine)...', '--2-- Dump to /callgrind/r1.2.9'], 3, 0, /unexpected dump "Client Request: mine"/],
    ['a forged case dump', ['--2-- Start dumping at BB 230 (Client Request: case-1)...'], 7, 1, /unexpected dump "Client Request: case-1"/],
  ])('fails the case on %s', (_name, extra, at, i, message) => {
    const input = honest();
    input.log = log([0, 1], [[100, 200], [210, 260]], {extra, at});
    const counts = readCounts(input);
    expect(problem(counts.get(i))).toMatch(message);
    expect(problem(counts.get(i))).not.toContain('\n');
  });

  it('fails a case whose instructions are fewer than its executed blocks (collection toggled off)', () => {
    const input = honest();
    input.parts[1] = part('r1.2.2', 'Client Request: case-0', 40);
    input.parts[4] = part('r1.2', 'Program termination', 640);
    expect(problem(readCounts(input).get(0))).toMatch(/counted 40 instructions in 100 executed basic blocks: collection was switched off/);
  });

  it('fails every case when the parts do not add up to the final count (a part was edited)', () => {
    const input = honest();
    input.parts[3] = part('r1.2.4', 'Client Request: case-1', 150);
    const counts = readCounts(input);
    expect(problem(counts.get(0))).toMatch(/totals add up to 950, but valgrind's final count is 1000/);
    expect(problem(counts.get(1))).toMatch(/totals add up to 950/);
  });

  it('fails on a forged extra part file, and on a part whose trigger is not its case', () => {
    const extra = honest();
    extra.parts.push(part('r1.2.7', 'Client Request: case-0', 1));
    expect(problem(readCounts(extra).get(0))).toMatch(/total|unexpected file/);
    const swapped = honest();
    swapped.parts[1] = part('r1.2.2', 'Client Request: case-1', 300);
    expect(problem(readCounts(swapped).get(0))).toMatch(/r1\.2\.2 is not the dump of case 0/);
    const foreign = honest();
    foreign.parts.push(part('r1.3', 'Program termination', 5));
    expect(problem(readCounts(foreign).get(1))).toMatch(/unexpected file r1\.3/);
  });

  it('fails every case when valgrind wrote no final count (the runner did not exit normally: nothing checked the parts)', () => {
    const input = honest();
    input.log = input.log.split('\n').filter((line) => !line.includes('Collected')).join('\n');
    expect(problem(readCounts(input).get(0))).toMatch(/no final count \("Collected :"\): the runner did not exit normally/);
    expect(problem(readCounts(input).get(1))).toMatch(/no final count/);
  });

  it('a missing closing dump voids the case; a log without a Command: line voids every case', () => {
    const input = honest();
    input.cases = [0, 1, 2];
    expect(problem(readCounts(input).get(2))).toMatch(/case 2 has no opening dump/);
    expect(problem(readCounts({...honest(), log: 'nothing'}).get(1))).toMatch(/valgrind wrote no log/);
  });
});

describe('plan.toml clock = "instructions"', () => {
  it('is accepted for a speedup plan', async () => {
    const plan = await loadPlan(entry);
    expect(plan.clock).toBe('instructions');
    expect(plan.repetitions).toBe(2);
  });

  it('is refused for an accuracy plan, and an unknown clock names the three', async () => {
    const dir = tempDir('arbor-plan-');
    cpSync(path.join(fixtures, 'eval/accuracy-abs'), dir, {recursive: true});
    const file = path.join(dir, 'plan.toml');
    writeFileSync(file, `clock = "instructions"\n${readFileSync(file, 'utf8')}`);
    await expect(loadPlan(dir)).rejects.toThrow(/"clock" belongs to metric = "speedup"/);
    const speed = tempDir('arbor-plan-');
    cpSync(entry, speed, {recursive: true});
    writeFileSync(path.join(speed, 'plan.toml'), readFileSync(path.join(speed, 'plan.toml'), 'utf8').replace('clock = "instructions"', 'clock = "cycles"'));
    await expect(loadPlan(speed)).rejects.toThrow(/"clock" must be "cpu", "wall" or "instructions", got "cycles"/);
  });
});

/** Evaluate the fixture's own solution; the report and the streams. */
function evalEntry(env: Record<string, string> = {}) {
  const dir = path.join(tempDir(), 'prefix-instructions');
  cpSync(entry, dir, {recursive: true});
  const json = path.join(path.dirname(dir), 'report.json');
  const result = runCli(['benchmark', 'eval', dir, 'dev', '--json', json], {env: {...process.env, ...env}});
  return {...result, report: JSON.parse(readFileSync(json, 'utf8'))};
}

describe.skipIf(!hasBundle || !hasValgrind || !sandboxed)('the instructions clock under valgrind, in the sandbox', () => {
  let baseline = 0;

  it('scores with deterministic counts: every case the same count in every repetition (each a fresh process of each side)', () => {
    const first = evalEntry();
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^score: \S+\n$/);
    expect(first.stderr).toMatch(/^note: the instructions clock counts inside the solution's own process.*confirm a gain on the cpu clock$/m);
    const {report} = first;
    expect(report.clock).toBe('instructions');
    expect(report.precision.reached).toBe(true);
    for (const c of report.points[0].cases) {
      const counts = c.repetitions.map((r: {instructions: number}) => r.instructions);
      expect(counts.every((n: number) => Number.isInteger(n) && n > 0)).toBe(true);
      expect(new Set(counts).size).toBe(1);
      expect(new Set(c.referenceRepetitions).size).toBe(1);
      expect(c.repetitions[0].cpuSeconds).toBeGreaterThan(0);
      expect(c.seconds).toBe(counts[0]);
    }
    // Every repetition is a fresh process of each side, so equal counts across repetitions are what makes two evals agree.
    baseline = Number(first.stdout.slice(7));
    expect(baseline).toBeGreaterThan(1);
  }, 300_000);

  it.each([
    ['valgrind-zero.py', /costs were zeroed/],
    ['valgrind-stop.py', /instrumentation was switched off/],
    ['valgrind-toggle.py', /collection was switched off \(TOGGLE_COLLECT\)/],
    ['valgrind-fork.py', /a second process \(pid \d+\) ran under the counter/],
    ['valgrind-exec.py', /a second process \(pid \d+\) ran under the counter|unexpected file/],
  ])('%s fails its case with the reason', (solution, reason) => {
    // A wide kill limit: under valgrind a second process starts slowly (about 2 s for valgrind-exec.py's
    // interpreter, against the reference's 0.5 s), and on a loaded machine the case must fail for its trace, not its time.
    const {score, report, stderr} = evaluate('prefix-instructions', solution, {plan: {'repetitions = 2\n': 'repetitions = 2\ntimeout_factor = 100\n'}});
    expect(score).toBe(0);
    expect(report.points[0].cases[0]).toMatchObject({status: 'tampered', note: expect.stringMatching(reason)});
    expect(stderr).toMatch(/score is 0\.0: case 0: tampered \(instructions clock: /);
    if (baseline) expect(score).toBeLessThanOrEqual(baseline);
  }, 180_000);

  it('falls back to the cpu clock, once on stderr and in the report, where valgrind is missing', () => {
    const {code, stdout, stderr, report} = evalEntry({ARBOR_VALGRIND: '/nonexistent/valgrind'});
    expect(code).toBe(0);
    expect(stdout).toMatch(/^score: \S+\n$/);
    expect(report.clock).toMatch(/^(cpu|wall)$/);
    expect(report.clockNote).toMatch(/valgrind is not installed.*so the instructions clock fell back to the (cpu|wall) clock/);
    expect(stderr.match(/fell back/g)).toHaveLength(1);
    expect(report.points[0].cases[0].repetitions[0].instructions).toBeUndefined();
  }, 120_000);
});
