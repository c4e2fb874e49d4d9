/**
 * A run of the ledger taken as one side of a comparison: `compare --baseline-run ID` (an unpaired
 * compare) and `eval --against` (a race, against.ts), checked against the benchmark before anything runs.
 */
import path from 'node:path';
import {UsageError} from '../errors.js';
import {HarnessError, repetitionSpeedups} from '../eval/index.js';
import type {PointRatios} from '../stats/index.js';
import type {Clock, Plan} from '../benchmark/plan.js';
import type {LedgerRun} from '../ledger/ledger.js';
import {againstProblem, pickAgainst} from './against.js';
import type {CaseStatus, RepetitionReport} from '../eval/index.js';

/** One case of one side, wherever it was measured. */
export interface SideCase {
  point: number;
  i: number;
  status: CaseStatus;
  passed: boolean;
  /** Median time on the eval's clock. */
  seconds: number | null;
  /** The case's score: speedup over the reference, or accuracy share. */
  ratio: number;
  repetitions: RepetitionReport[];
  referenceRepetitions?: number[];
}

/** A recorded baseline run, checked against the benchmark. */
export interface RecordedBaseline {
  id: number;
  cases: SideCase[];
  score: number;
  interval: [number, number] | null;
  status: string;
  solutionSha256: string | null;
  environment: {fingerprint: string; clock?: string | null};
  repetitions: number;
  time: string;
  seeds: {source: string; count: number};
  /** The run as the ledger holds it (a race's answer names it). */
  run: LedgerRun;
}

/** Where the recorded run is read from, and what names it: `--baseline-run ID` or `--against WHAT`. */
export interface RecordedRequest {
  split: string;
  /** The ledger (default: the benchmark's, as `eval` records to). */
  ledger?: string;
  baselineRun?: number;
  against?: string;
}

/** Per point, [rep][case] speedups over the reference on the given clock, rebuilt from the per-repetition times. */
export function speedups(cases: SideCase[], clock: Clock | null | undefined): PointRatios[] {
  const points = [...new Set(cases.map((c) => c.point))].sort((a, b) => a - b);
  return points.map((p) =>
    repetitionSpeedups(
      cases.filter((c) => c.point === p),
      clock,
    ),
  );
}

/**
 * Read and check the recorded side: `--baseline-run ID`, a scored run of this benchmark, split and
 * metric; `--against`, a run against.ts accepts (an eval of this plan, recorded here); each with its
 * per-repetition times.
 */
export async function readRecorded(request: RecordedRequest, plan: Plan, env: NodeJS.ProcessEnv, cwd: string): Promise<RecordedBaseline> {
  const {openLedger, ledgerPathFor} = await import('../ledger/index.js');
  const file = request.ledger ? path.resolve(cwd, request.ledger) : ledgerPathFor(plan.dir, env, cwd);
  const named = request.against === undefined ? `--baseline-run ${request.baselineRun}` : `--against ${request.against}`;
  let run: LedgerRun | null;
  try {
    const ledger = openLedger(file, {readonly: true});
    try {
      const id =
        request.against === undefined
          ? request.baselineRun!
          : pickAgainst(request.against, ledger.listRuns({benchmark: plan.name, split: request.split}), plan, request.split, file);
      run = ledger.getRun(id);
    } finally {
      ledger.close();
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${named}: cannot read the ledger ${file}: ${(error as Error).message}`, 'not-found');
  }
  if (!run) throw new UsageError(`${named}: no such run in ${file} (list them with 'arbor benchmark runs')`, 'not-found');
  const problem = request.against === undefined ? baselineProblem(run, plan, request.split) : againstProblem(run, plan, request.split);
  const shown = request.against === undefined || /^#?\d+$/.test(request.against) ? named : `${named} (run ${run.id})`;
  if (problem) throw new UsageError(`${shown} ${problem}`, 'usage');
  const cases = run.cases.map((c, k) => checkedCase(c, k, run.id));
  const repetitions = Math.max(0, ...cases.map((c) => c.repetitions.length));
  if (plan.metric === 'speedup' && run.status === 'ok' && cases.some((c) => !c.referenceRepetitions?.length)) {
    throw new UsageError(`${shown} holds no per-repetition reference times (recorded by an older arbor?): run the baseline side instead`, 'usage');
  }
  if (request.against !== undefined && repetitions < 2) {
    throw new UsageError(`${shown} made ${repetitions} repetition(s): a race needs the spread of at least 2 (evaluate it again with more)`, 'usage');
  }
  return {
    id: run.id,
    cases,
    score: run.score!,
    interval: run.interval,
    status: run.status,
    solutionSha256: run.solutionSha256,
    environment: run.environment as RecordedBaseline['environment'],
    repetitions,
    time: run.time,
    seeds: run.seeds,
    run,
  };
}

/** Why `--baseline-run` cannot be this run, in words; undefined when it can. */
function baselineProblem(run: LedgerRun, plan: Plan, split: string): string | undefined {
  if (run.benchmark.name !== plan.name && run.benchmark.path !== plan.dir) return `is of benchmark ${run.benchmark.name}, not ${plan.name}`;
  if (run.split !== split) return `is on the ${run.split} split, not ${split}`;
  if (run.metric !== plan.metric) return `has metric ${run.metric}, the plan ${plan.metric}`;
  if (run.status === 'error' || run.score === null) return 'gave no score';
  return undefined;
}

const caseStatuses: ReadonlySet<unknown> = new Set<CaseStatus>(['ok', 'crashed', 'timeout', 'no-answer', 'failed', 'not-run', 'tampered']);
const isStatus = (v: unknown): v is CaseStatus => caseStatuses.has(v);
const isSeconds = (v: unknown): v is number | null => v === null || typeof v === 'number';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A recorded repetition: the ledger is a file anyone may edit, so each field the comparison reads is checked. */
function checkedRepetition(value: unknown): RepetitionReport | undefined {
  if (!isObject(value)) return undefined;
  const {seconds, status, passed, cpuSeconds, instructions} = value;
  if (!isSeconds(seconds) || !isStatus(status) || typeof passed !== 'boolean') return undefined;
  if ((cpuSeconds !== undefined && !isSeconds(cpuSeconds)) || (instructions !== undefined && !isSeconds(instructions))) return undefined;
  return {...value, seconds, status, passed, cpuSeconds, instructions};
}

/** A recorded case, parsed field by field for what the comparison reads (its other fields kept as recorded). */
function checkedCase(value: Record<string, unknown>, k: number, id: number): SideCase {
  const bad = (what: string) => new HarnessError(`ledger run ${id}: case ${k} ${what}`, 'bad-ledger');
  const {point, i, status, passed, seconds, ratio, referenceRepetitions} = value;
  if (typeof point !== 'number' || typeof i !== 'number') throw bad('has no point or index');
  if (!Array.isArray(value.repetitions)) throw bad('has no repetitions');
  if (!isStatus(status) || typeof passed !== 'boolean') throw bad('has no status or verdict');
  if (!isSeconds(seconds) || typeof ratio !== 'number') throw bad('has no time or ratio');
  const repetitions = value.repetitions.map(checkedRepetition);
  const broken = repetitions.findIndex((r) => r === undefined);
  if (broken !== -1) throw bad(`has a malformed repetition ${broken}`);
  if (referenceRepetitions !== undefined && !(Array.isArray(referenceRepetitions) && referenceRepetitions.every((s) => typeof s === 'number'))) {
    throw bad('has reference repetitions that are not all numbers');
  }
  return {...value, point, i, status, passed, seconds, ratio, repetitions: repetitions.filter((r) => r !== undefined), referenceRepetitions};
}
