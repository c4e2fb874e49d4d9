/**
 * The eval pipeline behind `arbor benchmark eval <benchmark> <dev|test>`, as
 * its stages: plan (read plan.toml once, check arbor.lock), prepare (prepare.ts:
 * private snapshots of what runs, the bundle loaded, the sandbox chosen), then for
 * each point make, run and verify (point.ts), and score. Library code: it
 * reports progress through a callback and never prints.
 */
import {readFile, rm, stat} from 'node:fs/promises';
import {rmSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';
import {bundlePythonEnv} from '../bundle/bundle.js';
import type {EvalContext} from './context.js';
import {HarnessError, StaleLockError} from './errors.js';
import {computeLock, lockDifference, readLock} from '../benchmark/lock.js';
import {loadPlan, overridePlan, type Clock, type Plan, type Split} from '../benchmark/plan.js';
import {withHarnessFloor} from './floor.js';
import {prepare} from './prepare.js';
import {maxRepetitions, repetitionBlock, runPoint, type PointOutcome} from './point.js';
import {findPython, killActiveRuns, mountedRootOf, pinCpu, type PinnedCpu, resolvePython} from '../sandbox/index.js';
import {overheadRatio, overheadWarning} from './overhead.js';
import {mean, relativeHalfWidth, repeatInterval, scoreInterval, trustedRepetitions, type PointRatios} from '../stats/index.js';
import {dataFolder, splitPoints, testDataVariable, type PointSource} from './data.js';
import {saltVariable} from './seeds.js';
import {whereText} from './failure.js';
import type {CaseReport, EvalOptions, EvalReport, Planned, PointReport, SideRequest, SidesOptions, SidesOutcome} from './types.js';
import {budgetSeconds} from './runner-path.js';
import {createWorkFolder, keepWorkFolder} from './workspace.js';

/** Run the eval of one split and return the report (throws UsageError / HarnessError when no score can be given). */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  return (await runEvalPlanned(options)).report;
}

/** runEval, with the plan the report was scored under (read once: no caller need read plan.toml again to record it). */
export async function runEvalPlanned(options: EvalOptions): Promise<Planned<EvalReport>> {
  const {solution, ...rest} = options;
  const {reports, plan} = await runSides({...rest, sides: [{label: 'solution', solution}]});
  return {report: reports[0]!, plan};
}

/**
 * Run one or more solutions in one eval: the same cases, the same reference
 * runs, the same clock and sandbox, interleaved per repetition. One report per
 * side; with two speedup sides also their paired ratios (compare).
 */
export async function runSides(options: SidesOptions): Promise<SidesOutcome> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const progress = options.onProgress ?? (() => {});
  // What the eval spends where, the fixed costs before the first timed case included (report.phases).
  const phases: Record<string, number> = {};
  const timed = phaseTimer(phases);
  const {split, dir, sides, plan, filePlan} = await readRequest(options, cwd);
  const folder = dataFolder(plan, split, {data: options.data, env, cwd});
  const sources = await splitPoints(plan, split, folder);
  // A bundle that names its interpreter (`[entry] python`) has its runs made with it too.
  const python = await timed('python', () => resolvePython(findPython(bundlePythonEnv(plan.bundle, env))));
  const visible = folder === undefined ? undefined : mountedRootOf(folder, python);
  if (visible) {
    throw new HarnessError(
      `the ${split} data folder ${folder} lies under ${visible}, which every run sees (read-only): its expected answers would be readable by the solution; keep the data elsewhere (e.g. under /srv or a home folder)`,
      'data-visible',
    );
  }
  const reports = sides.map((side) => blankReport(options, {dir, plan, split, folder, sources}, side));
  const run: SidesRun = {
    plan,
    split,
    sides,
    reports,
    progress,
    elapsed,
    phases,
    // A warning that bears on a side's score: on stderr now, and in its report.
    warn: (each, text) => {
      (each.warnings ??= []).push(text);
      progress('line', `warning: ${text}`);
    },
    share: (fields) => reports.forEach((each) => Object.assign(each, fields)),
  };
  const outcome: SidesOutcome = {reports, plan: filePlan, pairs: [], precise: true, budgetEnded: true};

  // Stage 1: the protected files must be the ones arbor.lock names (lock's own checks run before it vouches for them).
  if (!options.beforeLock) await timed('lock', () => checkLock(run, dir, options.benchmark));

  // One CPU per eval on this host: leased until the eval ends (released in the finally below, or by the kernel with this process).
  const pinned = await timed('lease', () => leaseCpu(run, env));
  const {cpu} = pinned;
  let tmp: string;
  try {
    tmp = await createWorkFolder();
  } catch (error) {
    pinned.lease?.release();
    throw error;
  }
  const untrap = trapSignals(tmp, options.keep);
  try {
    // Stage 2: snapshots, bundle, sandbox, seeds.
    const ctx = await prepare({
      options,
      env,
      plan,
      split,
      sides,
      python,
      cpu,
      tmp,
      report: reports[0]!,
      share: run.share,
      progress,
      timed,
      deadline: () => plan.timeLimit - elapsed(),
    });
    // Described while the runs go (a Python start and a numpy import, outside every run's cgroup).
    const environment = import('../environment.js').then(({describeEnvironment}) => describeEnvironment({python: python.executable, clock: ctx.clock}));
    environment.catch(() => {});
    for (const [s, side] of ctx.sides.entries()) reports[s]!.solutionSha256 = await digestFiles(side.files.dir, plan.editable);
    announce(run, ctx, {dir, cwd, env, folder, sources, minRepetitions: options.minRepetitions});
    // Stage 3: every point, made, run and verified.
    // One scope of the bundle's authored code for the whole eval: a Python bundle's process serves every make,
    // expected answer and verify instead of starting for each, stopped (SIGSTOP) between its calls, so that
    // nothing of it (a BLAS's spinning threads, a thread of the bundle's) runs while cases are timed.
    const points = () => runPoints(run, ctx, sources, outcome);
    const scored = await (ctx.api.withAuthored ? ctx.api.withAuthored(ctx.bundle, points, {stopBetweenCalls: true}) : points());
    run.share({runs: ctx.runCount, ...(ctx.referenceDifferences ? {referenceDifferences: ctx.referenceDifferences} : {})});
    run.share({environment: await environment.catch(() => undefined)});
    // Stage 4: the scores.
    scoreSides(run, ctx, scored);
  } finally {
    pinned.lease?.release();
    untrap();
    run.share({seconds: elapsed(), phases});
    if (options.keep) run.share({kept: await keepWorkFolder(tmp)});
    else await rm(tmp, {recursive: true, force: true}).catch(() => {});
  }
  return outcome;
}

/** The eval's CPU lease (lib/sandbox/pin.ts), and whether and where it pins, in every side's report. */
async function leaseCpu(run: SidesRun, env: NodeJS.ProcessEnv): Promise<PinnedCpu> {
  const pinned = await pinCpu(env, {
    onWait: (text) => run.progress('line', text),
    onWarning: (text) => {
      // A lease taken elsewhere, or none, bears on the times: said once on stderr, and in every side's report.
      run.progress('line', `warning: ${text}`);
      for (const each of run.reports) (each.warnings ??= []).push(text);
    },
  });
  run.share({pinned: pinned.cpu !== undefined, ...(pinned.cpu === undefined ? {} : {cpu: pinned.cpu})});
  return pinned;
}

/** What the stages of runSides share: the request, the reports they fill, and how they speak. */
interface SidesRun {
  plan: Plan;
  split: Split;
  sides: SideRequest[];
  /** One per side, in the sides' order. */
  reports: EvalReport[];
  progress: EvalContext['progress'];
  /** Seconds since the eval started. */
  elapsed: () => number;
  /** Seconds spent so far by phase (report.phases). */
  phases: Record<string, number>;
  /** A warning that bears on a side's score: on stderr now, and in its report. */
  warn: (each: EvalReport, text: string) => void;
  /** Set fields on every side's report. */
  share: (fields: Partial<EvalReport>) => void;
}

/** What a split's cases are: its points, and the folder they come from (a path split) or none (seeds). */
interface SplitCases {
  dir: string;
  plan: Plan;
  split: Split;
  folder: string | undefined;
  sources: PointSource[];
}

/** A side's report before anything ran: score 0.0, no points, the lock not yet read. */
function blankReport(options: SidesOptions, cases: SplitCases, side: SideRequest): EvalReport {
  const {dir, plan, split, folder, sources} = cases;
  return {
    benchmark: dir,
    name: plan.name,
    split,
    metric: plan.metric,
    solution: side.solution ?? side.folder!,
    score: 0,
    seeds: folder
      ? {source: 'files', count: sources.reduce((total, source) => total + source.cases!, 0)}
      : {source: 'published', count: plan[split].seeds.length},
    repetitions: 0,
    sandbox: options.unsandboxed ? 'none' : 'bwrap',
    cgroup: true,
    lock: 'missing',
    pinned: false,
    points: [],
    seconds: 0,
    processSeconds: 0,
  };
}

/** Stage 1: the protected files must be the ones arbor.lock names (a StaleLockError, exit 3, when they are not); no lock is a warning. */
async function checkLock(run: SidesRun, dir: string, benchmark: string): Promise<void> {
  const lock = await readLock(dir);
  if (!lock) {
    run.progress(
      'line',
      `warning: ${path.basename(dir)} has no arbor.lock, so changes to its protected files go unnoticed; write one with 'arbor benchmark lock ${benchmark}'`,
    );
    return;
  }
  const difference = lockDifference(lock, await computeLock(dir, run.plan));
  if (difference) throw new StaleLockError(benchmark, difference);
  run.share({lock: 'ok'});
}

/**
 * Runs live in their own process groups, out of reach of the terminal's
 * Ctrl-C: on an interrupt, kill them and remove the work folder (unless it is
 * kept), then let the signal take its usual course. Returns the undo.
 */
function trapSignals(tmp: string, keep: boolean | undefined): () => void {
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const onSignal = (signal: NodeJS.Signals) => {
    killActiveRuns();
    if (!keep) rmSync(tmp, {recursive: true, force: true});
    for (const name of signals) process.removeListener(name, onSignal);
    process.kill(process.pid, signal);
  };
  for (const name of signals) process.on(name, onSignal);
  return () => {
    for (const name of signals) process.removeListener(name, onSignal);
  };
}

/** EvalContext.timed: run a phase's work and add its seconds to `phases[name]`, whether it succeeds or throws. */
function phaseTimer(phases: Record<string, number>): EvalContext['timed'] {
  return async (name, work) => {
    const start = process.hrtime.bigint();
    try {
      return await work();
    } finally {
      phases[name] = (phases[name] ?? 0) + Number(process.hrtime.bigint() - start) / 1e9;
    }
  };
}

/** The eval's opening line (what runs, on what clock, pinned where, in which sandbox), and the note that a salt does not reach fixed test files. */
function announce(
  run: SidesRun,
  ctx: EvalContext,
  where: {dir: string; cwd: string; env: NodeJS.ProcessEnv; folder: string | undefined; sources: PointSource[]; minRepetitions?: number},
): void {
  const {plan, split, sides, progress, reports} = run;
  const {dir, cwd, env, folder, sources} = where;
  const minimum = Math.max(plan.repetitions, where.minRepetitions ?? 0);
  // A race stops when its verdict is decided, not at the plan's precision (point-run.ts raceLook).
  const goal = ctx.race ? 'until the race against the recorded run decides' : `to ±${100 * plan.precision}%`;
  const speed = plan.metric === 'speedup' ? `, ${ctx.clock} clock, ${minimum}+ repetitions ${goal} (${budgetText(plan, sides.length)})` : '';
  const cases = folder
    ? `${sources.length} work director${sources.length === 1 ? 'y' : 'ies'} (${reports[0]!.seeds.count} case(s)) from ${path.relative(cwd, folder) || folder}`
    : ctx.nonce
      ? `${sources.length} point(s) x ${ctx.seeds.length} fresh case(s) a repetition`
      : `${sources.length} point(s) x ${ctx.seeds.length} ${reports[0]!.seeds.source === 'derived' ? 'salted ' : ''}seed(s)`;
  progress(
    'line',
    `eval ${path.basename(dir)} ${split}${sides.length > 1 ? ` (${sides.map((side) => side.label).join(' vs ')})` : ''}: ${cases}, ` +
      `metric ${plan.metric}${speed}${ctx.cpu !== undefined ? `, pinned to CPU ${ctx.cpu}` : ''}, sandbox ${ctx.sandbox}`,
  );
  if (folder && split === 'test' && env[saltVariable]) {
    progress(
      'line',
      `note: ${saltVariable} does not apply to a path split's fixed files; keep the test data private and point the eval at it with --data DIR or ${testDataVariable}`,
    );
  }
}

/** Per side, what the score's interval rests on: every point's paired ratios, and whether every point reached the precision target. */
interface SidesScored {
  ratios: PointRatios[][];
  precise: boolean[];
}

/** Stage 3: every point made, run and verified, each with an even share of what is left of the budget; once every side failed (speedup), the rest not run. */
async function runPoints(run: SidesRun, ctx: EvalContext, sources: PointSource[], outcome: SidesOutcome): Promise<SidesScored> {
  const {plan, sides, reports, elapsed} = run;
  // The budget bounds the eval's whole time: its set-up before the first point (a wait for a free
  // CPU excepted) and the work after its last repetition come out of it.
  const setUp = elapsed() - (run.phases.lease ?? 0);
  const budgetEnds = elapsed() + Math.max(0, budgetSeconds(plan, sides.length) - setUp - afterLastRepetition);
  const scored: SidesScored = {ratios: sides.map(() => []), precise: sides.map(() => true)};
  const points = sources.map((source) => source.point);
  const failedSide = (each: EvalReport) => each.points.some((p) => p.cases.some((c) => c.status !== 'ok' || !c.passed));
  for (let index = 0; index < points.length; index++) {
    // A speedup score is already 0.0 once a case failed: skip the remaining points (once every side failed).
    if (plan.metric === 'speedup' && reports.every(failedSide)) {
      const cases = Array.from(
        {length: sources[index]!.cases ?? ctx.seeds.length},
        (_, i): CaseReport => ({i, status: 'not-run', passed: false, seconds: null, ratio: 0, repetitions: []}),
      );
      for (const each of reports) each.points.push({index, point: points[index]!, score: 0, cases, repetitions: 0, seconds: 0});
      continue;
    }
    const pointStarted = elapsed();
    // Each point gets an even share of what is left of the budget.
    const budget = Math.max(0, budgetEnds - pointStarted) / (points.length - index);
    // The last point of a speed eval stops once the score's interval is as narrow as the plan asks (runRepetitions).
    const last = index === points.length - 1 && index > 0 && sides.length === 1 && plan.metric === 'speedup';
    const result = await runPoint(ctx, index, sources[index]!, points.length, budget, last ? scored.ratios[0] : undefined);
    outcome.pairs.push(result.pairs);
    outcome.precise &&= result.precise;
    outcome.budgetEnded &&= !result.precise;
    if (ctx.sides.length === 2 && plan.metric === 'speedup') {
      outcome.pairedBy = ctx.pairedByCase ? 'case' : 'run';
      outcome.repetitionBlock = repetitionBlock(ctx);
    }
    if (ctx.race && plan.metric === 'speedup') outcome.repetitionBlock = repetitionBlock(ctx);
    for (const [s, side] of result.sides.entries()) {
      scored.ratios[s]!.push(side.ratios);
      scored.precise[s] &&= result.precise;
      recordPoint(run, s, {index, count: points.length, source: sources[index]!, result, started: pointStarted});
    }
  }
  return scored;
}

/** One side's report of a point that ran: its score, first-case effect and overhead (speedup), and its progress line. */
function recordPoint(run: SidesRun, s: number, at: {index: number; count: number; source: PointSource; result: PointOutcome; started: number}): void {
  const {plan, sides} = run;
  const {index, count, source, result} = at;
  const side = result.sides[s]!;
  const each = run.reports[s]!;
  each.repetitions = Math.max(each.repetitions, result.repetitions);
  const point: PointReport = {
    index,
    point: source.point,
    score: aggregate(plan, side.cases).score,
    cases: side.cases,
    repetitions: result.repetitions,
    seconds: run.elapsed() - at.started,
  };
  if (source.folder) point.folder = source.folder;
  const who = sides.length > 1 ? `${sides[s]!.label} ` : '';
  if (plan.metric === 'speedup') {
    point.firstCase = {solution: side.firstCase, reference: result.referenceFirstCase};
    if (result.overhead) {
      const ratio = overheadRatio(side.cases, result.overhead.seconds);
      point.overhead = {...result.overhead, solutionRatio: ratio};
      const warning = overheadWarning(`point ${index + 1}/${count}`, sides.length > 1 ? sides[s]!.label : 'solution', ratio, result.overhead.seconds);
      if (warning) run.warn(each, warning);
    }
  }
  each.points.push(point);
  // speedup: cases that passed; accuracy: cases whose answer the verifier could score (a NaN or a wrong length cannot be).
  const good =
    plan.metric === 'speedup'
      ? side.cases.filter((c) => c.status === 'ok' && c.passed).length
      : side.cases.filter((c) => c.status === 'ok' || c.status === 'failed').length;
  run.progress(
    'line',
    `point ${index + 1}/${count}: ${who}${plan.metric} ${point.score.toPrecision(4)} (${good}/${side.cases.length} cases ${plan.metric === 'speedup' ? 'passed' : 'with a valid answer'})`,
  );
}

/** Stage 4: each side's score over all its cases, the first failure that forced 0.0, and (speedup) its interval, closing line and precision. */
function scoreSides(run: SidesRun, ctx: EvalContext, scored: SidesScored): void {
  const {plan, sides, progress} = run;
  for (const [s, each] of run.reports.entries()) {
    const {score, failure} = aggregate(
      plan,
      each.points.flatMap((point) => point.cases),
      each.points,
      sides[s]!.solution,
    );
    each.score = score;
    if (failure) each.failure = failure;
    // The harness floor and the ceiling it implies, per point and for the side (speedup only): on every report, CLI, compare or MCP.
    Object.assign(each, withHarnessFloor(each));
    if (plan.metric === 'speedup' && !failure) {
      each.interval = scoreInterval(scored.ratios[s]!, 2000, 1, repetitionBlock(ctx));
      each.repeatInterval = repeatInterval(score, each.interval);
      each.precision = {target: plan.precision, halfWidth: relativeHalfWidth(each.interval, score), reached: scored.precise[s]!};
      const who = sides.length > 1 ? `${sides[s]!.label}: ` : '';
      progress('line', `${who}${closingLine(each, ctx.clock)}`);
      const missed = precisionMissed(each, plan, sides.length);
      if (missed) run.warn(each, `${who}${missed}`);
    }
  }
}

/** The eval's closing line for a speedup score: the score with its interval and what it rests on. */
export function closingLine(report: Pick<EvalReport, 'score' | 'interval' | 'repeatInterval' | 'precision' | 'repetitions'>, clock: Clock | null): string {
  const [low, high] = report.interval!;
  const width = `±${formatPercent(report.precision!.halfWidth)}`;
  const repeat = report.repeatInterval ? `; a repeat eval here: [${report.repeatInterval[0].toPrecision(4)}, ${report.repeatInterval[1].toPrecision(4)}]` : '';
  return `speedup ${report.score.toPrecision(4)}, 95% interval [${low.toPrecision(4)}, ${high.toPrecision(4)}] (${width}; ${report.repetitions} repetition(s), ${clock ?? 'wall'} clock)${repeat}`;
}

/**
 * The budget as the opening line names it: its seconds and how max_seconds gives them
 * (`budget 60 s: 1.5 x max_seconds = 40` for a compare's two sides).
 */
function budgetText(plan: Pick<Plan, 'maxSeconds'>, sides: number): string {
  const factor = (1 + sides) / 2;
  return `budget ${budgetSeconds(plan, sides)} s: ${factor === 1 ? '' : `${factor} x `}max_seconds = ${plan.maxSeconds}`;
}

/** When the interval is wider than the plan's precision: by how much, and what ended the repetitions (the budget as the opening line named it). */
export function precisionMissed(
  report: Pick<EvalReport, 'precision' | 'repetitions'>,
  plan: Pick<Plan, 'precision' | 'maxSeconds'>,
  sides = 1,
): string | undefined {
  const precision = report.precision!;
  if (precision.reached) return undefined;
  const budget =
    sides > 1
      ? `the budget (${budgetSeconds(plan, sides)} s: ${(1 + sides) / 2} x plan.toml max_seconds = ${plan.maxSeconds}, for ${sides} sides)`
      : `the budget (plan.toml max_seconds = ${plan.maxSeconds})`;
  const why = report.repetitions >= maxRepetitions ? `the cap of ${maxRepetitions} repetitions` : budget;
  const factor = precision.halfWidth / precision.target;
  // An interval narrow enough from too few repetitions is not yet trusted (the stopping rule): saying it
  // "missed" a target it is within reads as a contradiction.
  if (factor <= 1 && report.repetitions < trustedRepetitions) {
    return `the precision target was not confirmed: ±${formatPercent(precision.halfWidth)} is within ±${formatPercent(precision.target)} (plan.toml precision = ${plan.precision}), but an interval is trusted only from ${trustedRepetitions} repetitions and ${why} ended them at ${report.repetitions}, so the score is less certain than the plan asks`;
  }
  const short = Number.isFinite(factor) && factor > 1 ? `, ${factor.toFixed(1)}x the target` : '';
  return `the precision target was missed: ±${formatPercent(precision.halfWidth)} against ±${formatPercent(precision.target)} (plan.toml precision = ${plan.precision})${short}; ${why} ended the repetitions, so the score is less certain than the plan asks`;
}

function formatPercent(fraction: number): string {
  return Number.isFinite(fraction) ? `${(100 * fraction).toPrecision(2)}%` : 'unbounded';
}

/**
 * Seconds kept from the budget for what is not repetitions and comes after the set-up: the last
 * repetition's answers verified, the runs closed, the report and the ledger's record written, and
 * the command's own start. On algotune_knn under two busy loops a compare's command took 1.3 s
 * more than its eval's own clock, and with 1.5 s kept the slowest took 60.3 s of a 60 s budget.
 */
const afterLastRepetition = 2;

/** The split, folder, solutions and plan of a request, or the UsageError / HarnessError that says what is wrong. */
async function readRequest(options: SidesOptions, cwd: string): Promise<{split: Split; dir: string; sides: SideRequest[]; plan: Plan; filePlan: Plan}> {
  if (options.split !== 'dev' && options.split !== 'test') {
    throw new UsageError(options.split ? `unknown split "${options.split}": expected dev or test` : 'missing split: expected dev or test', 'usage');
  }
  const dir = path.resolve(cwd, options.benchmark);
  const info = await stat(dir).catch(() => undefined);
  if (!info) throw new UsageError(`benchmark folder ${options.benchmark} does not exist: pass a folder holding plan.toml`, 'not-found');
  if (!info.isDirectory()) throw new UsageError(`${options.benchmark} is a file, not a benchmark folder: pass the folder holding plan.toml`, 'not-found');
  const sides: SideRequest[] = [];
  for (const side of options.sides) {
    if (side.solution !== undefined) {
      const solution = path.resolve(cwd, side.solution);
      if (!(await stat(solution).catch(() => undefined))?.isFile())
        throw new UsageError(`${side.label === 'solution' ? '--solution ' : `${side.label} `}${side.solution}: no such file`, 'not-found');
      sides.push({...side, solution});
    } else if (side.folder !== undefined) {
      const folder = path.resolve(cwd, side.folder);
      if (!(await stat(folder).catch(() => undefined))?.isDirectory()) throw new UsageError(`${side.label} ${side.folder}: no such folder`, 'not-found');
      sides.push({...side, folder});
    } else {
      sides.push(side);
    }
  }
  // Read here once (or by the caller, once): the same plan scores the eval and goes on record with it.
  const filePlan = options.plan ?? (await loadPlan(dir));
  const plan = overridePlan(filePlan, options.planOverride);
  for (const side of sides) {
    if (side.solution === undefined && side.folder === undefined) side.solution = plan.solution;
  }
  for (const side of sides) {
    const file = side.solution ?? path.join(side.folder!, path.relative(plan.dir, plan.solution));
    if (!(await stat(file).catch(() => undefined))?.isFile()) {
      throw new HarnessError(
        `${path.relative(cwd, file) || file}: the ${side.solution === plan.solution ? "plan's " : ''}solution file is missing`,
        'no-solution',
      );
    }
  }
  return {split: options.split, dir, sides, plan, filePlan};
}

/**
 * The score of a list of cases, and the first failure that forced 0.0. A crash says where it was
 * raised, the solution's file named as `solution` (--solution's file) is.
 */
function aggregate(plan: Plan, cases: CaseReport[], points?: PointReport[], solution?: string): {score: number; failure?: string} {
  const where = (bad: CaseReport) => whereText(bad.where, path.basename(plan.solution), solution && path.basename(solution));
  const describe = (bad: CaseReport) => {
    const point = points && points.length > 1 ? ` of point ${JSON.stringify(points.find((p) => p.cases.includes(bad))?.point)}` : '';
    // A fresh case is named by its seed too: `arbor bundle make --seeds <seed>` makes it again.
    const at = `${bad.seed === undefined ? '' : ` (seed ${bad.seed})`}${point}`;
    // A verdict that names its first wrong element says so in words; other failures as before.
    if (bad.failure && (bad.status === 'failed' || bad.status === 'ok')) return `case ${bad.i}${at} failed: ${bad.failure}${bad.note ? `; ${bad.note}` : ''}`;
    const detail = bad.note ?? (bad.metrics ? JSON.stringify(bad.metrics) : undefined);
    return `case ${bad.i}${at}: ${bad.status === 'ok' ? 'failed' : bad.status}${detail ? ` (${oneLine(detail)})` : ''}${where(bad)}`;
  };
  if (plan.metric === 'speedup') {
    const bad = cases.find((c) => c.status !== 'ok' || !c.passed);
    if (bad) return {score: 0, failure: describe(bad)};
  }
  const score = mean(cases.map((c) => c.ratio));
  // An accuracy of 0.0 says why too: the first case that scored nothing (under minimize 0.0 is the best score).
  const nothing = score === 0 && plan.direction !== 'minimize' ? cases.find((c) => c.ratio === 0) : undefined;
  return nothing ? {score, failure: describe(nothing)} : {score};
}

/** A note on one line (an exception's message may run over several). */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** solution_sha256 of the snapshot of the editable files (missing files are left out). */
async function digestFiles(dir: string, files: string[]): Promise<string> {
  const {solutionDigest} = await import('../ledger/digest.js');
  const found: Array<{path: string; bytes: Uint8Array}> = [];
  for (const rel of files) {
    const bytes = await readFile(path.join(dir, rel)).catch(() => undefined);
    if (bytes) found.push({path: rel, bytes});
  }
  return solutionDigest(found);
}
