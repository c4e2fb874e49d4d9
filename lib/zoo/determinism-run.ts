/**
 * The makes of the determinism check (see determinism.ts): each target point is made twice, by two
 * `arbor bundle <bundle> make` child processes started side by side, into two temporary folders
 * whose `cases/` and `expected/` are then compared byte for byte. The children get the caller's
 * environment without the secrets (test salt, queue key) and only published seeds; they set
 * PYTHONHASHSEED to two different values too, although the bundle's Python host starts with `-I`,
 * which ignores it and draws a fresh random hash seed per process either way.
 */
import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {readBundle, type Bundle} from '../bundle/bundle.js';
import {parsePoint} from '../bundle/point.js';
import {planFromText, splits, type Plan} from '../benchmark/plan.js';
import {
  cachedDeterminism,
  checksReference,
  determinismKey,
  determinismTargets,
  differenceMessage,
  firstDifference,
  makeInChild,
  storeDeterminism,
  type DeterminismOutcome,
  type DeterminismProblem,
  type DeterminismTarget,
  type ReferenceChecker,
} from './determinism.js';

/** Options of `checkDeterminism`. */
export interface DeterminismOptions {
  /** The environment the makes start from (secrets are removed); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Seconds one make may take (default 600). */
  timeoutSeconds?: number;
  /** Write a conclusive outcome to the cache (default true). */
  store?: boolean;
  /** The bundle folder as the user names it, for the command in a message (default its absolute path). */
  shown?: string;
  /** The benchmark folder as the user names it (default its absolute path). */
  shownRoot?: string;
  /** Run the plan's reference twice on the same cases (speedup plans; default true, when `checkReference` is given). */
  reference?: boolean;
  /**
   * What runs the reference twice: lib/eval's `checkReference`, handed in by the caller above the eval
   * (the zoo sits below it). Without it the reference is left out, as with `reference: false`.
   */
  checkReference?: ReferenceChecker;
  /** Told while the reference check waits for a CPU lease (other evals hold every CPU), so a caller can say why nothing moves. */
  onWait?: (text: string) => void;
}

/**
 * The determinism check of the benchmark folder `root` (shown as `dir`), run now: undefined when
 * there is nothing it can make (no plan, a plan or marker that does not load, a wrong fingerprint,
 * a point the signature refuses: the runnable rules report those).
 */
export async function freshDeterminism(root: string, dir: string, options: DeterminismOptions = {}): Promise<DeterminismOutcome | undefined> {
  let plan: Plan;
  let bundle: Bundle;
  try {
    const text = readFileSync(path.join(root, 'plan.toml'), 'utf8');
    plan = planFromText(text, root, 'plan.toml', {disjoint: false});
    bundle = readBundle(plan.bundle, {checkFingerprint: false});
    if (bundle.markerFingerprint !== bundle.fingerprint) return undefined;
    for (const split of splits) for (const point of plan[split].points) parsePoint(bundle, point);
  } catch {
    return undefined;
  }
  if (determinismTargets(plan).length === 0) return undefined;
  return checkDeterminism(plan, bundle, {shown: path.join(dir, path.relative(root, bundle.dir)), shownRoot: dir, ...options});
}

/** Make every target twice in fresh processes and compare the bytes; stores a conclusive outcome in the cache. */
async function checkDeterminism(plan: Plan, bundle: Bundle, options: DeterminismOptions = {}): Promise<DeterminismOutcome> {
  const env = options.env ?? process.env;
  const targets = determinismTargets(plan);
  const started = performance.now();
  const outcome: DeterminismOutcome = {
    fingerprint: bundle.fingerprint,
    key: determinismKey(bundle, plan, targets),
    checked: targets,
    problems: [],
    seconds: 0,
    conclusive: true,
  };
  const temp = mkdtempSync(path.join(os.tmpdir(), 'arbor-determinism-'));
  try {
    for (const [index, target] of targets.entries()) {
      const dirs = [path.join(temp, `${index}-a`), path.join(temp, `${index}-b`)] as const;
      const made = await Promise.all(
        dirs.map((dir, k) => makeInChild(bundle.dir, target.point, target.seeds, dir, env, String(k + 1), options.timeoutSeconds ?? 600)),
      );
      const shown = options.shown ?? bundle.dir;
      const failed = made.find((m) => m !== undefined);
      if (failed !== undefined) {
        outcome.conclusive = false;
        const both = made.every((m) => m !== undefined);
        outcome.problems.push({
          message:
            `the bundle could not make point ${JSON.stringify(target.point)} seed${target.seeds.length > 1 ? 's' : ''} ${target.seeds.join(',')}` +
            `${both ? '' : ' in one of two makes'}, so it is not shown to make the same bytes twice: ${failed} ` +
            `(run \`arbor bundle ${shown} make <dir> --point '${JSON.stringify(target.point)}' --seeds ${target.seeds.join(',')}\`)`,
        });
        continue;
      }
      const problem = compareMakes(bundle, target, dirs[0], dirs[1]);
      if (problem) outcome.problems.push(problem);
    }
  } finally {
    rmSync(temp, {recursive: true, force: true});
  }
  outcome.seconds = Math.round((performance.now() - started) / 10) / 100;
  // The reference runs on cases the bundle makes: only once every make worked.
  const checkReference = options.reference === false ? undefined : options.checkReference;
  if (checkReference && checksReference(plan) && plan.dev.seeds.length > 0 && outcome.conclusive) {
    // A pass is reused for the same bytes (bundle, plan, reference, arbor): the reference's eval costs seconds.
    const cached = cachedDeterminism(bundle, plan, env).outcome;
    const passed = cached?.reference?.conclusive === true && !cached.problems.some((problem) => problem.of === 'reference');
    outcome.reference = passed
      ? {conclusive: true, seconds: 0, reused: true}
      : await checkReference({
          plan,
          problems: outcome.problems,
          env,
          shown: options.shownRoot ?? plan.dir,
          ...(options.onWait ? {onWait: options.onWait} : {}),
        });
  }
  if (options.store !== false) storeDeterminism(outcome, env);
  return outcome;
}

/** The first difference between two makes of the same target, as a problem; undefined when they are byte-identical. */
function compareMakes(bundle: Bundle, target: DeterminismTarget, a: string, b: string): DeterminismProblem | undefined {
  const point = JSON.stringify(target.point);
  for (const [index, seed] of target.seeds.entries()) {
    const id = String(index).padStart(6, '0');
    for (const group of ['cases', 'expected'] as const) {
      const names = [...new Set([...listFiles(path.join(a, group, id)), ...listFiles(path.join(b, group, id))])].sort();
      for (const name of names) {
        const rel = `${group}/${id}/${name}`;
        const difference = firstDifference(path.join(a, rel), path.join(b, rel));
        if (difference === undefined) continue;
        return {message: differenceMessage(bundle, group, point, String(seed), rel, difference)};
      }
    }
  }
  return undefined;
}

function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
