/**
 * `verify --probe`: score every probe (probes.ts) through the entry's own eval
 * on the dev split, and turn each probe the eval rewards into an error finding.
 * A probe must score 0.0 (speedup), or no more than all zeros does (accuracy,
 * where a wrong answer may still be partly right); an eval that cannot run at
 * all is a finding of its own.
 */
import {randomInt} from 'node:crypto';
import {existsSync} from 'node:fs';
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {messageOf, UsageError} from '../errors.js';
import {StaleLockError} from '../eval/index.js';
import type {EvalReport} from '../eval/index.js';
import type {Plan, PlanOverride} from '../benchmark/plan.js';
import type {Finding, ProbeOutcome} from '../zoo/lint.js';

import {probeSource, probes, solveProbeSource, solveProbes, type Probe, type ProbeConfig} from './probes.js';

/** How much more than all zeros an accuracy probe may score (seeded random answers hit a few points by chance). */
const accuracySlack = 0.01;

/** Per-case limit (s) of a probe run where the plan's `timeout` applies (accuracy): only the sleep probe ever reaches it. */
const probeCaseTimeout = 3;

/** What probing one folder found. */
export interface ProbeReport {
  findings: Finding[];
  probes: ProbeOutcome[];
  /** Wall seconds of the whole battery. */
  seconds: number;
}

/** Options of probeBenchmark. */
export interface ProbeOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Run only these probes (default: all, in order; `zeros` always runs first for an accuracy entry). */
  only?: readonly string[];
  /** Progress lines (one per probe, and the eval's warnings, each once). */
  onProgress?: (line: string) => void;
}

/** Run the battery on one benchmark folder (which must exist). Never throws for a broken entry: that is a finding (an unknown `only` name is a UsageError). */
export async function probeBenchmark(dir: string, options: ProbeOptions = {}): Promise<ProbeReport> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started) / 1e9;
  const cwd = options.cwd ?? process.cwd();
  const abs = path.resolve(cwd, dir);
  const say = options.onProgress ?? (() => {});
  const findings: Finding[] = [];
  const outcomes: ProbeOutcome[] = [];
  const finding = (ruleId: string, message: string) => findings.push({file: dir, severity: 'error', ruleId, message});
  const done = (): ProbeReport => ({findings, probes: outcomes, seconds: elapsed()});

  const unknown = options.only?.find((name) => !probes.some((p) => p.name === name) && !solveProbes.some((p) => p.name === name));
  if (unknown !== undefined)
    throw new UsageError(
      `unknown probe "${unknown}", expected one of ${probes.map((p) => p.name).join(', ')} (interface = "solve": ${solveProbes.map((p) => p.name).join(', ')})`,
    );
  if (!existsSync(path.join(abs, 'plan.toml'))) {
    finding('probe-plan', 'No `plan.toml`, so `--probe` has no eval to run the probes through; add one (its format is in lib/eval/README.md)');
    return done();
  }
  const [{runEval}, {loadPlan}] = await Promise.all([import('../eval/index.js'), import('../benchmark/plan.js')]);
  let plan: Plan;
  let config: Omit<ProbeConfig, 'probe'>;
  try {
    plan = await loadPlan(abs);
    config = {metric: plan.metric, signatures: await devSignatures(plan), seed: randomInt(2 ** 48 - 1)};
  } catch (error) {
    finding('probe-harness', `The eval cannot run, so no probe could be scored: ${messageOf(error)}`);
    return done();
  }
  const planOverride: PlanOverride = plan.metric === 'speedup' ? {repetitions: 2, maxSeconds: 0} : {timeout: Math.min(plan.timeout, probeCaseTimeout)};
  const warned = new Set<string>();
  const onProgress = (kind: 'line' | 'status', text: string) => {
    if (kind === 'line' && text.startsWith('warning:') && !warned.has(text)) {
      warned.add(text);
      say(`${dir}: ${text}`);
    }
  };

  const scratch = await mkdtemp(path.join(tmpdir(), 'arbor-probe-'));
  try {
    // An entry with AlgoTune's solver signature gets wrong answers built from its reference's own (probe_solve.py).
    const solve = plan.interface === 'solve' && plan.reference !== undefined;
    const battery = solve ? solveProbes : probes;
    const reference = solve ? await readFile(plan.reference!, 'utf8') : '';
    const chosen = battery.filter((p) => !options.only || options.only.includes(p.name) || (p.name === 'zeros' && plan.metric === 'accuracy'));
    let zeros: ZerosOutcome | undefined;
    for (const probe of chosen) {
      const file = path.join(scratch, `${probe.name}.py`);
      await writeFile(file, solve ? solveProbeSource(probe.name, reference) : probeSource({probe: probe.name, ...config}));
      const probeStarted = elapsed();
      let report: EvalReport;
      try {
        report = await runEval({benchmark: abs, split: 'dev', solution: file, env: options.env, planOverride, onProgress});
      } catch (error) {
        if (error instanceof StaleLockError) {
          finding(
            'probe-lock',
            `Every eval refuses to run while a protected file differs from arbor.lock (${error.difference}), so no probe can be scored; restore it, or if the change is on purpose run 'arbor benchmark lock ${error.shown}'`,
          );
          return done();
        }
        const note = messageOf(error);
        outcomes.push({probe: probe.name, score: null, ok: false, seconds: elapsed() - probeStarted, note});
        say(`${dir}: probe ${probe.name}: the eval could not run (error)`);
        // The first probe is the plainest answer there is: if the eval cannot score it, it can score none.
        if (outcomes.length === 1) {
          finding('probe-harness', `The eval cannot run, so no probe could be scored (probe \`${probe.name}\`): ${note}`);
          return done();
        }
        finding('probe-harness', `Probe \`${probe.name}\` (${probe.tries}) could not be scored: the eval failed: ${note}`);
        continue;
      }
      const seconds = elapsed() - probeStarted;
      const score = report.score;
      const judged = judge(plan, probe, score, zeros, report);
      if (probe.name === 'zeros') zeros = {score, rewarded: judged.problem !== undefined};
      outcomes.push({
        probe: probe.name,
        score,
        ...(judged.limit === undefined ? {} : {limit: judged.limit}),
        ok: !judged.problem,
        seconds,
        ...(report.failure ? {note: report.failure} : {}),
      });
      say(`${dir}: probe ${probe.name} scored ${show(score)} in ${seconds.toFixed(1)} s${judged.problem ? ' (error)' : ''}`);
      if (judged.problem) finding('probe-score', `Probe \`${probe.name}\` (${probe.tries}) ${judged.problem}: ${judged.partly ? partlyRight : probe.rewarded}`);
    }
  } finally {
    await rm(scratch, {recursive: true, force: true}).catch(() => {});
  }
  return done();
}

/** What a wrong answer that beats all zeros on an accuracy entry means. */
const partlyRight =
  'an answer that is wrong on purpose beats all zeros; check that the verifier checks the answer, or change the task so that this trivial answer earns nothing';

/** The zeros probe's score, and whether the eval rewarded it. */
interface ZerosOutcome {
  score: number;
  rewarded: boolean;
}

/** The limit a probe's score is held to, and what is wrong with it (absent when nothing is). */
function judge(
  plan: Plan,
  probe: Probe,
  score: number,
  zeros: ZerosOutcome | undefined,
  report: EvalReport,
): {limit?: number; problem?: string; partly?: boolean} {
  const scored = `scored ${show(score)} on dev`;
  // A probe that falls back to all zeros scores what zeros does when its trick fails: once zeros
  // is itself rewarded, only a score above it (accuracy) says the trick worked.
  const fallback = probe.zerosUnlessTrick === true && zeros?.rewarded === true;
  if (plan.metric === 'speedup') {
    if (fallback) return {};
    return score > 0 ? {limit: 0, problem: `${scored}, expected 0.0`} : {limit: 0};
  }
  // The zeros probe sets the limit, so only the every-case rule can catch it, unless the author
  // measured the task's floor (probe_floor): then every probe, zeros too, is held to that.
  const zerosScore = probe.name === 'zeros' ? score : (zeros?.score ?? 0);
  const minimize = plan.direction === 'minimize';
  const floor = plan.probeFloor;
  const limit = floor ?? (minimize ? zerosScore - accuracySlack : zerosScore + accuracySlack);
  const cases = report.points.flatMap((point) => point.cases);
  if (!fallback && cases.length > 0 && cases.every((c) => c.passed)) {
    return {limit, problem: `passed every case on dev (score ${show(score)}), expected the verifier to fail them`};
  }
  if (minimize ? score < limit : score > limit) {
    const bar =
      floor === undefined ? `all zeros scores (${show(zerosScore)}) ${minimize ? '-' : '+'} ${accuracySlack}` : `the plan's probe_floor (${show(floor)})`;
    const problem = `${scored}, expected ${minimize ? 'no less' : 'no more'} than ${bar}`;
    // Past all zeros, a trick probe's trick worked; any other may be a loose verifier or a task where it is partly right.
    return {limit, problem, partly: probe.zerosUnlessTrick !== true};
  }
  return {limit};
}

/** Every dev point's signature, as the runner will hold the answers to it. */
async function devSignatures(plan: Plan): Promise<ProbeConfig['signatures']> {
  const [{loadBundle, parsePoint}, {pointSignature}] = await Promise.all([import('../bundle/index.js'), import('../eval/index.js')]);
  const bundle = await loadBundle(plan.bundle);
  // A path split's points are those of its work directories, not the plan's (it has none).
  const {dataFolder, splitPoints} = await import('../eval/index.js');
  const points = (await splitPoints(plan, 'dev', dataFolder(plan, 'dev', {}))).map((source) => source.point);
  return points.map((point) => [point, pointSignature(bundle, parsePoint(bundle, point))]);
}

/** A score to four significant digits, as people read it. */
function show(score: number): string {
  return String(Number(score.toPrecision(4)));
}
