/**
 * The make stage of a point (point.ts): the bundle makes the cases (never
 * expected/), or a path split's files are copied in, and for speedup a
 * warm-up case; their inputs are read into memory, ready to deliver.
 */
import {cp, mkdir, readdir, readFile, rm} from 'node:fs/promises';
import {existsSync} from 'node:fs';
import path from 'node:path';
import type {Point} from '../bundle/index.js';
import {HarnessError} from './errors.js';
import type {PlanPoint} from '../benchmark/plan.js';
import type {PointSource} from './data.js';
import type {CaseInput} from '../sandbox/index.js';
import type {EvalContext} from './context.js';
import {pointSignature, byteSize, type PointSignature} from './signature.js';
import {freshSeeds} from './seeds.js';
import {hashTree} from './tamper.js';
import {differenceMessage, firstDifference, makeInChild} from '../zoo/determinism.js';
import {messageOf} from '../errors.js';

/**
 * The cases of one or more repetitions: a bundle work folder (cases/, then
 * expected/ and out/ at verification) and the inputs ready to deliver.
 */
export interface CaseSet {
  work: string;
  /** The timed cases' inputs (the warm-up first, for speedup); dropped once every run of the set is over. */
  cases: CaseInput[];
  /** The seeds of the timed cases, in case order (none for a path split's files). */
  seeds: number[];
  /** Path split: the private copy of the work directory's expected/, moved into work/ when verification needs it (never while a solution runs). */
  expectedFrom?: string;
  /** Whether expected/ is in place (only ever with no solution process running). */
  expectedWritten?: boolean;
}

/** What the make stage leaves for the others. */
export interface MadePoint {
  label: string;
  index: number;
  dir: string;
  point: PlanPoint;
  parsed: Point;
  signature: PointSignature;
  resultBytes: number[];
  /** How many timed cases the point has. */
  n: number;
  /** The warm-up case (speedup), delivered first in every run: untimed, so one per point. */
  warmup?: CaseInput;
  /**
   * The case sets by repetition: with fresh cases (drawsFreshCases) one per
   * repetition, made when it starts (caseSetOf); else one for every repetition.
   */
  sets: CaseSet[];
  /** Whether every repetition draws fresh cases. */
  fresh: boolean;
  /**
   * The determinism check's make of one case (remakeAsChecked) while it runs on beside the runs of a
   * plan that times nothing: resolves to its error, if any, and never rejects (checkedMake).
   */
  pendingCheck?: Promise<unknown>;
}

/** The cases repetition `rep` runs: its own set when cases are fresh, else the one set. */
export function caseSetOf(made: MadePoint, rep: number): CaseSet {
  const set = made.sets[made.fresh ? rep : 0];
  if (!set) throw new HarnessError(`the cases of repetition ${rep + 1} of ${made.label} were not made`, 'internal');
  return set;
}

/** What a run of repetition `rep` is served: the warm-up, then the timed cases. */
export function servedCases(made: MadePoint, rep: number): CaseInput[] {
  const {cases} = caseSetOf(made, rep);
  return made.warmup ? [made.warmup, ...cases] : cases;
}

export async function makePoint(ctx: EvalContext, index: number, source: PointSource, count: number): Promise<MadePoint> {
  const {plan, api, bundle} = ctx;
  const {point} = source;
  const label = `point ${index + 1}/${count} ${source.folder ? `${path.basename(source.folder)} ` : ''}${JSON.stringify(point)}`;
  const dir = path.join(ctx.tmp, 'points', String(index));
  await mkdir(dir, {recursive: true});
  let parsed: Point;
  try {
    parsed = api.parsePoint(bundle, point);
  } catch (error) {
    const where = source.folder ? `${path.join(source.folder, 'manifest.json')}: its point` : `plan.toml: ${label}`;
    throw new HarnessError(`${where} does not fit the bundle: ${messageOf(error)}`, source.folder ? 'bad-data' : 'bad-plan');
  }
  const signature = pointSignature(bundle, parsed, plan.interface === 'solve');
  if (
    plan.interface === 'solve' &&
    !(signature.args.length === 1 && signature.results.length === 1 && signature.args[0]!.type === 'u8' && signature.results[0]!.type === 'u8')
  ) {
    throw new HarnessError(
      'plan.toml: interface = "solve" needs a bundle with exactly one u8 argument (the encoded problem) and one u8 result (the encoded answer); use interface = "run" for this bundle',
      'bad-plan',
    );
  }
  const fresh = ctx.nonce !== undefined && !source.folder;
  const n = source.folder ? source.cases! : ctx.seeds.length;
  const made: MadePoint = {label, index, dir, point, parsed, signature, resultBytes: signature.results.map(byteSize), n, sets: [], fresh};
  if (source.folder) {
    // A path split's cases are files: the inputs are copied into the private work folder; expected/ stays out until verification.
    ctx.progress('status', `${label}: reading ${n} case(s)`);
    const work = path.join(dir, 'work');
    await mkdir(work, {recursive: true});
    // expected/ is copied now, out of every run's reach (beside work/, not in it), before any solution runs:
    // a solution run without a sandbox could otherwise rewrite the answers in the data folder it is graded against.
    await ctx.timed('make', async () => {
      await cp(path.join(source.folder!, 'cases'), path.join(work, 'cases'), {recursive: true});
      await cp(path.join(source.folder!, 'manifest.json'), path.join(work, 'manifest.json'));
      await cp(path.join(source.folder!, 'expected'), path.join(dir, 'expected'), {recursive: true});
    });
    const cases = await readCases(work, n, signature, source.folder);
    made.sets.push({work, cases, seeds: [], expectedFrom: path.join(dir, 'expected')});
    if (plan.metric === 'speedup') made.warmup = await pathWarmup(ctx, made, path.join(dir, 'warmup'), cases);
    return made;
  }
  if (plan.metric === 'speedup') {
    const warm = path.join(dir, 'warmup');
    const seed = fresh ? freshSeeds(ctx.nonce!, index, 'warmup', 1, ctx.excludedSeeds)[0]! : ctx.warmupSeed;
    if (fresh && ctx.secretCases) ctx.hiddenSeeds.push(seed);
    await makeCases(ctx, made, warm, [seed], 'the warm-up case');
    made.warmup = {i: -1, inputs: await readInputs(path.join(warm, 'cases', '000000'), signature)};
  }
  await makeCaseSet(ctx, made, 0);
  return made;
}

/**
 * Make the cases of repetition `rep` (the first when cases are not fresh):
 * with fresh cases, seeds drawn for this point and repetition from the eval's
 * nonce. Called between runs, never while a case is timed.
 */
export async function makeCaseSet(ctx: EvalContext, made: MadePoint, rep: number): Promise<CaseSet> {
  if (made.sets[made.fresh ? rep : 0]) return caseSetOf(made, rep);
  const seeds = made.fresh ? freshSeeds(ctx.nonce!, made.index, rep, made.n, ctx.excludedSeeds) : ctx.seeds;
  if (made.fresh && ctx.secretCases) ctx.hiddenSeeds.push(...seeds);
  const work = path.join(made.dir, made.fresh ? `rep-${rep}` : 'work');
  ctx.progress('status', `${made.label}: making ${seeds.length} ${made.fresh ? 'fresh ' : ''}case(s)${made.fresh ? ` for repetition ${rep + 1}` : ''}`);
  // The check's make of one case runs beside the eval's own (first set only): its process start costs no wall time on a second core.
  const remaking = rep === 0 ? remakeAsChecked(ctx, made, seeds) : undefined;
  let set: CaseSet;
  try {
    await makeCases(ctx, made, work, seeds, made.fresh ? `the cases of repetition ${rep + 1}` : 'the cases');
    set = {work, cases: await readCases(work, made.n, made.signature), seeds};
  } catch (error) {
    // No process of the eval outlives its error: the check's make is waited for, its folder removed.
    const remade = await remaking;
    if (remade) await rm(remade.dir, {recursive: true, force: true});
    throw error;
  }
  made.sets[made.fresh ? rep : 0] = set;
  if (remaking) {
    const check = remaking.then((remade) => remade && checkRemade(ctx, made, set, remade));
    // Speedup: done before the first timed case. Otherwise no case is timed: it runs on beside the runs, waited for before verify (point.ts).
    if (ctx.plan.metric === 'speedup') await ctx.timed('make', () => check);
    else
      made.pendingCheck = check.then(
        () => undefined,
        (error: unknown) => error ?? new HarnessError('the determinism check of the eval failed', 'bad-bundle'),
      );
  }
  // Without a sandbox, the point's folder is hashed to catch a solution that changes it: the harness's own additions are not that.
  if (ctx.tamperCheck) (ctx.pointHashes ??= new Map()).set(made.dir, await ctx.timed('check', () => hashTree([made.dir])));
  return set;
}

/**
 * The determinism check's promise held in the eval: `verify` and `lock` make
 * each point at a published seed, alone, in a fresh process, and an eval makes
 * its cases in its own process, many seeds at once, often fresh ones. A
 * generator that looks at how it is called (its arguments, how many cases it
 * made before, whether a seed is published) passes the check and gives every
 * eval other cases. So the last case of a point's first set (the one made
 * after the most others in this process) is made once more, the check's way,
 * and its bytes compared: a difference stops the eval with the check's words.
 * One child process per point, started beside the eval's own make of the set:
 * with speedup waited for before the point's runs (never while a case is timed),
 * otherwise before its verify (point.ts).
 */
async function remakeAsChecked(ctx: EvalContext, made: MadePoint, seeds: readonly number[]): Promise<Remade | undefined> {
  const k = seeds.length - 1;
  const seed = seeds[k];
  if (seed === undefined) return undefined;
  const dir = path.join(ctx.tmp, 'remade', String(made.index));
  const failed = await makeInChild(ctx.bundle.dir, made.point, [seed], dir, process.env, '1', 600);
  return {dir, k, seed, failed};
}

/** One case made again the check's way (remakeAsChecked): its folder, its index in the set, its seed, and why its make failed. */
interface Remade {
  dir: string;
  k: number;
  seed: number;
  failed: string | undefined;
}

/** The remade case against the eval's own: the check's words on the first differing byte. */
async function checkRemade(ctx: EvalContext, made: MadePoint, set: CaseSet, remade: Remade): Promise<void> {
  const {dir, k, seed, failed} = remade;
  try {
    if (failed)
      throw bundleFailure(`the bundle failed to make a case of ${made.label} again as the determinism check does`, new Error(failed), ctx.hiddenSeeds);
    const ours = path.join(set.work, 'cases', String(k).padStart(6, '0'));
    const theirs = path.join(dir, 'cases', '000000');
    const names = [...new Set([...(await readdir(ours).catch(() => [])), ...(await readdir(theirs).catch(() => []))])].sort();
    for (const name of names) {
      const difference = firstDifference(path.join(ours, name), path.join(theirs, name));
      if (difference === undefined) continue;
      const shown = ctx.hiddenSeeds.includes(seed) ? '<derived seed>' : String(seed);
      const message = differenceMessage(ctx.bundle, 'cases', JSON.stringify(made.point), shown, `cases/000000/${name}`, difference);
      throw new HarnessError(`${message}; found by the eval, which makes one case of each point again as verify's determinism check does`, 'bad-bundle');
    }
  } finally {
    await rm(dir, {recursive: true, force: true});
  }
}

/** Wait for the point's determinism check (pendingCheck) where it ran on beside the runs: its error, if any. */
export async function checkedMake(made: MadePoint): Promise<unknown> {
  const error = await made.pendingCheck;
  made.pendingCheck = undefined;
  return error;
}

/** The bundle makes `seeds`' cases in `target` (never expected/). */
async function makeCases(ctx: EvalContext, made: MadePoint, target: string, seeds: number[], what: string): Promise<void> {
  try {
    const result = await ctx.timed('make', () => ctx.api.makeWorkDir(ctx.bundle, target, made.parsed, seeds, {expected: false}));
    if (result.cases !== seeds.length) throw new Error(`made ${result.cases} cases, expected ${seeds.length}`);
  } catch (error) {
    throw bundleFailure(`the bundle failed to make ${what} of ${made.label}`, error, ctx.hiddenSeeds);
  }
  if (existsSync(path.join(target, 'expected'))) throw new HarnessError(`the bundle wrote expected/ although asked not to (${made.label})`, 'bad-bundle');
}

/** The `n` timed cases of a work folder, read into memory (`data`: a path split's folder, named in messages). */
async function readCases(work: string, n: number, signature: PointSignature, data?: string): Promise<CaseInput[]> {
  const cases: CaseInput[] = [];
  for (let i = 0; i < n; i++) {
    const caseName = path.join('cases', String(i).padStart(6, '0'));
    cases.push({i, inputs: await readInputs(path.join(work, caseName), signature, data && path.join(data, caseName))});
  }
  return cases;
}

/**
 * The warm-up case of a path split: generated by the bundle at the work
 * directory's point, never equal to one of its cases (a solution that saw a
 * timed case's inputs in the warm-up could answer it from memory). A bundle
 * that cannot generate leaves the point without a warm-up: first-call costs
 * then fall on the first case, for the reference and the solution alike.
 */
async function pathWarmup(ctx: EvalContext, made: MadePoint, warm: string, cases: CaseInput[]): Promise<CaseInput | undefined> {
  for (let seed = ctx.warmupSeed; seed < ctx.warmupSeed + 3; seed++) {
    try {
      await rm(warm, {recursive: true, force: true});
      await makeCases(ctx, made, warm, [seed], 'the warm-up case');
    } catch (error) {
      ctx.progress('line', `warning: ${made.label} has no warm-up case (${messageOf(error)}); first-call costs fall on its first case`);
      return undefined;
    }
    const inputs = await readInputs(path.join(warm, 'cases', '000000'), made.signature);
    if (!cases.some((c) => c.inputs.equals(inputs))) return {i: -1, inputs};
  }
  ctx.progress('line', `warning: ${made.label} has no warm-up case (the generated ones equal timed cases); first-call costs fall on its first case`);
  return undefined;
}

/** One case's arguments, concatenated in signature order, checked against their sizes (`data`: the case is a file of a path split, not the bundle's). */
async function readInputs(caseDir: string, signature: PointSignature, data?: string): Promise<Buffer> {
  const name = (arg: {name: string}) => `${data ?? caseDir}/${arg.name}.bin`;
  const parts = await Promise.all(
    signature.args.map((arg) =>
      readFile(path.join(caseDir, `${arg.name}.bin`)).catch((error: NodeJS.ErrnoException) => {
        throw new HarnessError(
          `${name(arg)}: cannot read (${error.code ?? error.message}); every case holds one file per argument of the bundle's signature`,
          data ? 'bad-data' : 'bad-bundle',
        );
      }),
    ),
  );
  for (const [k, arg] of signature.args.entries()) {
    if (parts[k]!.length !== byteSize(arg)) {
      const who = data ? name(arg) : `the bundle made ${name(arg)}`;
      throw new HarnessError(`${who} with ${parts[k]!.length} bytes, expected ${byteSize(arg)} at this point`, data ? 'bad-data' : 'bad-bundle');
    }
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}

/**
 * The HarnessError for a bundle that failed. Seeds derived from the test salt
 * (and the warm-up seed, one above the largest) are secret: where the bundle's
 * message names one, it says `<derived seed>` instead, and the original error
 * is not kept as the cause.
 */
export function bundleFailure(what: string, error: unknown, hiddenSeeds: readonly number[] = []): HarnessError {
  let message = messageOf(error);
  // Longest first, so no seed's digits are left inside another's.
  for (const seed of [...hiddenSeeds].map(String).sort((a, b) => b.length - a.length)) message = message.split(seed).join('<derived seed>');
  return new HarnessError(`${what}: ${message}`, 'bad-bundle', hiddenSeeds.length ? {} : {cause: error});
}
