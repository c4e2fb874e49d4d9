/**
 * The eval pipeline behind `arbor benchmark eval <benchmark> <dev|test>`:
 * for each point of the split, make the cases (without expected/), run the
 * solution (and, for speedup, the reference solver, alternating) through the
 * protected runner, then write expected/, verify every repetition's answers
 * and aggregate one score. Library code: it reports progress through a
 * callback and never prints.
 */
import {cp, mkdir, mkdtemp, rename, rm, stat, writeFile} from 'node:fs/promises';
import {existsSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {UsageError} from '../errors.js';
import type {Bundle, Point, Verdict} from '../bundle/index.js';
import {HarnessError} from './errors.js';
import {loadPlan, type Plan, type PlanPoint, type Split} from './plan.js';
import {findPython, killActiveRuns, runSolution, startFailure, singleThreadEnv, pinnedCpu, type RunOutcome} from './process.js';
import {accuracyRatio, mean, speedupRatio} from './score.js';
import {splitSeeds, warmupSeed} from './seeds.js';
import {pointSignature} from './signature.js';
import {firstDifference, hashTree, keepRegularFiles, type TreeHash} from './tamper.js';

/** The part of the bundle runtime (lib/bundle) the pipeline calls; tests may pass their own. */
export type BundleApi = Pick<typeof import('../bundle/index.js'), 'loadBundle' | 'parsePoint' | 'makeWorkDir' | 'writeExpected' | 'verifyWorkDir'>;

/** Options of runEval. */
export interface EvalOptions {
  /** The benchmark folder (relative to cwd). */
  benchmark: string;
  split: string;
  /** Another solution file in place of the plan's (relative to cwd). */
  solution?: string;
  /** Keep the temporary folder (its path is in the report). */
  keep?: boolean;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Progress: `line` is a finished step; `status` a transient one (for a terminal display). */
  onProgress?: (kind: 'line' | 'status', text: string) => void;
  /** The bundle runtime (defaults to lib/bundle); tests may pass their own. */
  bundleApi?: BundleApi;
}

/** Outcome of one case: ok, or why it failed. */
export type CaseStatus = 'ok' | 'crashed' | 'timeout' | 'no-answer' | 'failed' | 'not-run' | 'tampered';

/** One repetition of one case. */
export interface RepetitionReport {
  seconds: number | null;
  status: CaseStatus;
  passed: boolean;
  note?: string;
}

/** One case of one point. */
export interface CaseReport {
  i: number;
  status: CaseStatus;
  passed: boolean;
  metrics?: Record<string, unknown>;
  note?: string;
  /** Solution time: the minimum over repetitions (null if none finished). */
  seconds: number | null;
  /** speedup: reference time, the minimum over repetitions. */
  referenceSeconds?: number;
  /** speedup: the reference's seconds in each repetition. */
  referenceRepetitions?: number[];
  /** speedup: ref / solution; accuracy: numerator / denominator (0 for a failed case). */
  ratio: number;
  repetitions: RepetitionReport[];
}

/** One point of the split. */
export interface PointReport {
  index: number;
  point: PlanPoint;
  score: number;
  cases: CaseReport[];
  seconds: number;
}

/** The full report (`--json FILE`). */
export interface EvalReport {
  benchmark: string;
  split: Split;
  metric: Plan['metric'];
  solution: string;
  score: number;
  /** Why the score is 0.0 when a failure forced it (first failing case). */
  failure?: string;
  seeds: {source: 'published' | 'derived'; count: number};
  repetitions: number;
  /** The CPU every run was pinned to (taskset), if any. */
  pinned: boolean;
  cpu?: string;
  points: PointReport[];
  /** Wall time of the whole eval. */
  seconds: number;
  /** Wall time spent inside solution and reference processes. */
  processSeconds: number;
  /** Harness time by phase (s): python (checks), load, make, expected, verify, check (tamper hashes). */
  phases?: Record<string, number>;
  /** The temporary folder, when kept. */
  kept?: string;
}

/** Where the protected runner lives: in the package, next to this module's source. */
export function runnerPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // dist/lib/eval -> package root; also works when run from lib/eval directly.
  const candidates = [path.resolve(here, '../../../lib/eval/runner.py'), path.resolve(here, 'runner.py')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new HarnessError(`arbor's runner.py is missing (looked in ${candidates.join(', ')}); reinstall arbor`, 'no-runner');
  return found;
}

async function defaultBundleApi(): Promise<BundleApi> {
  return import('../bundle/index.js');
}

/** Run the eval of one split and return the report (throws UsageError / HarnessError when no score can be given). */
export async function runEval(options: EvalOptions): Promise<EvalReport> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const cwd = options.cwd ?? process.cwd();
  const progress = options.onProgress ?? (() => {});
  if (options.split !== 'dev' && options.split !== 'test') {
    throw new UsageError(
      options.split ? `unknown split "${options.split}": expected dev or test` : 'missing split: expected dev or test',
      'usage',
    );
  }
  const split = options.split;
  const dir = path.resolve(cwd, options.benchmark);
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new UsageError(`benchmark folder ${options.benchmark} does not exist: pass a folder holding plan.toml`, 'not-found');
  let solution: string;
  if (options.solution !== undefined) {
    solution = path.resolve(cwd, options.solution);
    if (!(await stat(solution).catch(() => undefined))?.isFile()) throw new UsageError(`--solution ${options.solution}: no such file`, 'not-found');
  }
  const plan = await loadPlan(dir);
  solution ??= plan.solution;
  if (!(await stat(solution).catch(() => undefined))?.isFile()) {
    throw new HarnessError(`${path.relative(cwd, solution) || solution}: the plan's solution file is missing`, 'no-solution');
  }
  const env = options.env ?? process.env;
  const phases: Record<string, number> = {};
  const timed = async <T>(name: string, work: () => Promise<T> | T): Promise<T> => {
    const start = process.hrtime.bigint();
    try {
      return await work();
    } finally {
      phases[name] = (phases[name] ?? 0) + Number(process.hrtime.bigint() - start) / 1e9;
    }
  };
  const python = findPython(env);
  const cpu = pinnedCpu(env);
  const pinned = cpu !== undefined;
  const childEnv = singleThreadEnv(env);

  const tmp = await mkdtemp(path.join(tmpdir(), 'arbor-eval-'));
  // Runs live in their own process groups, out of reach of the terminal's
  // Ctrl-C: on an interrupt, kill them and remove the work folders, then let
  // the signal take its usual course.
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const onSignal = (signal: NodeJS.Signals) => {
    killActiveRuns();
    if (!options.keep) rmSync(tmp, {recursive: true, force: true});
    for (const name of signals) process.removeListener(name, onSignal);
    process.kill(process.pid, signal);
  };
  for (const name of signals) process.on(name, onSignal);
  const report: EvalReport = {
    benchmark: dir,
    split,
    metric: plan.metric,
    solution,
    score: 0,
    seeds: {source: 'published', count: plan[split].seeds.length},
    repetitions: plan.metric === 'speedup' ? plan.repetitions : 1,
    pinned,
    ...(cpu === undefined ? {} : {cpu}),
    points: [],
    seconds: 0,
    processSeconds: 0,
  };
  try {
    const api = options.bundleApi ?? (await defaultBundleApi());
    // Private snapshots of everything protected: the solution can find them,
    // but any change it makes is detected before the next step reads them.
    const protectedDir = path.join(tmp, 'protected');
    await mkdir(protectedDir);
    const bundleDir = path.join(protectedDir, 'bundle');
    await cp(plan.bundle, bundleDir, {recursive: true, dereference: true});
    const runner = path.join(protectedDir, 'runner.py');
    await cp(runnerPath(), runner);
    let reference: string | undefined;
    if (plan.reference) {
      reference = path.join(protectedDir, 'reference.py');
      await cp(plan.reference, reference);
    }
    let bundle: Bundle;
    try {
      bundle = await timed('load', () => api.loadBundle(bundleDir));
    } catch (error) {
      throw bundleFailure(`cannot load the bundle ${path.relative(cwd, plan.bundle) || plan.bundle}`, error);
    }
    // Load the authored modules now, before any solution runs: the module cache
    // then holds these versions whatever happens to the files later.
    await timed('load', () => preloadAuthored(bundle));
    // Salted test seeds are keyed by the plan's name, else the bundle's spec reference (stable across copies).
    const spec = (bundle as {spec?: unknown}).spec;
    const seedName = plan.named || typeof spec !== 'string' ? plan.name : spec;
    const {seeds, derived} = splitSeeds(plan, split, env, seedName);
    report.seeds.source = derived ? 'derived' : 'published';
    progress(
      'line',
      `eval ${path.basename(dir)} ${split}: ${plan[split].points.length} point(s) x ${seeds.length} ${derived ? 'salted ' : ''}seed(s), ` +
        `metric ${plan.metric}${plan.metric === 'speedup' ? `, ${plan.repetitions} repetition(s)${pinned ? `, pinned to CPU ${cpu}` : ''}` : ''}`,
    );
    const protectedHash = await timed('check', () => hashTree([protectedDir]));
    const context: PointContext = {
      plan,
      api,
      bundle,
      bundleDir,
      runner,
      reference,
      solution,
      python,
      cpu,
      env: childEnv,
      tmp,
      protectedDir,
      protectedHash,
      seeds,
      warmupSeed: warmupSeed(plan, seeds),
      progress,
      report,
      deadline: () => plan.timeLimit - elapsed(),
      timed,
    };
    const points = plan[split].points;
    for (let index = 0; index < points.length; index++) {
      // A speedup score is already 0.0 once a case failed: skip the remaining points.
      if (plan.metric === 'speedup' && report.points.some((p) => p.cases.some((c) => c.status !== 'ok' || !c.passed))) {
        const cases = seeds.map((_, i): CaseReport => ({i, status: 'not-run', passed: false, seconds: null, ratio: 0, repetitions: []}));
        report.points.push({index, point: points[index]!, score: 0, cases, seconds: 0});
        continue;
      }
      const pointStarted = elapsed();
      const cases = await runPoint(context, index, points[index]!, points.length);
      const point: PointReport = {index, point: points[index]!, score: aggregate(plan, cases).score, cases, seconds: elapsed() - pointStarted};
      report.points.push(point);
      const good = plan.metric === 'speedup' ? cases.filter((c) => c.status === 'ok' && c.passed).length : cases.filter((c) => c.status === 'ok' || c.status === 'failed').length;
      progress('line', `point ${index + 1}/${points.length}: ${plan.metric} ${point.score.toPrecision(4)} (${good}/${cases.length} cases ${plan.metric === 'speedup' ? 'passed' : 'answered'})`);
    }
    const all = report.points.flatMap((point) => point.cases);
    const {score, failure} = aggregate(plan, all, report.points);
    report.score = score;
    if (failure) report.failure = failure;
  } finally {
    for (const name of signals) process.removeListener(name, onSignal);
    report.seconds = elapsed();
    report.phases = phases;
    if (options.keep) {
      report.kept = tmp;
    } else {
      await rm(tmp, {recursive: true, force: true}).catch(() => {});
    }
  }
  return report;
}

interface PointContext {
  plan: Plan;
  api: BundleApi;
  bundle: Bundle;
  bundleDir: string;
  runner: string;
  reference?: string;
  solution: string;
  python: string;
  cpu?: string;
  env: NodeJS.ProcessEnv;
  tmp: string;
  protectedDir: string;
  protectedHash: TreeHash;
  seeds: number[];
  warmupSeed: number;
  progress: NonNullable<EvalOptions['onProgress']>;
  report: EvalReport;
  deadline: () => number;
  timed: <T>(name: string, work: () => Promise<T> | T) => Promise<T>;
}

/** The score of a list of cases, and the first failure that forced 0.0. */
function aggregate(plan: Plan, cases: CaseReport[], points?: PointReport[]): {score: number; failure?: string} {
  if (plan.metric === 'speedup') {
    const bad = cases.find((c) => c.status !== 'ok' || !c.passed);
    if (bad) {
      const where = points && points.length > 1 ? ` of point ${JSON.stringify(points.find((p) => p.cases.includes(bad))?.point)}` : '';
      const detail = bad.note ?? (bad.metrics ? JSON.stringify(bad.metrics) : undefined);
      return {score: 0, failure: `case ${bad.i}${where}: ${bad.status === 'ok' ? 'failed' : bad.status}${detail ? ` (${detail})` : ''}`};
    }
    return {score: mean(cases.map((c) => c.ratio))};
  }
  return {score: mean(cases.map((c) => c.ratio))};
}

/** Run one point: make, run, verify. */
async function runPoint(ctx: PointContext, index: number, point: PlanPoint, count: number): Promise<CaseReport[]> {
  const {plan, api, bundle} = ctx;
  const label = `point ${index + 1}/${count} ${JSON.stringify(point)}`;
  const pointDir = path.join(ctx.tmp, 'points', String(index));
  const work = path.join(pointDir, 'work');
  await mkdir(pointDir, {recursive: true});
  let parsed: Point;
  try {
    parsed = api.parsePoint(bundle, point);
  } catch (error) {
    throw new HarnessError(`plan.toml: ${label} does not fit the bundle: ${messageOf(error)}`, 'bad-plan');
  }
  const signature = path.join(pointDir, 'signature.json');
  await writeFile(signature, JSON.stringify(pointSignature(bundle, parsed)));
  ctx.progress('status', `${label}: making ${ctx.seeds.length} case(s)`);
  try {
    const made = await ctx.timed('make', () => api.makeWorkDir(bundle, work, parsed, ctx.seeds, {expected: false}));
    if (made.cases !== ctx.seeds.length) throw new Error(`made ${made.cases} cases, expected ${ctx.seeds.length}`);
  } catch (error) {
    throw bundleFailure(`the bundle failed to make the cases of ${label}`, error);
  }
  if (existsSync(path.join(work, 'expected'))) throw new HarnessError(`the bundle wrote expected/ although asked not to (${label})`, 'bad-bundle');
  let warmupCase: string | undefined;
  if (plan.metric === 'speedup') {
    const warm = path.join(pointDir, 'warmup');
    try {
      await ctx.timed('make', () => api.makeWorkDir(bundle, warm, parsed, [ctx.warmupSeed], {expected: false}));
    } catch (error) {
      throw bundleFailure(`the bundle failed to make the warm-up case of ${label}`, error);
    }
    warmupCase = path.join(warm, 'cases', '000000');
  }
  const pointHash = await ctx.timed('check', () => hashTree([pointDir]));
  const n = ctx.seeds.length;
  const runsDir = path.join(ctx.tmp, 'runs');
  await mkdir(runsDir, {recursive: true});

  const run = async (role: 'solution' | 'reference', rep: number, caseTimeout: (i: number) => number): Promise<RunOutcome & {cwd: string}> => {
    const cwd = path.join(runsDir, `${index}-${role}-${rep}`);
    await mkdir(cwd);
    const caseSum = Array.from({length: n}, (_, i) => caseTimeout(i)).reduce((a, b) => a + b, 0) + (warmupCase ? caseTimeout(-1) : 0);
    const remaining = ctx.deadline();
    if (remaining <= 0) throw new HarnessError(`the eval ran past its time_limit of ${plan.timeLimit} s (plan.toml)`, 'time-limit');
    const outcome = await runSolution({
      python: ctx.python,
      runner: ctx.runner,
      solution: role === 'reference' ? ctx.reference! : ctx.solution,
      manifest: path.join(work, 'manifest.json'),
      cases: path.join(work, 'cases'),
      signature,
      cwd,
      warmup: warmupCase,
      caseCount: n,
      initTimeout: plan.initTimeout,
      caseTimeout,
      totalTimeout: Math.min(2 * plan.initTimeout + caseSum, remaining),
      pin: ctx.cpu,
      env: ctx.env,
    });
    ctx.report.processSeconds += outcome.wallSeconds;
    if (!outcome.started) throw startFailure(ctx.python, outcome);
    return {...outcome, cwd};
  };

  const solutionRuns: Array<{outcome: RunOutcome & {cwd: string}; statuses: RepetitionReport[]; outHash?: TreeHash}> = [];
  const referenceBest = new Array<number>(n).fill(Infinity);
  const referenceTimes: number[][] = [];
  const limitFor = (i: number): number => {
    if (plan.metric !== 'speedup') return plan.timeout;
    // The warm-up absorbs first-call costs (JIT compiles, caches): untimed, limited like start-up.
    if (i < 0) return plan.initTimeout;
    const base = referenceBest[i];
    // A case index the runner should not report (forged event) gets the generous default.
    if (base === undefined || !Number.isFinite(base)) return plan.timeout;
    return Math.max(plan.minTimeout, plan.timeoutFactor * base);
  };
  const repetitions = plan.metric === 'speedup' ? plan.repetitions : 1;
  for (let rep = 0; rep < repetitions; rep++) {
    if (plan.metric === 'speedup') {
      ctx.progress('status', `${label}: repetition ${rep + 1}/${repetitions}: reference`);
      const ref = await run('reference', rep, () => plan.timeout);
      checkReference(ref, label, n);
      for (const record of ref.results!.cases) {
        const seconds = caseSeconds(ref, record.i, record.seconds) ?? record.seconds!;
        referenceBest[record.i] = Math.min(referenceBest[record.i]!, seconds);
        (referenceTimes[record.i] ??= []).push(seconds);
      }
      if (rep === 0) warnIfQuick(ctx, label, referenceBest);
    }
    ctx.progress('status', `${label}: repetition ${rep + 1}/${repetitions}: solution`);
    const outcome = await run('solution', rep, limitFor);
    const statuses = caseStatuses(outcome, n, limitFor);
    const changed =
      firstDifference(ctx.protectedHash, await ctx.timed('check', () => hashTree([ctx.protectedDir]))) ??
      firstDifference(pointHash, await ctx.timed('check', () => hashTree([pointDir])));
    if (changed) {
      const note = `the solution changed a protected file (${path.relative(ctx.tmp, changed)})`;
      for (const status of statuses) Object.assign(status, {status: 'tampered', note});
    }
    const out = path.join(outcome.cwd, 'out');
    await keepRegularFiles(out);
    solutionRuns.push({outcome, statuses, outHash: await ctx.timed('check', () => hashTree([out]))});
    const done = statuses.filter((s) => s.status === 'ok').length;
    ctx.progress(
      'line',
      `${label}: ${repetitions > 1 ? `repetition ${rep + 1}/${repetitions}: ` : ''}solution ${done}/${n} case(s) answered` +
        (plan.metric === 'speedup' ? `, ${formatSeconds(sumSeconds(statuses))} vs reference ${formatSeconds(sumFinite(referenceBest))} (best so far)` : ''),
    );
    // A failed repetition already makes a speedup score 0.0: do not spend more time on it.
    if (statuses.some((s) => s.status !== 'ok')) break;
  }

  // A run that touched protected files scores 0.0; nothing it may have
  // rewritten (oracle, verifier, assets) is executed.
  if (solutionRuns.some((run) => run.statuses.some((status) => status.status === 'tampered'))) {
    return Array.from({length: n}, (_, i): CaseReport => {
      const reps = solutionRuns.map((run) => run.statuses[i]!);
      const worst = reps.find((r) => r.status === 'tampered') ?? reps[0]!;
      const times = reps.map((r) => r.seconds).filter((t): t is number => typeof t === 'number');
      return {i, status: 'tampered', passed: false, note: worst.note, seconds: times.length ? Math.min(...times) : null, ratio: 0, repetitions: reps};
    });
  }

  // Only now, with every solution process gone, does expected/ exist.
  ctx.progress('status', `${label}: writing expected answers`);
  try {
    await ctx.timed('expected', () => api.writeExpected(bundle, work));
  } catch (error) {
    throw bundleFailure(`the bundle's oracle failed on ${label}`, error);
  }
  const verdictsByRun: Verdict[][] = [];
  for (const {outcome, statuses, outHash} of solutionRuns) {
    const out = path.join(outcome.cwd, 'out');
    const target = path.join(work, 'out');
    await rm(target, {recursive: true, force: true});
    await rename(out, target);
    let verdicts: {cases: Verdict[]};
    try {
      verdicts = await ctx.timed('verify', () => api.verifyWorkDir(bundle, work));
    } catch (error) {
      throw bundleFailure(`the bundle's verifier failed on ${label}`, error);
    }
    await rename(target, out);
    if (firstDifference(outHash!, await ctx.timed('check', () => hashTree([out])))) {
      for (const status of statuses) Object.assign(status, {status: 'tampered', note: 'answers changed after the solution exited'});
    }
    const verdictList = verdicts.cases;
    verdictsByRun.push(verdictList);
    for (const [i, status] of statuses.entries()) {
      const verdict = verdictList.find((v) => v.i === i);
      status.passed = status.status === 'ok' && verdict?.passed === true && !verdict.error;
      if (status.status === 'ok' && verdict?.error) {
        // The answer made the verifier raise: a failing case (never a harness failure the
        // solution could provoke), flagged loudly because it may be the bundle's bug.
        ctx.progress('line', `warning: the bundle's verifier raised on case ${i} of ${label}: ${verdict.error}`);
        status.status = 'failed';
        status.note = `the verifier raised: ${verdict.error}`;
      } else if (status.status === 'ok' && !status.passed) {
        status.status = verdict?.note ? 'no-answer' : 'failed';
        status.note = [status.note, verdict?.note].filter(Boolean).join('; ') || undefined;
      }
    }
  }

  return Array.from({length: n}, (_, i): CaseReport => {
    const reps = solutionRuns.map((run) => run.statuses[i]!);
    const worst = reps.find((r) => r.status !== 'ok' || !r.passed) ?? reps[reps.length - 1]!;
    const runIndex = reps.indexOf(worst);
    const verdict = verdictsByRun[runIndex]?.find((v) => v.i === i);
    const times = reps.map((r) => r.seconds).filter((s): s is number => typeof s === 'number');
    const seconds = times.length ? Math.min(...times) : null;
    const ok = reps.every((r) => r.status === 'ok' && r.passed);
    let ratio = 0;
    if (plan.metric === 'speedup') {
      if (ok && seconds !== null && Number.isFinite(referenceBest[i]!)) ratio = speedupRatio(referenceBest[i]!, seconds);
    } else if (worst.status === 'ok' || worst.status === 'failed') {
      ratio = accuracyRatio(verdict?.metrics, plan.numerator!, plan.denominator!);
    }
    const report: CaseReport = {i, status: worst.status, passed: ok, seconds, ratio, repetitions: reps};
    if (verdict?.metrics) report.metrics = verdict.metrics;
    if (worst.note) report.note = worst.note;
    if (plan.metric === 'speedup' && Number.isFinite(referenceBest[i]!)) {
      report.referenceSeconds = referenceBest[i]!;
      report.referenceRepetitions = referenceTimes[i] ?? [];
    }
    return report;
  });
}

/** Timed cases below this are dominated by the harness round trip (about 0.1 to 0.3 ms a case). */
const quickCaseSeconds = 0.01;

/** Say so when the reference solves a case faster than timing can resolve well: speedups there are understated. */
function warnIfQuick(ctx: {progress(kind: 'line', text: string): void}, label: string, referenceBest: number[]): void {
  const fastest = Math.min(...referenceBest);
  if (!(fastest < quickCaseSeconds)) return;
  ctx.progress(
    'line',
    `warning: the reference solves a case of ${label} in ${formatSeconds(fastest)}; each timed case also includes about 0.1-0.3 ms of harness round trip, ` +
      `so large speedups on cases under ${quickCaseSeconds * 1000} ms are understated (make the point bigger)`,
  );
}

/**
 * The time of case `i` in one run: the later of the runner's own measurement and
 * the span arbor observed between the case's start and done events (the runner's
 * clock lives in the solution's process and can be patched; the observed span
 * cannot be shortened). Null when either is missing.
 */
function caseSeconds(outcome: RunOutcome, i: number, reported: number | null): number | null {
  const observed = outcome.observedSeconds.get(i);
  if (typeof reported !== 'number' || !Number.isFinite(reported) || observed === undefined) return null;
  return Math.max(reported, observed);
}

/** Per-case status of one solution run, before verification. */
function caseStatuses(outcome: RunOutcome, n: number, limit: (i: number) => number): RepetitionReport[] {
  const records = new Map((outcome.results?.cases ?? []).map((record) => [record.i, record]));
  const statuses: RepetitionReport[] = [];
  let stopped = false;
  for (let i = 0; i < n; i++) {
    const record = records.get(i);
    if (record && !stopped) {
      const seconds = caseSeconds(outcome, i, record.seconds);
      if (record.status === 'crashed') statuses.push({seconds, status: 'crashed', passed: false, note: record.note ?? undefined});
      else if (seconds === null) statuses.push({seconds, status: 'crashed', passed: false, note: 'no time recorded (the runner\'s start and done events for this case were not seen)'});
      else if (seconds > limit(i)) statuses.push({seconds, status: 'timeout', passed: false, note: `took ${seconds.toFixed(3)} s, limit ${limit(i).toFixed(3)} s`});
      else statuses.push({seconds, status: 'ok', passed: false, note: record.note ?? undefined});
      continue;
    }
    if (stopped) {
      statuses.push({seconds: null, status: 'not-run', passed: false});
      continue;
    }
    stopped = true;
    if (outcome.killed) {
      const {reason, limit: seconds, i: at} = outcome.killed;
      const what = reason === 'case' ? (at === -1 ? 'warm-up case' : 'case') : reason === 'start' ? 'start-up/init' : 'whole-run';
      statuses.push({seconds: null, status: 'timeout', passed: false, note: `killed at the ${what} time limit of ${seconds.toFixed(3)} s`});
    } else {
      const why = outcome.results?.error ?? lastLine(outcome.stderrTail) ?? `exit code ${outcome.exitCode ?? outcome.signal}`;
      statuses.push({seconds: null, status: 'crashed', passed: false, note: `the process ended before answering (${why})`});
    }
  }
  return statuses;
}

function checkReference(ref: RunOutcome, label: string, n: number): void {
  const statuses = caseStatuses(ref, n, () => Infinity);
  const bad = statuses.findIndex((s) => s.status !== 'ok' || s.note);
  if (bad >= 0 || !ref.results) {
    const status = statuses[Math.max(bad, 0)];
    throw new HarnessError(`the reference solver failed on case ${Math.max(bad, 0)} of ${label}: ${status?.status}${status?.note ? ` (${status.note})` : ''}`, 'bad-reference');
  }
}

function formatSeconds(seconds: number): string {
  return seconds < 1 ? `${(seconds * 1000).toPrecision(3)} ms` : `${seconds.toPrecision(3)} s`;
}

function sumSeconds(statuses: RepetitionReport[]): number {
  return statuses.reduce((total, s) => total + (s.seconds ?? 0), 0);
}

function sumFinite(values: number[]): number {
  return values.reduce((total, v) => total + (Number.isFinite(v) ? v : 0), 0);
}

function lastLine(text: string): string | undefined {
  const lines = text.trim().split('\n');
  const line = lines[lines.length - 1]?.trim();
  return line ? line.slice(0, 300) : undefined;
}

function messageOf(error: unknown): string {
  return String(error instanceof Error ? error.message : error).split('\n', 1)[0] ?? '';
}

/** Import the bundle's generator, oracle and verifier by the URLs lib/bundle uses, so they are cached. */
async function preloadAuthored(bundle: Bundle): Promise<void> {
  for (const file of Object.values(bundle.entry)) {
    if (typeof file !== 'string') continue;
    // A module that fails to load is reported by the step that needs it.
    await import(pathToFileURL(file).href).catch(() => {});
  }
}

function bundleFailure(what: string, error: unknown): HarnessError {
  return new HarnessError(`${what}: ${messageOf(error)}`, 'bad-bundle', {cause: error});
}
