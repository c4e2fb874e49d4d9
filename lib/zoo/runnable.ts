/**
 * Whether a benchmark can run, as verify sees it without running anything: its
 * plan.toml parsed and checked exactly as the eval checks it, its bundle's marker
 * and fingerprint, its points against the bundle's signature, its seeds, its
 * entry points and its arbor.lock. Worked out once per folder (the rules in
 * rules/plan-*.ts, bundle-*.ts, entry-points.ts and lock-*.ts each report one
 * part) and synchronously, since list verifies thousands of folders in worker threads.
 */
import path from 'node:path';
import {readBundle, type Bundle} from '../bundle/bundle.js';
import {parsePoint} from '../bundle/point.js';
import {computeLockSync, lockDifference, lockFile, readLockSync} from '../benchmark/lock.js';
import {InvalidPlanError, planFromText, seedOverlap, splits, type Plan} from '../benchmark/plan.js';
import {keyLine} from '../benchmark/plan-schema.js';
import {locateTomlError} from '../toml.js';
import {cachedDeterminism} from './determinism.js';
import {readerOf} from './folder-reader.js';
import type {Place, RuleContext} from './rule.js';
import {messageOf} from '../errors.js';

/** One problem a runnable rule reports: its message, and where in which file. */
export interface RunnableProblem {
  message: string;
  file?: string;
  place?: Place;
}

/** What verify found out about a folder's eval; every part absent when it could not be looked at. */
export interface Runnable {
  /** Whether the folder has a plan.toml at all (without one, its eval is its own: nothing here applies). */
  planned: boolean;
  plan?: Plan;
  /** plan.toml is not valid TOML. */
  syntax?: RunnableProblem;
  /** plan.toml is valid TOML but not a valid plan: each of its problems. */
  invalid?: RunnableProblem[];
  /** Dev and test seeds overlap. */
  overlap?: RunnableProblem;
  bundle?: Bundle;
  /** The bundle's marker cannot be read or is wrong. */
  marker?: RunnableProblem;
  /** The marker's fingerprint is not its signature's. */
  fingerprint?: RunnableProblem;
  /** Points the bundle's signature refuses. */
  points: RunnableProblem[];
  /** Entry points (the baseline solution, a path split's dev folder) that are missing. */
  entries: RunnableProblem[];
  /** arbor.lock differs from the protected files; `unlocked` when there is none. */
  stale?: RunnableProblem;
  unlocked?: RunnableProblem;
}

const memo = new WeakMap<RuleContext, Runnable>();
const determinism = new WeakMap<RuleContext, ReturnType<typeof cachedDeterminism>>();

/** The determinism outcome a verify or lock cached for the folder's bundle and plan (both determinism rules ask; worked out once). */
export function cachedDeterminismOf(ctx: RuleContext, bundle: Bundle, plan: Plan): ReturnType<typeof cachedDeterminism> {
  let found = determinism.get(ctx);
  if (!found) {
    const reader = readerOf(ctx);
    found = cachedDeterminism(bundle, plan, process.env, reader, (file) => reader.utf8(file));
    determinism.set(ctx, found);
  }
  return found;
}

/** The folder's runnable facts, worked out on the first call for this verify of it. */
export function runnableOf(ctx: RuleContext): Runnable {
  let found = memo.get(ctx);
  if (!found) {
    found = inspect(ctx);
    memo.set(ctx, found);
  }
  return found;
}

/** The command that prints a bundle's fingerprint into its marker, as an author pastes it. */
function fingerprintFix(dir: string, bundleRel: string): string {
  return `arbor bundle ${path.join(dir, bundleRel)} fingerprint --write`;
}

function inspect(ctx: RuleContext): Runnable {
  const found: Runnable = {planned: false, points: [], entries: []};
  const loaded = ctx.file('plan.toml');
  if (loaded.status !== 'ok') return found;
  found.planned = true;
  const root = ctx.root;
  const text = loaded.text;
  try {
    const reader = readerOf(ctx);
    found.plan = planFromText(text, root, 'plan.toml', {disjoint: false, files: reader, parse: (toml) => reader.toml(toml)});
  } catch (error) {
    const code = (error as {code?: string}).code;
    const message = messageOf(error).replace(/^plan\.toml: /, '');
    if (code === 'bad-plan-toml') {
      const problem = locateTomlError((error as Error).cause, text);
      found.syntax = {message: `\`plan.toml\` is not valid TOML: ${problem.message}`, file: 'plan.toml', ...placeOf(problem)};
    } else {
      // Every problem of the plan, each at the line of the key it names.
      const problems = error instanceof InvalidPlanError ? error.problems : [message];
      found.invalid = problems.map((each) => ({message: `\`plan.toml\`: ${each}`, file: 'plan.toml', ...keyPlace(text, each)}));
    }
    return found;
  }
  const plan = found.plan;
  const overlap = seedOverlap(plan);
  if (overlap) found.overlap = {message: `\`plan.toml\`: ${overlap}`, file: 'plan.toml', ...keyPlace(text, '"test.seeds"')};
  inspectBundle(ctx, found, text);
  inspectEntries(ctx, found);
  inspectLock(ctx, found);
  return found;
}

/** The bundle's marker, fingerprint and the plan's points against its signature. */
function inspectBundle(ctx: RuleContext, found: Runnable, text: string): void {
  const plan = found.plan!;
  const rel = path.relative(ctx.root, plan.bundle) || '.';
  const marker = path.join(rel, 'fherma.toml');
  ctx.dependsOn([marker]);
  try {
    found.bundle = readBundle(plan.bundle, {checkFingerprint: false, files: readerOf(ctx)});
  } catch (error) {
    found.marker = {message: messageOf(error).split(`${plan.bundle}${path.sep}`).join(`${rel}/`), file: marker};
    return;
  }
  const bundle = found.bundle;
  if (bundle.markerFingerprint !== bundle.fingerprint) {
    const says = bundle.markerFingerprint === undefined ? 'has no fingerprint' : `says fingerprint = "${bundle.markerFingerprint}"`;
    found.fingerprint = {
      message: `\`${marker}\` ${says}, but its signature's fingerprint is "${bundle.fingerprint}": if the signature changed on purpose, run \`${fingerprintFix(ctx.dir, rel)}\`, then \`arbor benchmark lock ${ctx.dir}\``,
      file: marker,
    };
  }
  for (const split of splits) {
    plan[split].points.forEach((point, index) => {
      try {
        parsePoint(bundle, point);
      } catch (error) {
        const problem = messageOf(error).replace(/^--point /, '');
        found.points.push({
          message: `\`plan.toml\`: ${split}.points[${index}] ${JSON.stringify(point)} does not fit the bundle's signature: it ${problem}`,
          file: 'plan.toml',
          ...keyPlace(text, `[${split}]`),
        });
      }
    });
  }
}

/** The baseline solution, and a path split's dev folder. */
function inspectEntries(ctx: RuleContext, found: Runnable): void {
  const plan = found.plan!;
  const solution = path.relative(ctx.root, plan.solution);
  ctx.dependsOn([solution]);
  if (!readerOf(ctx).isFile(plan.solution))
    found.entries.push({
      message: `The baseline solution \`${solution}\` named by \`plan.toml\` is missing; write it (the eval scores it as the starting point)`,
    });
  const dev = plan.dev.path;
  if (dev !== undefined) {
    const rel = path.relative(ctx.root, dev);
    ctx.dependsOn([rel]);
    if (!readerOf(ctx).exists(dev))
      found.entries.push({message: `The dev split's folder \`${rel}\` is missing; put the made work directories of the dev cases in it (one per subfolder)`});
  }
}

/** arbor.lock against the protected files as they are now. */
function inspectLock(ctx: RuleContext, found: Runnable): void {
  const plan = found.plan!;
  ctx.dependsOn([lockFile]);
  try {
    const locked = readLockSync(ctx.root, (file) => readerOf(ctx).utf8(file));
    const now = computeLockSync(ctx.root, plan, readerOf(ctx));
    // The protected files and their folders: any change to them (a file edited, added or removed) changes the answer.
    const folders = new Set<string>(['.']);
    for (const file of Object.keys(now.files)) for (let d = path.posix.dirname(file); d !== '.'; d = path.posix.dirname(d)) folders.add(d);
    ctx.dependsOn([...Object.keys(now.files), ...[...folders].filter((d) => d !== '.')]);
    if (!locked) {
      found.unlocked = {message: `No \`arbor.lock\`, so an eval cannot tell when a protected file changed; write one with \`arbor benchmark lock ${ctx.dir}\``};
      return;
    }
    const difference = lockDifference(locked, now);
    if (difference)
      found.stale = {
        message: `The protected files differ from \`arbor.lock\` (${difference}); every eval refuses to run until they are restored or, if the change is on purpose, \`arbor benchmark lock ${ctx.dir}\` is run`,
        file: lockFile,
      };
  } catch (error) {
    found.stale = {message: messageOf(error).replace(`${ctx.root}${path.sep}`, ''), file: lockFile};
  }
}

function placeOf(problem: {line?: number; column?: number}): {place?: Place} {
  return problem.line === undefined ? {} : {place: {line: problem.line, column: problem.column ?? 1}};
}

/**
 * The line of plan.toml a message is about: the first quoted key it names (`"repetitons"`,
 * `"dev.seeds"`, `[dev]`), found as the start of a line (`key =`, `[table]`, or inside a table).
 */
function keyPlace(text: string, message: string): {place?: Place} {
  const named = /\[(dev|test)\]/.exec(message) ?? /"([A-Za-z0-9_.]+)"/.exec(message);
  if (!named) return {};
  // The key's line as the plan's schema finds it (one scanner for both); the column is this rule's own.
  const line = keyLine(text, named[1]!.split('.', 2));
  if (line === undefined) return {};
  const written = text.split(/\r?\n/)[line - 1] ?? '';
  return {place: {line, column: (named[0].startsWith('[') ? written.indexOf('[') : written.search(/\S/)) + 1}};
}
