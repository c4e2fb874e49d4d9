// The instructions clock (lib/sandbox/instructions.ts): the parser of callgrind's
// log and parts on small text fixtures, the cross-check against CPU time, the
// plan value, and end to end under valgrind in the sandbox: deterministic
// counts, adversaries that reach the counter from inside the solution fail
// their case, and work in a gc callback finds no case outside its count.
import {spawnSync} from 'node:child_process';
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {loadPlan} from '../../lib/eval/index.js';
import {crossCheck, maxSpeedupExcess, readCounts, type CountInput} from '../../lib/sandbox/instructions.js';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {evaluateSides, rewritePlan, sandboxed, type Side} from './adversaries.js';

const hasValgrind = spawnSync('valgrind', ['--version']).status === 0;
const entry = path.join(fixtures, 'eval/prefix-instructions');

/** A -v log as callgrind writes it for a run of `cases` after a warm-up, with `extra` lines inserted after line `at` of the body. */
function log(cases: number[], blocks: number[], options: {extra?: string[]; at?: number; collected?: number; pid?: number; held?: string[]} = {}): string {
  const pid = options.pid ?? 2;
  const request = (effect: string, file?: string) => [
    `--${pid}--   SCHED[1]: TRC: CLIENTREQ`,
    'client request: code 43540003,  addr 0x4A3B0C0,  len 0',
    `--${pid}-- ${effect}`,
    ...(file ? [`--${pid}-- Dump to /callgrind/${file}`, `--${pid}-- Dumping done.`] : []),
  ];
  const open = (k: number, block: number) => [
    ...request('  Zeroing costs...'),
    `--${pid}--   ...done`,
    ...request(`Start dumping at BB ${block} (Client Request: open-${k})...`, `r1.${pid}.${k + 1}`),
  ];
  const body: string[] = [...open(0, 90), `--${pid}--   SCHED[1]: TRC: SYSCALL`, ...open(1, blocks[0]!)];
  for (const [k, i] of cases.entries()) {
    body.push(
      `--${pid}--   SCHED[1]: TRC: CHAIN_ME_FAST`,
      ...request(`Start dumping at BB ${blocks[k + 1]} (Client Request: case-${i}/${options.held?.[k] ?? '0a'})...`, `r1.${pid}.${k + 3}`),
    );
  }
  body.splice(options.at ?? body.length, 0, ...(options.extra ?? []));
  return [
    `==${pid}== Callgrind, a call-graph generating cache profiler`,
    `==${pid}== Command: /usr/bin/python3.11 -s -B /arbor/runner.py --solution /solution/solution.py --count-instructions`,
    `--${pid}-- Reading syms from /usr/bin/python3.11`,
    `==${pid}== Handling new value --trace-sched=yes for option --trace-sched`,
    `==${pid}== Handling new value -v for option -v`,
    ...body,
    `--${pid}-- Start dumping at BB 999999 (Prg.Term.)...`,
    `--${pid}-- Dump to /callgrind/r1.${pid}`,
    `==${pid}== Events    : Ir`,
    `==${pid}== Collected : ${options.collected ?? 1000}`,
    `==${pid}== I   refs:      1,000`,
  ].join('\n');
}

function part(name: string, trigger: string, totals: number): {name: string; text: string} {
  return {
    name,
    text: `# callgrind format\nversion: 1\npart: 1\n\ndesc: Trigger: ${trigger}\n\npositions: line\nevents: Ir\nsummary: ${totals}\n\nfn=(1) f\n0 ${totals}\n\ntotals: ${totals}\n`,
  };
}

/** An honest two-case run: parts of 3 (the two opens), 300 and 200 (cases) and the end; 1000 in all. */
function honest(): CountInput {
  return {
    log: log([0, 1], [100, 200, 250]),
    parts: [
      part('r1.2.1', 'Client Request: open-0', 3),
      part('r1.2.2', 'Client Request: open-1', 3),
      part('r1.2.3', 'Client Request: case-0/0a', 300),
      part('r1.2.4', 'Client Request: case-1/0a', 200),
      part('r1.2', 'Program termination', 494),
    ],
    runId: 'r1',
    cases: [0, 1],
    opens: 2,
  };
}

const problem = (result: unknown) => (result as {problem?: string}).problem ?? '';

describe('readCounts (callgrind log and parts)', () => {
  it('reads each case from its case-<i> part, and its blocks from the log', () => {
    const counts = readCounts(honest());
    expect(counts.get(0)).toEqual({instructions: 300, blocks: 100});
    expect(counts.get(1)).toEqual({instructions: 200, blocks: 50});
  });

  const traced = (effect: string) => ['--2--   SCHED[1]: TRC: CLIENTREQ', `--2-- ${effect}`];
  it.each([
    ['a zeroing in a case', traced('  Zeroing costs...'), /costs were zeroed/],
    ['a switch of the instrumentation', traced('Client Request: instrumentation switched OFF'), /instrumentation was switched off/],
    [
      'a request valgrind runs without a trace (a native call, TOGGLE_COLLECT)',
      ['--2--   SCHED[1]: TRC: CLIENTREQ'],
      /a client request the runner did not issue: .*VALGRIND_NON_SIMD_CALL/,
    ],
    ['a dump of its own', traced('Start dumping at BB 150 (Client Request: mine)...'), /unexpected dump "Client Request: mine" \(expected "case-0\/\.\."\)/],
    ['a dump line no request announced', ['--2-- Start dumping at BB 150 (Client Request: case-0/0a)...'], /a line valgrind did not write in its log/],
    ['a second Command: line', ['==2== Command: /usr/bin/true'], /second "Command:" line/],
    ['another process', ['==3== Events    : Ir', '==3== Collected : 5000'], /a second process \(pid 3\)/],
  ])('fails the case on %s', (_name, extra, message) => {
    const input = honest();
    // Inside case 0, after open-1.
    input.log = log([0, 1], [100, 200, 250], {extra, at: 19});
    const counts = readCounts(input);
    expect(problem(counts.get(0))).toMatch(message);
    expect(problem(counts.get(0))).not.toContain('\n');
  });

  it('fails every case on a dump before the first count opened (the solution loading), or on a log without requests', () => {
    const early = honest();
    early.log = log([0, 1], [100, 200, 250], {extra: ['--2-- Start dumping at BB 50 (Client Request: stash)...', '--2-- Dump to /callgrind/r1.2.9'], at: 0});
    expect(problem(readCounts(early).get(1))).toMatch(/a zeroing or dump before the runner opened its first count/);
    const untraced = honest();
    untraced.log = untraced.log
      .split('\n')
      .filter((line) => !line.includes('SCHED'))
      .join('\n');
    expect(problem(readCounts(untraced).get(0))).toMatch(/valgrind logged no client request/);
  });

  it("accepts the runner's own switch of instrumentation before the trace begins, and voids every case for one after it", () => {
    // valgrind starts with instrumentation off (--instr-atstart=no); the runner switches it on just before its first traced request.
    const before = honest();
    before.log = log([0, 1], [100, 200, 250], {extra: ['--2-- Client Request: instrumentation switched ON'], at: 0});
    expect([...readCounts(before).values()].map(problem)).toEqual(['', '']);
    const after = honest();
    after.log = log([0, 1], [100, 200, 250], {extra: ['--2-- Client Request: instrumentation switched ON'], at: 9});
    expect(problem(readCounts(after).get(1))).toMatch(/instrumentation was switched off during the run/);
  });

  it('fails a case whose instructions are fewer than its executed blocks', () => {
    const input = honest();
    input.parts[2] = part('r1.2.3', 'Client Request: case-0/0a', 40);
    input.parts[4] = part('r1.2', 'Program termination', 754);
    expect(problem(readCounts(input).get(0))).toMatch(/counted 40 instructions in 100 executed basic blocks/);
  });

  it('fails every case when the parts do not add up to the final count, or an open part holds a count moved there', () => {
    const input = honest();
    input.parts[3] = part('r1.2.4', 'Client Request: case-1/0a', 150);
    expect(problem(readCounts(input).get(0))).toMatch(/totals add up to 950, but valgrind's final count is 1000/);
    // Case 0 counted 300,000, of which 20,000 moved to the part of open-1: the sum still holds.
    const moved = honest();
    moved.parts[1] = part('r1.2.2', 'Client Request: open-1', 20_003);
    moved.parts[2] = part('r1.2.3', 'Client Request: case-0/0a', 280_000);
    moved.log = log([0, 1], [100, 200, 250], {collected: 300_700});
    expect(problem(readCounts(moved).get(1))).toMatch(/the part r1\.2\.2 \(open-1\) holds 20003 instructions, at most 10000/);
  });

  it('fails every case when a count moved between cases (their instructions per block drift apart)', () => {
    const input = honest();
    input.parts[2] = part('r1.2.3', 'Client Request: case-0/0a', 100);
    input.parts[3] = part('r1.2.4', 'Client Request: case-1/0a', 400);
    expect(problem(readCounts(input).get(0))).toMatch(/instructions per executed basic block range from 1\.00 to 8\.00, more than 3 times apart/);
    expect(problem(readCounts(input).get(1))).toMatch(/range from 1\.00 to 8\.00/);
  });

  it('fails on a forged extra part file, a part whose trigger is not its case, and a held byte that changed after the count closed', () => {
    const extra = honest();
    extra.parts.push(part('r1.2.7', 'Client Request: case-0/0a', 1));
    expect(problem(readCounts(extra).get(0))).toMatch(/unexpected file r1\.2\.7/);
    const swapped = honest();
    swapped.parts[2] = part('r1.2.3', 'Client Request: case-1/0a', 300);
    expect(problem(readCounts(swapped).get(0))).toMatch(/r1\.2\.3 is not the dump of case 0/);
    const foreign = honest();
    foreign.parts.push(part('r1.3', 'Program termination', 5));
    expect(problem(readCounts(foreign).get(1))).toMatch(/unexpected file r1\.3/);
    const held = {
      ...honest(),
      held: new Map([
        [0, 0x0a],
        [1, 0x41],
      ]),
    };
    expect(readCounts(held).get(0)).toEqual({instructions: 300, blocks: 100});
    expect(problem(readCounts(held).get(1))).toMatch(/the answer to case 1 ends in byte 0x41, but 0x0a when its count was closed/);
  });

  it('fails every case when valgrind wrote no final count (the runner did not exit normally: nothing checked the parts)', () => {
    const input = honest();
    input.log = input.log
      .split('\n')
      .filter((line) => !line.includes('Collected'))
      .join('\n');
    expect(problem(readCounts(input).get(0))).toMatch(/no final count \("Collected :"\): the runner did not exit normally/);
    expect(problem(readCounts(input).get(1))).toMatch(/no final count/);
  });

  it('a missing closing dump voids the case; a log without a Command: line voids every case', () => {
    const input = honest();
    input.cases = [0, 1, 2];
    expect(problem(readCounts(input).get(2))).toMatch(/case 2 has no closing dump/);
    expect(problem(readCounts({...honest(), log: 'nothing'}).get(1))).toMatch(/valgrind wrote no log/);
  });
});

describe('crossCheck (instructions against CPU time)', () => {
  it(`passes what honest runs show (up to ~19x more instruction speedup than CPU speedup), fails more than ${maxSpeedupExcess}x`, () => {
    const reference = {instructions: 23_000_000, cpuSeconds: 0.15};
    expect(crossCheck(reference, {instructions: 370_000, cpuSeconds: 0.04})).toBeUndefined();
    expect(crossCheck(reference, {instructions: 2_500_000, cpuSeconds: 0.25})).toBeUndefined();
    expect(crossCheck(reference, {instructions: 23_000, cpuSeconds: 0.16})).toMatch(
      /instruction speedup \(1\.00e\+3\) is 1\.07e\+3 times its CPU-time speedup \(0\.938\), more than 100: work ran that the count does not show/,
    );
    expect(crossCheck(reference, {instructions: 23_000, cpuSeconds: 0})).toBeUndefined();
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

/** Evaluate the fixture's own solution (its plan's text replaced as `plan` says); the report and the streams. */
function evalEntry(env: Record<string, string> = {}, plan?: Record<string, string>) {
  const dir = path.join(tempDir(), 'prefix-instructions');
  cpSync(entry, dir, {recursive: true});
  if (plan) rewritePlan(dir, plan);
  const json = path.join(path.dirname(dir), 'report.json');
  const result = runCli(['benchmark', 'eval', dir, 'dev', '--json-file', json], {env: {...process.env, ...env}});
  return {...result, report: JSON.parse(readFileSync(json, 'utf8'))};
}

/** The adversaries that reach the counter from inside the solution, and the reason each one's case fails for. */
const adversaries: Array<[string, RegExp]> = [
  ['valgrind-zero.py', /costs were zeroed/],
  ['valgrind-stop.py', /instrumentation was switched off/],
  ['valgrind-toggle.py', /a client request the runner did not issue/],
  ['valgrind-call.py', /a client request the runner did not issue: .*VALGRIND_NON_SIMD_CALL/],
  ['valgrind-parts.py', /the part \S+ \(open-\d+\) holds \d+ instructions, at most 10000/],
  ['valgrind-fork.py', /a second process \(pid \d+\) ran under the counter/],
  ['valgrind-exec.py', /a second process \(pid \d+\) ran under the counter|unexpected file/],
];

describe.skipIf(!hasValgrind || !sandboxed)('the instructions clock under valgrind, in the sandbox', () => {
  let baseline = 0;

  it("scores with counts: each a whole number, a case slot's counts close over its fresh draws (the work depends on N alone), the score precise", () => {
    const first = evalEntry();
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^score: \S+\n$/);
    expect(first.stderr).toMatch(/^note: the instructions clock counts inside the solution's own process.*confirm a gain on the cpu clock$/m);
    const {report} = first;
    expect(report.clock).toBe('instructions');
    // Counts are deterministic per case, and every repetition draws fresh cases: the interval is as narrow as the
    // draws make it (the prefix loop's work depends on N alone), though from 2 repetitions it is not yet trusted.
    expect(report.seeds.source).toBe('fresh');
    expect(report.precision.halfWidth).toBeLessThan(report.precision.target);
    const spread = (counts: number[]) => Math.max(...counts) / Math.min(...counts) - 1;
    for (const c of report.points[0].cases) {
      const counts = c.repetitions.map((r: {instructions: number}) => r.instructions);
      expect(counts.every((n: number) => Number.isInteger(n) && n > 0)).toBe(true);
      expect(spread(counts)).toBeLessThan(0.005);
      expect(spread(c.referenceRepetitions)).toBeLessThan(0.005);
      expect(c.repetitions[0].cpuSeconds).toBeGreaterThan(0);
      // A case's figure on this clock is the median of its counts over the repetitions.
      const sorted = [...counts].sort((a, b) => a - b);
      const middle = sorted.length >> 1;
      expect(c.seconds).toBe(sorted.length % 2 ? sorted[middle] : (sorted[middle - 1]! + sorted[middle]!) / 2);
    }
    baseline = Number(first.stdout.slice(7));
    expect(baseline).toBeGreaterThan(1);
  }, 300_000);

  // The adversaries and valgrind-gc.py are the sides of one eval: the same cases and reference run, the counter's
  // probe and the makes paid once, each side's run and report its own. One repetition: each adversary fails it, and
  // counts are deterministic, so valgrind-gc.py's one repetition gives its worth.
  describe('solutions that reach the counter, as the sides of one eval', () => {
    let sides = new Map<string, Side>();
    beforeAll(async () => {
      // A wide kill limit: under valgrind a second process starts slowly (about 2 s for valgrind-exec.py's
      // interpreter, against the reference's 0.5 s), and on a loaded machine the case must fail for its trace, not its time.
      ({sides} = await evaluateSides('prefix-instructions', [...adversaries.map(([solution]) => solution), 'valgrind-gc.py'], {
        plan: {'repetitions = 2\n': 'repetitions = 2\ntimeout_factor = 100\n'},
        planOverride: {repetitions: 1, maxSeconds: 0},
      }));
    }, 600_000);

    it.each(adversaries)('%s fails its case with the reason', (solution, reason) => {
      const {score, report} = sides.get(solution)!;
      expect(score).toBe(0);
      expect(report.points[0].cases[0]).toMatchObject({status: 'tampered', note: expect.stringMatching(reason)});
      // A fresh case names its seed (dev), which makes it again; the score line's reason (`score is 0.0: <failure>`) is its own.
      expect(report.failure).toMatch(/^case 0 \(seed \d+\): tampered \(instructions clock: /);
      expect(report.failure).toMatch(reason);
      if (baseline) expect(score).toBeLessThanOrEqual(baseline);
    });

    it('valgrind-gc.py finds no case before its count opens: its gc callback computes nothing uncounted, and it scores what its Python loop is worth', () => {
      // With the runner that collected garbage between a case's delivery and its count, this solution scored 78 (its loop: 1.0).
      const {score, report} = sides.get('valgrind-gc.py')!;
      expect(report.points[0].cases.map((c: {status: string; passed: boolean}) => [c.status, c.passed])).toEqual([
        ['ok', true],
        ['ok', true],
      ]);
      expect(score).toBeGreaterThan(0.5);
      expect(score).toBeLessThan(1.5);
    });
  });

  it('falls back to the cpu clock, once on stderr and in the report, where valgrind is missing', () => {
    // No budget past the plan's 2 repetitions: the fallback is what is checked, not the score's precision.
    const {code, stdout, stderr, report} = evalEntry({ARBOR_VALGRIND: '/nonexistent/valgrind'}, {'max_seconds = 10 ': 'max_seconds = 0 '});
    expect(code).toBe(0);
    expect(stdout).toMatch(/^score: \S+\n$/);
    expect(report.clock).toMatch(/^(cpu|wall)$/);
    expect(report.clockNote).toMatch(/valgrind is not installed.*so the instructions clock fell back to the (cpu|wall) clock/);
    expect(stderr.match(/fell back/g)).toHaveLength(1);
    expect(report.points[0].cases[0].repetitions[0].instructions).toBeUndefined();
    expect(report.repetitions).toBe(2);
  }, 120_000);
});
