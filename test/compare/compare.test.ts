// `arbor benchmark compare`: two solutions in one eval, the verdict, the ledger and the gate package.
import {spawnSync} from 'node:child_process';
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {cgroupsWork, createGroup} from '../../lib/sandbox/cgroup.js';
import {fixtures, runCli, runCliAsync, tempDir} from '../helpers/cli.js';

const speed = path.join(fixtures, 'eval/prefix-speed');
const accuracy = path.join(fixtures, 'eval/accuracy-abs');
const minimize = path.join(fixtures, 'eval/accuracy-minimize');
const solutions = path.join(fixtures, 'compare');
const baseline = path.join(speed, 'solution.py');
const slow = path.join(solutions, 'slow.py');
const reference = path.join(fixtures, 'gate/agent_gate_reference.py');

/** Whether a cgroup made here can be frozen (so an eval keeps its runs across repetitions). */
function keptRunsHere(): boolean {
  if (!cgroupsWork()) return false;
  const group = createGroup();
  group?.destroy();
  return group?.canFreeze === true;
}

/** A private ledger for one test. */
function ledgerEnv(): NodeJS.ProcessEnv {
  return {ARBOR_LEDGER: path.join(tempDir(), 'runs.db')};
}

function compare(args: string[], env: NodeJS.ProcessEnv = ledgerEnv()) {
  const dir = tempDir();
  const json = path.join(dir, 'compare.json');
  const result = runCli(['benchmark', 'compare', ...args, '--json-file', json, '--quiet'], {env});
  return {result, report: result.code === 0 ? JSON.parse(readFileSync(json, 'utf8')) : undefined, dir};
}

/** `compare` without blocking, for compares no timing decides (accuracy): two go side by side, each eval leasing a CPU. */
async function compareAsync(args: string[], env: NodeJS.ProcessEnv = ledgerEnv()) {
  const json = path.join(tempDir(), 'compare.json');
  const result = await runCliAsync(['benchmark', 'compare', ...args, '--json-file', json, '--quiet'], {env});
  return {result, report: result.code === 0 ? JSON.parse(readFileSync(json, 'utf8')) : undefined};
}

/** The reference gate's stdout and exit code on a package folder. */
function referenceGate(dir: string): {stdout: string; code: number | null} {
  const run = spawnSync(
    'python3',
    [reference, '--spec', 'benchmark_spec.json', '--cases', 'benchmark_cases.json', '--results', 'benchmark_results.json', '--candidate', 'candidate'],
    {cwd: dir, encoding: 'utf8'},
  );
  return {stdout: run.stdout, code: run.status};
}

function arborGate(dir: string): {stdout: string; code: number | null} {
  const run = runCli(
    [
      'benchmark',
      'gate',
      '--spec',
      'benchmark_spec.json',
      '--cases',
      'benchmark_cases.json',
      '--results',
      'benchmark_results.json',
      '--candidate',
      'candidate',
    ],
    {cwd: dir},
  );
  return {stdout: run.stdout, code: run.code};
}

/**
 * A locked copy of the speed fixture whose plan.toml sets `settings` instead of its own values
 * (each key must be a line of the fixture's plan, so a renamed setting fails here, not silently).
 */
function speedCopy(settings: Record<string, number>): string {
  const copy = path.join(tempDir(), 'prefix');
  cpSync(speed, copy, {recursive: true});
  const plan = path.join(copy, 'plan.toml');
  let text = readFileSync(plan, 'utf8');
  for (const [key, value] of Object.entries(settings)) {
    const line = new RegExp(`^${key} = [\\d.]+`, 'm');
    expect(text, `plan.toml sets ${key}`).toMatch(line);
    text = text.replace(line, `${key} = ${value}`);
  }
  writeFileSync(plan, text);
  expect(runCli(['benchmark', 'lock', copy]).code).toBe(0);
  return copy;
}

// Each compare is a whole eval of two solutions: give them room on a loaded machine.
describe('arbor benchmark compare (speed)', {timeout: 240_000}, () => {
  it('says better for a faster correct candidate, writes a package the gate PASSes (reference and arbor byte-identical), and records the compare', () => {
    const env = ledgerEnv();
    const pkg = path.join(tempDir(), 'package');
    // The test split has two points, each stopping its repetitions on its own.
    const {result, report} = compare([speed, slow, baseline, '--split', 'test', '--package', pkg], env);
    expect(result.code, result.stderr).toBe(0);
    expect(report).toMatchObject({verdict: 'better', pairing: 'paired', split: 'test', metric: 'speedup', correctness: []});
    expect(report.ratio).toBeGreaterThan(1);
    expect(report.ci[0]).toBeGreaterThan(1);
    expect(report.ci[0]).toBeLessThanOrEqual(report.ratio);
    expect(report.ci[1]).toBeGreaterThanOrEqual(report.ratio);
    expect(report.cases).toHaveLength(6);
    for (const c of report.cases) expect(c.ratio).toBeGreaterThan(1);
    expect(report.environment.fingerprint).toMatch(/\S/);
    // Both sides ran in the same eval: the same number of repetitions, each with its own score.
    expect(report.reports.baseline.repetitions).toBe(report.reports.candidate.repetitions);
    expect(report.candidate.score).toBeGreaterThan(report.baseline.score);
    // Two repetitions (max_seconds = 0): too few for the confidence sequence, so the bootstrap interval's verdict.
    expect(report.sequence).toBeUndefined();
    expect(result.stdout).toMatch(/^verdict: better \(ratio [\d.]+, 95% interval \[[\d.]+, [\d.]+\]: the ratio's 95% interval lies above 1\)$/m);
    // On a failure, the gate's reasons say which gate the package missed.
    expect(result.stdout, readFileSync(path.join(pkg, 'gate_decision.json'), 'utf8')).toContain(
      `gate: PASS (all frozen benchmark gates passed); package in ${pkg}\n`,
    );

    const python = referenceGate(pkg);
    expect(python.code).toBe(0);
    expect(JSON.parse(python.stdout).action).toBe('PASS');
    expect(arborGate(pkg)).toEqual(python);
    expect(readFileSync(path.join(pkg, 'gate_decision.json'), 'utf8')).toBe(python.stdout);

    // The package's shape: one critical private test task per case, placeholders for train and development.
    const cases = JSON.parse(readFileSync(path.join(pkg, 'benchmark_cases.json'), 'utf8')).cases;
    expect(cases.filter((c: {split: string}) => c.split === 'test').map((c: {id: string; critical: boolean}) => [c.id, c.critical])).toEqual(
      ['p0:c0', 'p0:c1', 'p0:c2', 'p1:c0', 'p1:c1', 'p1:c2'].map((id) => [`test:${id}`, true]),
    );
    expect(cases.map((c: {split: string}) => c.split).sort()).toEqual(['development', 'development', ...Array(6).fill('test'), 'train', 'train']);
    const spec = JSON.parse(readFileSync(path.join(pkg, 'benchmark_spec.json'), 'utf8'));
    // Trials: the repetitions every case has (the point that stopped first).
    expect(spec.protocol.trial_count).toBe(Math.max(2, Math.min(...report.reports.candidate.points.map((p: {repetitions: number}) => p.repetitions))));
    expect(spec.protocol.environment_id).toBe(report.environment.fingerprint);
    expect(spec.gates.critical_task_min_trial_success_rate).toBe(1);
    // Latency is the time on the eval's clock (CPU where a cgroup per run can be made: always as root,
    // as CI runs; an ordinary user without a delegated cgroup gets the wall clock, and the report says so),
    // so a wall-clock preemption cannot turn PASS into REVIEW.
    expect(report.clock).toBe(process.getuid?.() === 0 || !report.reports.candidate.clockNote ? 'cpu' : 'wall');
    const results = JSON.parse(readFileSync(path.join(pkg, 'benchmark_results.json'), 'utf8'));
    const candidateRecords = results.systems.find((s: {role: string}) => s.role === 'candidate').records;
    const firstCase = report.reports.candidate.points[0].cases[0];
    const onClock = report.clock === 'cpu' ? firstCase.repetitions[0].cpuSeconds : firstCase.repetitions[0].seconds;
    expect(candidateRecords[0]).toMatchObject({case_id: 'test:p0:c0', trial_id: 1, latency_ms: onClock * 1000});
    if (report.clock === 'cpu') expect(firstCase.repetitions[0].cpuSeconds).not.toBe(firstCase.repetitions[0].seconds);

    const runs = JSON.parse(runCli(['benchmark', 'runs', '--json'], {env}).stdout).runs;
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({kind: 'compare', split: 'test', compare: {verdict: 'better', baselineSha256: report.baseline.solutionSha256}});
    expect(runs[0].compare.ratio).toBeCloseTo(report.ratio, 12);
    expect(runs[0].solutionSha256).toBe(report.candidate.solutionSha256);
  });

  it("names the compare's budget the same way in its opening line and its precision warning: 1.5 x max_seconds for two sides", () => {
    const result = runCli(['benchmark', 'compare', speed, baseline, baseline, '--split', 'dev'], {env: ledgerEnv()});
    expect(result.code, result.stderr).toBe(0);
    // prefix-speed's plan: max_seconds = 0, two repetitions and no more.
    expect(result.stderr).toMatch(/^eval prefix-speed dev \(baseline vs candidate\): .*, 2\+ repetitions to ±5% \(budget 0 s: 1\.5 x max_seconds = 0\),/m);
    // Two repetitions are too few to trust an interval: both sides warn, naming the same budget.
    const warnings = result.stderr.split('\n').filter((l) => /^warning: .*precision target/.test(l));
    expect(warnings).toHaveLength(2);
    for (const line of warnings) expect(line).toContain('the budget (0 s: 1.5 x plan.toml max_seconds = 0, for 2 sides) ended');
    expect(result.stderr).not.toMatch(/\(budget \d+ s\)/);
  });

  it('says worse for a candidate that fails a case, lists the case, and the package BLOCKs in both gates', () => {
    const pkg = path.join(tempDir(), 'package');
    const {result, report} = compare([speed, baseline, path.join(solutions, 'wrong.py'), '--package', pkg]);
    expect(result.code).toBe(0);
    expect(report).toMatchObject({verdict: 'worse', ratio: 0, correctness: [{point: 0, i: 0, failing: 'candidate'}]});
    expect(result.stdout).toContain('p0 #0: fails in the candidate');
    expect(result.stdout).toMatch(/^gate: BLOCK \(critical task failure\(s\): test:p0:c0\); package in /m);
    const python = referenceGate(pkg);
    expect(python.code).toBe(1);
    expect(JSON.parse(python.stdout).action).toBe('BLOCK');
    expect(arborGate(pkg)).toEqual(python);
  });

  it('says worse for a slower candidate given as a git revision, and states uncommitted changes', () => {
    const repo = tempDir();
    cpSync(speed, repo, {recursive: true});
    const git = (...args: string[]) => {
      const run = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {cwd: repo, encoding: 'utf8'});
      expect(run.status, run.stderr).toBe(0);
      return run.stdout.trim();
    };
    git('init', '-q');
    git('add', '-A');
    git('commit', '-qm', 'baseline');
    const first = git('rev-parse', 'HEAD');
    writeFileSync(path.join(repo, 'solution.py'), readFileSync(slow));
    git('commit', '-qam', 'slower');
    // The working tree's solution differs from both commits.
    writeFileSync(path.join(repo, 'solution.py'), `${readFileSync(slow, 'utf8')}\n# edited\n`);
    const {result, report} = compare([repo, first, 'HEAD']);
    expect(result.code, result.stderr).toBe(0);
    expect(report.verdict).toBe('worse');
    expect(report.ci[1]).toBeLessThan(1);
    expect(report.baseline.description).toBe(`${first} (commit ${first.slice(0, 12)})`);
    expect(report.candidate.description).toMatch(/^HEAD \(commit [0-9a-f]{12}\)$/);
    // The candidate ran what HEAD holds, not the edited working tree: its digest is that of the committed slow.py.
    const tree = compare([repo, first, path.join(repo, 'solution.py'), '--split', 'dev']).report;
    expect(tree.candidate.description).toMatch(/\(file, uncommitted changes\)$/);
    expect(tree.candidate.solutionSha256).not.toBe(report.candidate.solutionSha256);
  });

  it('reuses a recorded baseline run (--baseline-run), and a package against a run from another environment is INCOMPARABLE', async () => {
    const env = ledgerEnv();
    expect(runCli(['benchmark', 'eval', speed, 'dev', '--quiet'], {env}).code).toBe(0);
    const [run] = JSON.parse(runCli(['benchmark', 'runs', '--json'], {env}).stdout).runs;
    const same = compare([speed, slow, '--baseline-run', String(run.id)], env);
    expect(same.result.code, same.result.stderr).toBe(0);
    expect(same.report).toMatchObject({verdict: 'worse', pairing: 'unpaired', baseline: {run: run.id, argument: `run ${run.id}`}});
    expect(same.report.reports.baseline).toBeNull();
    // Measured at least as many times as the recorded baseline.
    expect(same.report.repetitions).toBeGreaterThanOrEqual(run.cases[0].repetitions.length);

    // The same run, as if recorded on another machine.
    const {default: Database} = await import('better-sqlite3');
    const db = new Database(env.ARBOR_LEDGER!);
    db.prepare("UPDATE runs SET env_fingerprint = 'elsewhere', environment = json_set(environment, '$.fingerprint', 'elsewhere') WHERE id = ?").run(run.id);
    db.close();
    const pkg = path.join(tempDir(), 'package');
    const other = compare([speed, baseline, '--baseline-run', String(run.id), '--package', pkg], env);
    expect(other.result.code, other.result.stderr).toBe(0);
    expect(other.result.stdout).toMatch(/^note: ledger run \d+ was measured in another environment \(elsewhere\)/m);
    expect(other.result.stdout).toMatch(/^gate: INCOMPARABLE \(run protocol does not match frozen benchmark protocol\); package in /m);
    const python = referenceGate(pkg);
    expect(JSON.parse(python.stdout).action).toBe('INCOMPARABLE');
    expect(arborGate(pkg)).toEqual(python);
  });
});

describe('arbor benchmark compare --baseline-run on an edited ledger', () => {
  it('refuses a recorded case whose repetition time is not a number, naming the run, the case and the repetition', async () => {
    const env = ledgerEnv();
    expect(runCli(['benchmark', 'eval', speed, 'dev', '--quiet'], {env}).code).toBe(0);
    const [run] = JSON.parse(runCli(['benchmark', 'runs', '--json'], {env}).stdout).runs;
    // The ledger is a file an agent may write: a baseline time turned into text, as arithmetic would coerce it.
    const {default: Database} = await import('better-sqlite3');
    const db = new Database(env.ARBOR_LEDGER!);
    db.prepare("UPDATE runs SET cases = json_set(cases, '$[0].repetitions[0].seconds', '1e-9') WHERE id = ?").run(run.id);
    db.close();
    const {result} = compare([speed, slow, '--baseline-run', String(run.id)], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^arbor: .*ledger run ${run.id}: case 0 has a malformed repetition 0`, 'm'));
  });
});

describe('arbor benchmark compare (accuracy and usage)', () => {
  it('compares accuracy entries per case: worse for a weaker candidate, same for itself; a partial-credit case is scored, never a failure', async () => {
    const [weaker, itself] = await Promise.all([
      compareAsync([accuracy, path.join(accuracy, 'solution.py'), path.join(solutions, 'zeros-abs.py')]),
      compareAsync([accuracy, path.join(accuracy, 'solution.py'), path.join(accuracy, 'solution.py')]),
    ]);
    expect(weaker.result.code, weaker.result.stderr).toBe(0);
    // No case can be perfect on either side (rounded and zero answers): none "fails", each is worse for the candidate.
    expect(weaker.report).toMatchObject({verdict: 'worse', metric: 'accuracy', correctness: []});
    expect(weaker.report.cases.map((c: {outcome: string}) => c.outcome)).toEqual(['worse', 'worse']);
    expect(weaker.result.stdout).not.toMatch(/fails/);
    expect(weaker.result.stdout).toContain(
      'per case: the candidate scores better on 0, worse on 2 and the same on 0 of 2 case(s) (an imperfect score is partial credit, not a failure)',
    );
    expect(weaker.report.ratio).toBeLessThan(1);
    expect(weaker.report.ratio).toBeCloseTo(weaker.report.candidate.score / weaker.report.baseline.score, 12);
    expect(itself.report).toMatchObject({verdict: 'same', ratio: 1, ci: [1, 1], correctness: []});
    expect(itself.result.stdout).toContain('better on 0, worse on 0 and the same on 2 of 2 case(s)');
  });

  it('under direction = "minimize" a lower score is better: the ratio is baseline over candidate, and a crash scores fail_score, not 0.0', {
    timeout: 240_000,
  }, async () => {
    const [finer, crash] = await Promise.all([
      compareAsync([minimize, path.join(minimize, 'solution.py'), path.join(solutions, 'finer-abs.py')]),
      compareAsync([minimize, path.join(minimize, 'solution.py'), path.join(solutions, 'crash-abs.py')]),
    ]);
    expect(finer.result.code, finer.result.stderr).toBe(0);
    expect(finer.report).toMatchObject({verdict: 'better', metric: 'accuracy'});
    // Rounding to 3 decimals instead of 2: a tenth of the largest error, a ratio of about 10.
    expect(finer.report.candidate.score).toBeLessThan(finer.report.baseline.score);
    expect(finer.report.ratio).toBeCloseTo(finer.report.baseline.score / finer.report.candidate.score, 12);
    expect(finer.report.ratio).toBeGreaterThan(5);
    expect(finer.report.ci[0]).toBeGreaterThan(1);
    for (const c of finer.report.cases) expect(c.ratio).toBeGreaterThan(5);
    expect(crash.result.code, crash.result.stderr).toBe(0);
    expect(crash.report).toMatchObject({
      verdict: 'worse',
      candidate: {score: 1},
      correctness: [
        {point: 0, i: 0, failing: 'candidate'},
        {point: 0, i: 1, failing: 'candidate'},
      ],
    });
    expect(crash.result.stdout).toMatch(/p0 #0 +0\.00499\d +1\.000 \(crashed\)/);
    expect(crash.result.stdout).toContain(
      "cases without a scorable answer (scored as the plan's fail_score):\n  p0 #0: the candidate crashed\n  p0 #1: the candidate crashed\n",
    );
    // Under minimize the finer candidate's lower errors are better on every case.
    expect(finer.result.stdout).toContain('better on 2, worse on 0 and the same on 0 of 2 case(s)');
    expect(crash.report.candidate.failure).toBeUndefined();
    expect(crash.report.ratio).toBeLessThan(1);
  });

  it('refuses --package for an accuracy entry before running anything (exit 2)', () => {
    const result = runCli(['benchmark', 'compare', accuracy, 'solution.py', 'solution.py', '--package', tempDir()], {env: ledgerEnv()});
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^arbor: --package: eval_abs is an accuracy benchmark; .* compare it without --package\n$/);
  });

  it('stops on its confidence sequence from 5 repetitions: worse for a slower candidate once the sequence excludes 1, with the pairs it took', () => {
    // A copy of the fixture that makes 5 repetitions (its fewest) and may make more, up to 30 s of them.
    const copy = speedCopy({repetitions: 5, max_seconds: 20});
    const {result, report} = compare([copy, path.join(copy, 'solution.py'), slow]);
    expect(result.code, result.stderr).toBe(0);
    expect(report.verdict).toBe('worse');
    expect(report.sequence).toMatchObject({decision: 'different', band: [1 / 1.05, 1.05]});
    expect(report.pairedBy).toBe('run');
    expect(report.sequence.interval[1]).toBeLessThan(1);
    // It stopped once the sequence decided (from the plan's fewest), before its budget: 3 cases a repetition.
    expect(report.repetitions).toBeGreaterThanOrEqual(5);
    expect(report.precision.reached).toBe(true);
    expect(report.sequence.pairs).toBe(3 * report.repetitions);
    // A fresh run of each side (and of the reference) every repetition: a compare's sequence takes its repetitions as independent.
    expect(report.sequence.repetitionsPerRun).toBe(1);
    // (one more when the next repetition's first run had started ahead as the sequence decided)
    expect(report.reports.candidate.runs).toBeGreaterThanOrEqual(3 * report.repetitions);
    expect(result.stdout).toMatch(
      new RegExp(
        `^verdict: worse \\(ratio [\\d.]+, 95% interval \\[[\\d.]+, [\\d.]+\\]: the ratio's 97.5% confidence sequence \\[[\\d.]+, [\\d.]+\\] lies below 1 \\(after ${report.sequence.pairs} pairs\\)\\)$`,
        'm',
      ),
    );
  });

  it('takes a closing look when the budget ends the repetitions before the sequence decides: its interval in the JSON, its decision the verdict', () => {
    // 5 repetitions and no more (max_seconds = 0), and a band of ±0.1% no sequence of 5 lies inside: the sequence stays undecided.
    const copy = speedCopy({repetitions: 5, precision: 0.001});
    const identical = path.join(tempDir(), 'identical.py');
    cpSync(path.join(copy, 'solution.py'), identical);
    const {result, report} = compare([copy, path.join(copy, 'solution.py'), identical]);
    expect(result.code, result.stderr).toBe(0);
    expect(report.repetitions).toBe(5);
    expect(report.precision.reached).toBe(false);
    expect(report.sequence.decision).toBe('undecided');
    const {closing} = report.sequence;
    const [low, high] = closing.interval;
    // A fixed-n interval at 97.5% is narrower than the sequence that holds at every look, and holds the mean of the same observations.
    expect(low).toBeGreaterThan(report.sequence.interval[0]);
    expect(high).toBeLessThan(report.sequence.interval[1]);
    expect(low).toBeLessThan(high);
    const decided = low > 1 || high < 1;
    expect(closing.decision).toBe(decided ? 'different' : 'undecided');
    expect(report.verdict).toBe(!decided ? 'same' : low > 1 ? 'better' : 'worse');
    const shown = `[${low.toPrecision(4)}, ${high.toPrecision(4)}]`;
    expect(report.reason).toContain(decided ? `its closing 97.5% interval ${shown} lies` : `and its closing 97.5% interval ${shown} hold 1`);
    expect(report.reason).toContain(`after ${report.sequence.pairs} pairs`);
  });

  it('pairs case by case with ARBOR_COMPARE_PAIRING=case (where runs are kept): the same verdicts, each case of a repetition on both sides', () => {
    const copy = speedCopy({repetitions: 5, max_seconds: 0});
    const env = {...ledgerEnv(), ARBOR_COMPARE_PAIRING: 'case'};
    const slower = compare([copy, path.join(copy, 'solution.py'), slow], env);
    expect(slower.result.code, slower.result.stderr).toBe(0);
    // Runs are kept (and so paired by case) in the sandbox where a cgroup can be frozen.
    const keeps = slower.report.sandbox === 'bwrap' && keptRunsHere();
    expect(slower.report).toMatchObject({verdict: 'worse', pairing: 'paired', pairedBy: keeps ? 'case' : 'run'});
    expect(slower.report.sequence.interval[1]).toBeLessThan(1);
    expect(slower.report.sequence.pairs).toBe(3 * slower.report.repetitions);
    // Kept runs serve 4 repetitions each: the sequence's spread counts them as correlated.
    expect(slower.report.sequence.repetitionsPerRun).toBe(keeps ? 4 : 1);
    // Every case of every repetition has a time on both sides.
    for (const side of [slower.report.reports.baseline, slower.report.reports.candidate]) {
      for (const c of side.points[0].cases) expect(c.repetitions.map((r: {status: string}) => r.status)).toEqual(Array(slower.report.repetitions).fill('ok'));
    }
    // A side that fails a case still fails it, and the other side's cases go on.
    const wrong = compare([copy, path.join(copy, 'solution.py'), path.join(solutions, 'wrong.py')], env);
    expect(wrong.result.code, wrong.result.stderr).toBe(0);
    expect(wrong.report).toMatchObject({verdict: 'worse', ratio: 0, correctness: [{point: 0, i: 0, failing: 'candidate'}]});
    expect(wrong.report.reports.baseline.failure).toBeUndefined();
  });

  it('refuses an ARBOR_COMPARE_PAIRING it does not know, in one line (exit 2)', () => {
    const result = runCli(['benchmark', 'compare', speed, baseline, slow, '--quiet'], {env: {...ledgerEnv(), ARBOR_COMPARE_PAIRING: 'cases'}});
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('arbor: ARBOR_COMPARE_PAIRING is "cases": set it to case or run, or unset it\n');
  });

  it('says what is wrong with the sides in one line (exit 2)', () => {
    const env = ledgerEnv();
    const cases: Array<[string[], RegExp]> = [
      [[speed, baseline], /^arbor: missing candidate: expected arbor benchmark compare <benchmark> <baseline> <candidate>/],
      [
        [speed, baseline, slow, '--baseline-run', '1'],
        /^arbor: --baseline-run takes the baseline from the ledger: give only the candidate \(got 2 solutions\)\n$/,
      ],
      [[speed, 'no-such-thing', slow], /^arbor: baseline no-such-thing: neither a file, a folder, nor a git revision of the repository holding /],
      [[speed, slow, '--baseline-run', '99'], /^arbor: --baseline-run 99: (no such run|cannot read the ledger)/],
      [[path.join(speed, 'nope'), baseline, slow], /^arbor: benchmark folder .*nope does not exist/],
    ];
    for (const [args, message] of cases) {
      const result = runCli(['benchmark', 'compare', ...args, '--quiet'], {env});
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});
