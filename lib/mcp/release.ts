/**
 * When a sealed answer comes: each entry's release period, stated before any
 * call (`get_benchmark`'s and `list_benchmarks`' `sealedAnswerSeconds`,
 * submit_test's first progress message) and derived from what the entry's
 * sealed eval costs, never from the candidate: the plan's test split and cost
 * settings, and one measured figure of the entry's own solution in the ledger.
 * `sealedAnswerSeconds` is the one place the period is computed.
 */
import {readdirSync} from 'node:fs';
import type {Plan} from '../benchmark/plan.js';

/** What the period reads of the server (a part of ServerContext, named here so this module stays below context.ts). */
interface ReleaseContext {
  zoo: string;
  env: NodeJS.ProcessEnv;
  sealedRelease?: number;
}

/** Periods are whole multiples of this (coarse: a period says nothing fine-grained). */
const releaseStepSeconds = 15;
/**
 * The cost is multiplied by this, then `slackSeconds` added: the margin over
 * the measured sealed compares (the table in lib/mcp/README.md: each shipped
 * entry's predicted cost against its compare's CPU seconds and wall).
 */
const costFactor = 1.25;
const slackSeconds = 15;
/** No period is shorter. */
const leastSeconds = 30;
/** What one sandboxed process costs before its first case: the sandbox, python, the solution's imports and init. */
const processSeconds = 1;
/** An eval's set-up before its first point and its end after the last: the test cases made, the reference's answers, the record. */
const setupSeconds = 5;
/** A case's seconds where the ledger has no measured run of the entry's own solution. */
const defaultCaseSeconds = 0.25;

/** The test split's case count: seeds x points, or a path split's case folders (1 when the folder is missing). */
function testCases(plan: Plan): number {
  if (plan.splitKind !== 'path') return Math.max(1, plan.test.seeds.length * plan.test.points.length);
  try {
    return Math.max(1, readdirSync(plan.test.path ?? '', {withFileTypes: true}).filter((entry) => entry.isDirectory()).length);
  } catch {
    return 1;
  }
}

/**
 * What the entry's sealed compare costs (seconds), as the compare pipeline
 * spends it (lib/eval/pipeline.ts): a set-up, then for accuracy one pass (a
 * process per test point and side, its cases); for speedup the fewest
 * repetitions (reference, baseline and candidate: a process per point each,
 * and the cases) or, when they end sooner, the compare's budget (1.5 x
 * max_seconds, which bounds the whole eval: more repetitions start only
 * while it lasts), and one more repetition that may run past it. A case
 * costs `caseSeconds` (the entry's own solution's, else 0.25 s), a process 1 s.
 */
export function sealedCompareCost(plan: Plan, caseSeconds: number | null): number {
  const cases = testCases(plan);
  const points = Math.max(1, plan.test.points.length);
  const perCase = caseSeconds ?? defaultCaseSeconds;
  if (plan.metric !== 'speedup') return setupSeconds + 2 * (points * processSeconds + cases * perCase);
  const repetition = 3 * (points * processSeconds + cases * perCase);
  return Math.max(setupSeconds + plan.repetitions * repetition, 1.5 * plan.maxSeconds) + repetition;
}

/**
 * The release period (seconds) of an entry's sealed answer: 1.25 x the cost
 * of its sealed compare (`sealedCompareCost`) plus 15 s, rounded up to 15 s,
 * at least 30 s. Nothing of a candidate enters it: the same for every call,
 * pass or failure. A compare that runs over it (a loaded machine) is answered
 * at the next multiple.
 */
export function sealedAnswerSeconds(plan: Plan, caseSeconds: number | null): number {
  const cost = sealedCompareCost(plan, caseSeconds);
  return Math.max(leastSeconds, Math.ceil((costFactor * cost + slackSeconds) / releaseStepSeconds) * releaseStepSeconds);
}

/**
 * The entry's own solution's mean case seconds, from the oldest scored eval or
 * calibrate run of it (its digest) the ledger holds on either split (never
 * imported, never a compare: a compare's cases are a candidate's): the oldest,
 * so the figure never changes once there is one. Null when there is none.
 */
async function baselineCaseSeconds(ctx: ReleaseContext, plan: Plan): Promise<number | null> {
  const [{ledgerPathFor, openLedger, byTime, solutionDigest}, {readFile}, path] = await Promise.all([
    import('../ledger/index.js'),
    import('node:fs/promises'),
    import('node:path'),
  ]);
  const files = [];
  for (const rel of plan.editable) {
    const bytes = await readFile(path.join(plan.dir, rel)).catch(() => undefined);
    if (bytes) files.push({path: rel, bytes});
  }
  const digest = solutionDigest(files);
  let ledger;
  try {
    ledger = openLedger(ledgerPathFor(plan.dir, ctx.env, ctx.zoo), {readonly: true});
  } catch {
    return null; // no ledger yet: nothing measured
  }
  try {
    const runs = ledger
      .listRuns({benchmark: plan.name})
      .filter((run) => run.kind !== 'compare' && run.status === 'ok' && run.importedFrom === null && run.solutionSha256 === digest)
      .sort(byTime);
    const seconds = (runs[0]?.cases ?? []).map((c) => c.seconds).filter((s): s is number => typeof s === 'number' && Number.isFinite(s));
    return seconds.length > 0 ? seconds.reduce((a, b) => a + b, 0) / seconds.length : null;
  } finally {
    ledger.close();
  }
}

/** An entry's release period: the server's `--sealed-release` / `ARBOR_SEALED_RELEASE` when set, else `sealedAnswerSeconds`. */
export async function entryReleaseSeconds(ctx: ReleaseContext, plan: Plan): Promise<number> {
  if (ctx.sealedRelease !== undefined) return ctx.sealedRelease;
  return sealedAnswerSeconds(plan, await baselineCaseSeconds(ctx, plan));
}

/** `answer at 16:42:10, in 45 s`: a release time as the progress messages say it (the server's local time). */
export function answerAt(at: number, now = Date.now()): string {
  return `answer at ${new Date(at).toTimeString().slice(0, 8)}, in ${Math.max(0, Math.ceil((at - now) / 1000))} s`;
}
