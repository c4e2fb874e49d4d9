/**
 * Stage 2 of an eval (pipeline.ts): private snapshots of everything that
 * runs, the bundle loaded and its authored modules imported, the sandbox
 * chosen and checked once, the clock, and the seeds: the EvalContext every
 * point's stages share.
 */
import {randomBytes} from 'node:crypto';
import {chmod, cp, mkdir, rm} from 'node:fs/promises';
import path from 'node:path';
import {pathToFileURL} from 'node:url';
import type {Bundle} from '../bundle/index.js';
import type {EvalContext, Side} from './context.js';
import {HarnessError} from './errors.js';
import {type Clock, type Plan, type Split} from '../benchmark/plan.js';
import {bundleFailure, casePairing, repetitionsPerRun} from './point.js';
import {
  cgroupBounds,
  cgroupsWork,
  confinementFor,
  counterProblem,
  objectsBeside,
  droppedRunProblem,
  nprocPerNamespace,
  runsAsRoot,
  findBwrap,
  findValgrind,
  openToRuns,
  sandboxProblem,
  tmpfsBounded,
  type Confinement,
  type SandboxKind,
} from '../sandbox/index.js';
import {drawsFreshCases, publishedSeeds, splitSeeds, warmupSeed} from './seeds.js';
import {hashTree} from './tamper.js';
import type {BundleApi, EvalReport, SideRequest, SidesOptions} from './types.js';
import {copyRegularFiles} from './snapshot.js';
import {runnerPath} from './runner-path.js';

export interface PrepareInput {
  options: SidesOptions;
  env: NodeJS.ProcessEnv;
  plan: Plan;
  split: Split;
  sides: SideRequest[];
  python: EvalContext['python'];
  cpu?: string;
  tmp: string;
  report: EvalReport;
  /** Set fields on every side's report. */
  share: (fields: Partial<EvalReport>) => void;
  progress: EvalContext['progress'];
  timed: EvalContext['timed'];
  deadline: () => number;
}

/**
 * Private snapshots of everything that runs: the bundle (loaded, and its
 * authored modules imported, before any solution runs), the runner, the
 * reference, and the editable files (with --solution in place of the plan's
 * solution file); then the sandbox, checked once, and the seeds.
 */
export async function prepare(input: PrepareInput): Promise<EvalContext> {
  const {options, plan, tmp, report, progress, timed} = input;
  const {protectedDir, bundleDir, runner, entry, sides, referenceFiles} = await snapshotAll(input);
  const {api, bundle} = await loadAuthored(input, bundleDir);

  const mounts = {runner, solutionDir: sides[0]!.files.dir, entry, scratch: tmp};
  // Its seccomp program built (a Python start) and a trial run of the sandbox.
  const sandbox = await timed('sandbox', () => chooseSandbox(input, mounts));
  input.share({sandbox: sandbox.kind});
  if (sandbox.confinement) {
    describeConfinement(input, sandbox.confinement, sandbox.kind === 'bwrap' ? sandbox.bwrap : undefined);
    // Started by root, a run reads its files as a uid of its own: the snapshots it sees (never the protected ones) are opened to it.
    if (sandbox.confinement.dropToOwnUid) {
      openToRuns([runner, objectsBeside(runner), ...sides.map((side) => side.files.dir), ...(referenceFiles ? [referenceFiles.dir] : [])]);
      if (sandbox.kind === 'none') await openWorkFolder(tmp, protectedDir);
    }
  }
  const {clock, valgrind} = await chooseClock(input, sandbox, mounts);

  const {seeds, derived, fresh, secretCases} = seedsOf(input, bundle);
  const tamperCheck = sandbox.kind === 'none';
  return {
    plan,
    api,
    bundle,
    runner,
    sides,
    minRepetitions: options.minRepetitions,
    ...(options.race ? {race: options.race} : {}),
    referenceFiles,
    python: input.python,
    sandbox: sandbox.kind,
    clock,
    valgrind,
    bwrap: sandbox.bwrap,
    confinement: sandbox.confinement,
    limits: runLimits(plan),
    cpu: input.cpu,
    tmp,
    protectedDir,
    tamperCheck,
    protectedHash: tamperCheck ? await timed('check', () => hashTree([protectedDir])) : undefined,
    seeds,
    warmupSeed: warmupSeed(plan, seeds),
    // Drawn here, held by the harness alone: a run never learns a seed before its case arrives.
    ...(fresh ? {nonce: randomBytes(32)} : {}),
    excludedSeeds: publishedSeeds(plan),
    secretCases,
    hiddenSeeds: derived ? [...seeds, warmupSeed(plan, seeds)] : [],
    runCount: 0,
    repetitionsPerRun: repetitionsPerRun(process.env, sides.length === 2),
    pairing: casePairing() ? 'case' : 'run',
    ...(options.compareWithReference && plan.metric === 'speedup' ? {referenceDifferences: []} : {}),
    progress,
    report,
    deadline: input.deadline,
    timed,
  };
}

/** The private snapshots: the protected files (the bundle, the runner), each side's editable files, the reference. */
async function snapshotAll(input: PrepareInput) {
  const {plan, tmp} = input;
  const protectedDir = path.join(tmp, 'protected');
  await mkdir(protectedDir);
  const bundleDir = path.join(protectedDir, 'bundle');
  // Through the one copier too: a bundle may be a third party's (an imported task), and root evaluates it;
  // a link inside it, locked by its target's name, would otherwise be read as whoever runs the eval.
  await copyRegularFiles(protectedDir, ['bundle'], protectedDir, {what: 'bundle', rename: {bundle: plan.bundle}});
  const runner = path.join(protectedDir, 'runner.py');
  await cp(runnerPath(), runner);
  // runner.py loads the object encoding of interface = "solve" from its own folder.
  await cp(objectsBeside(runnerPath()), objectsBeside(runner));
  const entry = path.relative(plan.dir, plan.solution);
  const sides: Side[] = [];
  for (const [s, side] of input.sides.entries()) {
    const files = {dir: path.join(tmp, input.sides.length > 1 ? `solution-${s}` : 'solution'), entry};
    const from = side.folder ?? plan.dir;
    await copyRegularFiles(from, plan.editable, files.dir, {what: side.label, rename: side.folder ? undefined : {[entry]: side.solution!}});
    sides.push({label: side.label, files});
  }
  let referenceFiles: EvalContext['referenceFiles'];
  if (plan.reference) {
    referenceFiles = {dir: path.join(tmp, 'reference'), entry: path.basename(plan.reference)};
    await copyRegularFiles(path.dirname(plan.reference), [referenceFiles.entry], referenceFiles.dir, {what: 'reference'});
  }

  return {protectedDir, bundleDir, runner, entry, sides, referenceFiles};
}

/** The bundle, loaded from its snapshot, and its authored modules imported before any solution runs. */
async function loadAuthored(input: PrepareInput, bundleDir: string): Promise<{api: BundleApi; bundle: Bundle}> {
  const {options, plan, timed} = input;
  const api = options.bundleApi ?? (await import('../bundle/index.js'));
  let bundle: Bundle;
  try {
    bundle = await timed('load', () => api.loadBundle(bundleDir));
  } catch (error) {
    const shown = path.relative(options.cwd ?? process.cwd(), plan.bundle) || plan.bundle;
    // It loads from the eval's private copy: name the author's folder, the one to edit, instead.
    const message = (error instanceof Error ? error.message : String(error)).split(bundleDir).join(shown);
    throw bundleFailure(`cannot load the bundle ${shown}`, Object.assign(new Error(message), {name: (error as Error)?.name ?? 'Error'}));
  }
  // Load the authored modules now, before any solution runs: the module cache
  // then holds these versions whatever happens to the files later.
  await timed('load', () => preloadAuthored(bundle));

  return {api, bundle};
}

/** Which seeds the split runs, and whether its cases are secret. */
function seedsOf(input: PrepareInput, bundle: Bundle) {
  const {options, plan, split, report} = input;
  // Salted test seeds are keyed by the plan's name, else the bundle's spec reference (stable across copies).
  const spec = (bundle as {spec?: unknown}).spec;
  const seedName = plan.named || typeof spec !== 'string' ? plan.name : spec;
  const fresh = drawsFreshCases(plan);
  const {seeds, derived} =
    plan.splitKind === 'path' ? {seeds: [], derived: false} : fresh ? {seeds: plan[split].seeds, derived: false} : splitSeeds(plan, split, input.env, seedName);
  if (plan.splitKind !== 'path') input.share({seeds: {source: fresh ? 'fresh' : derived ? 'derived' : 'published', count: report.seeds.count}});
  // A salted test split runs in a child that never holds the salt (lib/run/eval-child.ts): its derived seeds
  // arrive as an override of the plan's test seeds, and its cases are as secret as derived ones.
  const overridden = split === 'test' && (options.planOverride as {test?: unknown} | undefined)?.test !== undefined;
  const secretCases = derived || overridden || (fresh && split === 'test');
  return {seeds, derived, fresh, secretCases};
}

/**
 * bubblewrap where it can start; otherwise dev runs without a sandbox (with a
 * loud warning) and test refuses, unless --unsandboxed asked for none.
 */
function chooseSandbox(input: PrepareInput, mounts: Parameters<typeof sandboxProblem>[2]): {kind: SandboxKind; bwrap?: string; confinement?: Confinement} {
  if (input.options.unsandboxed) {
    input.progress(
      'line',
      `warning: --unsandboxed: the solution runs WITHOUT a sandbox, with ${runsAsRoot() ? 'the access of an unprivileged uid' : "your user's access"} to this machine; its score is not proof against cheating`,
    );
    return unsandboxed(input);
  }
  const bwrap = findBwrap(input.env);
  let confinement: Confinement | undefined;
  let problem: string | undefined;
  try {
    confinement = confinementFor(input.python, runLimits(input.plan), cgroupBounds(runLimits(input.plan)).memory);
    problem = sandboxProblem(bwrap, input.python, mounts, confinement);
  } catch (error) {
    if (!(error instanceof HarnessError)) throw error;
    problem = error.message;
  }
  if (!problem) return {kind: 'bwrap', bwrap, confinement};
  if (input.split === 'test') {
    throw new HarnessError(
      `${problem}: the test split is scored only in the sandbox; install bubblewrap (e.g. apt-get install bubblewrap; arbor doctor says what this machine lacks), or pass --unsandboxed to score it without one`,
      'no-sandbox',
    );
  }
  input.progress(
    'line',
    `warning: ${problem}; running the solution WITHOUT a sandbox (install bubblewrap, e.g. apt-get install bubblewrap; arbor doctor says what this machine lacks): this score is not proof against cheating`,
  );
  return unsandboxed(input);
}

/**
 * Runs without a sandbox. Started by root, each still drops to a uid of its
 * own (no capabilities, the plan's limits through rlimits and its cgroup),
 * which must be able to start the interpreter; the work folder is then
 * opened to it only as far as its own files (runner, snapshots, scratch).
 */
function unsandboxed(input: PrepareInput): {kind: SandboxKind; confinement?: Confinement} {
  if (!runsAsRoot()) return {kind: 'none'};
  const confinement = confinementFor(input.python, runLimits(input.plan), cgroupBounds(runLimits(input.plan)).memory, false);
  const problem = droppedRunProblem(input.python, confinement);
  if (problem) throw new HarnessError(problem, 'no-sandbox');
  return {kind: 'none', confinement};
}

/**
 * The plan's clock, or a fallback said on stderr and in the report: wall time
 * where no cgroup can count CPU; the cpu clock (or wall) where valgrind is
 * missing or cannot count a run in the sandbox.
 */
async function chooseClock(
  input: PrepareInput,
  sandbox: {kind: SandboxKind; bwrap?: string; confinement?: Confinement},
  mounts: Parameters<typeof sandboxProblem>[2],
): Promise<{clock: Clock; valgrind?: string}> {
  const {plan, share, progress} = input;
  if (plan.metric !== 'speedup') return {clock: 'wall'};
  if (plan.clock === 'instructions') {
    const valgrind = findValgrind(input.env);
    const folder = path.join(input.tmp, 'counter-probe');
    await mkdir(folder);
    const problem = counterProblem(
      sandbox.kind,
      sandbox.bwrap,
      input.python,
      mounts,
      sandbox.confinement,
      valgrind ? {valgrind, folder, runId: 'probe'} : undefined,
    );
    await rm(folder, {recursive: true, force: true});
    if (!problem) {
      share({clock: 'instructions'});
      progress(
        'line',
        `note: the instructions clock counts inside the solution's own process, and a determined solution can hide part of its work from it; for an untrusted solution, confirm a gain on the cpu clock`,
      );
      return {clock: 'instructions', valgrind};
    }
    const fallback = cgroupsWork() ? 'cpu' : 'wall';
    const clockNote = `${problem}, so the instructions clock fell back to the ${fallback} clock`;
    share({clock: fallback, clockNote});
    progress('line', `warning: ${clockNote}; load on this machine moves the score`);
    return {clock: fallback};
  }
  if (plan.clock === 'cpu' && !cgroupsWork()) {
    const clockNote = 'no cgroup could be made for a run (it needs root or a delegated cgroup), so the CPU clock fell back to wall time';
    share({clock: 'wall', clockNote});
    progress('line', `warning: ${clockNote}; load on this machine moves the score`);
    return {clock: 'wall'};
  }
  share({clock: plan.clock});
  return {clock: plan.clock};
}

/**
 * Without a sandbox, a run of its own uid reaches its runner, snapshots and
 * scratch folder by their paths: the work folder and the protected folder
 * are opened for passing through (0711), never for listing, and what the run
 * must not read (the bundle, the made cases and expected answers) stays 0700.
 */
async function openWorkFolder(tmp: string, protectedDir: string): Promise<void> {
  await mkdir(path.join(tmp, 'points'), {mode: 0o700});
  await mkdir(path.join(tmp, 'runs'), {mode: 0o711});
  await chmod(path.join(tmp, 'runs'), 0o711);
  await chmod(path.join(protectedDir, 'bundle'), 0o700);
  await chmod(protectedDir, 0o711);
  await chmod(tmp, 0o711);
}

/** A run's limits in bytes, from the plan's MiB. */
function runLimits(plan: Plan): EvalContext['limits'] {
  return {memoryBytes: plan.memoryMb * 2 ** 20, processes: plan.processes, tmpfsBytes: plan.tmpfsMb * 2 ** 20};
}

/** The report's account of who runs are and how each limit holds (cgroup, rlimit, tmpfs size, or not at all); `bwrap` undefined without a sandbox. */
function describeConfinement(input: PrepareInput, confinement: Confinement, bwrap: string | undefined): void {
  const {plan} = input;
  const bounds = cgroupBounds(runLimits(plan));
  const enforcedBy = {
    memory: bounds.memory ? 'cgroup' : 'rlimit',
    processes: bounds.processes ? 'cgroup' : confinement.dropToOwnUid || (bwrap && nprocPerNamespace()) ? 'rlimit' : 'none',
    tmpfs: tmpfsBounded(bwrap) ? 'size' : bounds.memory ? 'cgroup' : 'none',
  } as const;
  input.share({
    runUser: confinement.dropToOwnUid ? 'own-uid' : 'caller',
    limits: {memoryMb: plan.memoryMb, processes: plan.processes, tmpfsMb: plan.tmpfsMb, enforcedBy},
  });
  const loose = Object.entries(enforcedBy)
    .filter(([, how]) => how === 'none')
    .map(([what]) => what);
  if (loose.length && bwrap)
    input.progress(
      'line',
      `warning: this machine cannot bound a run's ${loose.join(' and ')} (no cgroup controller for it, or an old bubblewrap): the plan's limits hold only in part`,
    );
}

/** Import the bundle's generator, oracle and verifier by the URLs lib/bundle uses, so they are cached. */
async function preloadAuthored(bundle: Bundle): Promise<void> {
  for (const file of Object.values(bundle.entry)) {
    if (typeof file !== 'string') continue;
    // A module that fails to load is reported by the step that needs it.
    await import(pathToFileURL(file).href).catch(() => {});
  }
}
