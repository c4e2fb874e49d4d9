/**
 * `arbor benchmark import algotune <source> <zoo>`: each AlgoTune task (a `Task` subclass in
 * `AlgoTuneTasks/<task>/<task>.py` with `generate_problem`, `solve` and `is_solution`) becomes the
 * zoo entry `algotune_<task>`: a Python-authored bundle that carries problems and answers in arbor's
 * object encoding (lib/eval/objects.py), a plan with `interface = "solve"`, the task's own solve as
 * reference and baseline, README and PROVENANCE. Each task is inspected first in a sandboxed process
 * of its own (inspect.ts, algotune/inspect_task.py: the target-time search for n, the generator
 * twice, the task's own answer through the encoding and its validator, wrong answers its validator
 * accepts); a task that cannot be imported is skipped with its reason, and so is one whose validator
 * accepts an answer that costs nothing (weak.ts) unless allowed. No code of the task runs outside the
 * sandbox: a new entry is built in a hidden sibling, locked there from its files alone (the runnable
 * rules; no case is made) and renamed into place. `.arbor-import.json` records the source and the hash of
 * every file the importer wrote: importing again rewrites an entry only when its source changed,
 * and never a file its user changed.
 */
import {execFile} from 'node:child_process';
import {createHash} from 'node:crypto';
import {existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {UsageError} from '../errors.js';
import {writeFileAtomic} from '../files.js';
import {inspectTask, type Inspection, type ProbeFinding} from './inspect.js';
import {debianPython, interpreters, type Interpreter} from './interpreters.js';
import {lockFromFiles} from './entry-lock.js';
import {validatorStrength, weakProbes, weakValidatorDetail} from './weak.js';
import {debianPackages, devSeeds, fherma, plan, provenance, readDescription, readme, solverModule, testSeeds} from './entry-text.js';
import type {ValidatorStrength} from '../zoo/rules/weak-validator.js';
import {editedFiles, inputsDigest} from './record.js';
import {type Preset, presetFile, presetTasks} from './preset.js';

/** What the importer's record in an entry says (`.arbor-import.json`). */
interface ImportRecord {
  importer: string;
  source: {suite: 'algotune'; commit: string | null; task: string; file: string; sha256: string};
  /** The interpreter the task was inspected with, which its bundle names (`[entry] python`). */
  python?: string;
  /** The digest of the import's inputs (inputsDigest): the same digest again writes nothing. */
  inputs?: string;
  /** The hash of every file the importer wrote, by path relative to the entry. */
  files: Record<string, string>;
  /** The probes that cost nothing which is_solution accepted (imported by --allow-weak-validators): what the weak-validator rule reads. */
  weakValidator?: {accepted: string[]};
  /** The validator's strength measured at the import (weak.ts's validatorStrength): what `list` shows. */
  validator?: ValidatorStrength;
}

/** Why a task was not imported. */
type SkipReason =
  | 'missing-module'
  | 'no-task'
  | 'generator-fails'
  | 'not-deterministic'
  | 'solve-fails'
  | 'own-answer-rejected'
  | 'not-encodable'
  | 'too-slow'
  | 'timeout'
  | 'not-locked'
  | 'user-folder'
  | 'user-edited'
  | 'weak-validator'
  | 'older-module';

/** What importing one task came to. */
export interface TaskOutcome {
  task: string;
  entry: string;
  status: 'imported' | 'updated' | 'unchanged' | 'skipped';
  reason?: SkipReason;
  detail?: string;
  /** A module the task needs and this machine's python lacks. */
  module?: string;
  /** The point chosen, and what the task's solve took there. */
  point?: {n: number; B: number; S: number};
  solveMs?: number;
  /** Wrong answers the task's validator accepts. */
  probes?: ProbeFinding[];
  seconds: number;
}

/** The whole import. */
export interface ImportSummary {
  source: string;
  commit: string | null;
  zoo: string;
  tasks: TaskOutcome[];
  counts: {imported: number; updated: number; unchanged: number; skipped: number};
  skippedBy: Partial<Record<SkipReason, number>>;
  /** Debian packages that would let more tasks import, with the tasks each would bring. */
  packages: {package: string; module: string; tasks: string[]}[];
  seconds: number;
}

/** Options of importAlgoTune. */
export interface ImportOptions {
  cwd?: string;
  /** Only these tasks (AlgoTune names); with `preset`, these and the preset's. */
  tasks?: string[];
  /** Only the tasks of this AlgoTune preset, as the checkout defines it (preset.ts). */
  preset?: Preset;
  /** The time the task's own solve should take at the chosen n (ms). */
  targetMs?: number;
  /** Tasks inspected at once. */
  jobs?: number;
  /** The python that inspects tasks (default: ARBOR_PYTHON, else python3). */
  python?: string;
  /** Import a task whose validator accepts an answer that costs nothing (weak.ts) instead of skipping it. */
  allowWeakValidators?: boolean;
  /** Run each task's code without the sandbox where there is none (else the import refuses). */
  unsandboxed?: boolean;
  /** Overwrite an entry whose files its user changed (else that task is refused). */
  force?: boolean;
  /** A line per task as it finishes. */
  onTask?: (outcome: TaskOutcome, done: number, total: number) => void;
  env?: NodeJS.ProcessEnv;
}

const importer = 'arbor-import-algotune/6';
const here = path.dirname(fileURLToPath(import.meta.url));
/** lib/import/algotune (the Python files), from lib/import (sources) or dist/lib/import (built). */
function assetDir(): string {
  const candidates = [path.resolve(here, '../../../lib/import/algotune'), path.resolve(here, 'algotune')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'inspect_task.py')));
  if (!found) throw new Error(`arbor's AlgoTune importer files are missing (looked in ${candidates.join(', ')}); reinstall arbor`);
  return found;
}
function objectsFile(): string {
  return path.resolve(assetDir(), '../../eval/objects.py');
}

/** The tasks folder of an AlgoTune checkout (or the folder itself), and the checkout's root. */
function tasksFolder(source: string): {tasks: string; root: string} {
  if (!existsSync(source) || !statSync(source).isDirectory())
    throw new UsageError(`${source}: no such folder; give an AlgoTune checkout or its AlgoTuneTasks folder`, 'no-source');
  const nested = path.join(source, 'AlgoTuneTasks');
  if (existsSync(nested) && statSync(nested).isDirectory()) return {tasks: nested, root: source};
  if (existsSync(path.join(source, 'base.py')) || readdirSync(source).some((name) => existsSync(path.join(source, name, `${name}.py`)))) {
    return {tasks: source, root: path.dirname(source)};
  }
  throw new UsageError(
    `${source}: neither an AlgoTune checkout (no AlgoTuneTasks folder) nor a tasks folder (no <task>/<task>.py); give the folder you cloned github.com/oripress/AlgoTune into`,
    'no-source',
  );
}

/** Every task of the folder: a subfolder holding `<name>/<name>.py`, sorted. */
function listTasks(tasks: string): string[] {
  return readdirSync(tasks)
    .filter((name) => /^[A-Za-z0-9_]+$/.test(name) && existsSync(path.join(tasks, name, `${name}.py`)))
    .sort();
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

function run(
  command: string,
  args: string[],
  options: {cwd?: string; timeout?: number; env?: NodeJS.ProcessEnv},
): Promise<{code: number | null; stdout: string; stderr: string; timedOut: boolean}> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {cwd: options.cwd, timeout: options.timeout, env: options.env, maxBuffer: 16 << 20, killSignal: 'SIGKILL'},
      (error, stdout, stderr) => {
        const code = error ? (typeof (error as NodeJS.ErrnoException & {code?: unknown}).code === 'number' ? (error as {code: number}).code : null) : 0;
        resolve({code, stdout: String(stdout), stderr: String(stderr), timedOut: Boolean(error && (error as {killed?: boolean}).killed)});
      },
    );
  });
}

/** The commit of the checkout `root` (null when it is not a git checkout). */
async function sourceCommit(root: string): Promise<string | null> {
  // Only a checkout of its own: a folder inside another repository (a copy, a fixture) has no commit of AlgoTune's.
  const result = await run('git', ['-C', root, 'rev-parse', '--show-toplevel', 'HEAD'], {});
  const [top, commit] = result.stdout.trim().split('\n');
  if (result.code !== 0 || !top || !commit || !/^[0-9a-f]{40}$/.test(commit)) return null;
  return realpathSync(top) === realpathSync(root) ? commit : null;
}

/** The tasks to import: every one, or the union of `--task`'s and the preset's, each of which the checkout must hold. */
function chosenTasks(all: string[], tasksDir: string, root: string, options: ImportOptions): string[] {
  if (!options.tasks?.length && !options.preset) return all;
  const unknown = (options.tasks ?? []).filter((name) => !all.includes(name));
  if (unknown.length)
    throw new UsageError(`--task ${unknown.join(', ')}: no such task in ${tasksDir}; its tasks are the folders holding <task>/<task>.py`, 'no-task');
  const preset = options.preset ? presetTasks(root, options.preset) : [];
  // As AlgoTune's launcher does, a preset naming a task the checkout lacks is refused rather than imported in part.
  const absent = preset.filter((name) => !all.includes(name));
  if (absent.length)
    throw new UsageError(
      `--preset ${options.preset}: ${path.join(root, presetFile)} lists ${absent.join(', ')}, not in ${tasksDir}; check out a commit whose tasks match its preset`,
      'no-task',
    );
  const wanted = new Set([...(options.tasks ?? []), ...preset]);
  return all.filter((name) => wanted.has(name));
}

/** Round a byte count up to a multiple of 4 KiB. */
const roundUp = (bytes: number) => Math.ceil(bytes / 4096) * 4096;

/** The capacities of the problem and answer tensors: room for larger draws and for answers a faster solver encodes differently. */
function capacities(problemBytes: number, solutionBytes: number): {B: number; S: number} {
  // A fresh draw may be larger than the ones measured; a faster solver may return a list where the task
  // returns an int32 array (9 bytes an element in place of 4).
  return {B: roundUp(1.5 * problemBytes + 65536), S: roundUp(3 * solutionBytes + 65536)};
}

/** Import every (or every named) task of `source` into `zoo`. */
export async function importAlgoTune(source: string, zoo: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const started = process.hrtime.bigint();
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const {tasks: tasksDir, root} = tasksFolder(path.resolve(cwd, source));
  const jobs = options.jobs ?? 1;
  if (!Number.isInteger(jobs) || jobs < 1)
    throw new UsageError(`--jobs ${options.jobs}: give a whole number of tasks to import at once, 1 or more`, 'bad-jobs');
  const zooDir = path.resolve(cwd, zoo);
  if (existsSync(zooDir) && !statSync(zooDir).isDirectory()) throw new UsageError(`${zoo}: not a folder; give the zoo folder to import into`, 'bad-zoo');
  mkdirSync(zooDir, {recursive: true});
  const all = listTasks(tasksDir);
  if (all.length === 0) throw new UsageError(`${source}: no tasks found (no <task>/<task>.py under ${tasksDir})`, 'no-source');
  const names = chosenTasks(all, tasksDir, root, options);
  // The sandbox is checked once, before any task: without one the import refuses (exit 1) unless --unsandboxed.
  const pythons = interpreters(options.python, options.unsandboxed === true, env);
  const commit = await sourceCommit(root);
  const license = ['LICENSE', 'LICENSE.md', 'LICENSE.txt'].map((name) => path.join(root, name)).find((file) => existsSync(file));
  const context: TaskContext = {
    tasksDir,
    zooDir,
    commit,
    license: license ? readFileSync(license, 'utf8') : undefined,
    pythons,
    targetMs: options.targetMs ?? 50,
    allowWeak: options.allowWeakValidators === true,
    force: options.force === true,
  };
  const outcomes: TaskOutcome[] = new Array(names.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < names.length) {
      const k = next++;
      outcomes[k] = await importTask(names[k]!, context);
      options.onTask?.(outcomes[k]!, ++done, names.length);
    }
  };
  await Promise.all(Array.from({length: Math.max(1, Math.min(jobs, names.length))}, worker));

  const counts = {imported: 0, updated: 0, unchanged: 0, skipped: 0};
  const skippedBy: ImportSummary['skippedBy'] = {};
  const missing = new Map<string, string[]>();
  for (const o of outcomes) {
    counts[o.status]++;
    if (o.reason) skippedBy[o.reason] = (skippedBy[o.reason] ?? 0) + 1;
    if (o.reason === 'missing-module' && o.module) missing.set(o.module, [...(missing.get(o.module) ?? []), o.task]);
  }
  const packages = [...missing]
    .map(([module, tasks]) => ({package: debianPackages[module] ?? `(none: ${module} is not packaged by Debian)`, module, tasks}))
    .sort((a, b) => b.tasks.length - a.tasks.length || a.module.localeCompare(b.module));
  return {source, commit, zoo, tasks: outcomes, counts, skippedBy, packages, seconds: Number(process.hrtime.bigint() - started) / 1e9};
}

interface TaskContext {
  tasksDir: string;
  zooDir: string;
  commit: string | null;
  license: string | undefined;
  pythons: Interpreter[];
  targetMs: number;
  allowWeak: boolean;
  force: boolean;
}

async function importTask(task: string, ctx: TaskContext): Promise<TaskOutcome> {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  const entryName = `algotune_${task}`;
  const dir = path.join(ctx.zooDir, entryName);
  const taskFile = path.join(ctx.tasksDir, task, `${task}.py`);
  const source = readFileSync(taskFile);
  const digest = sha256(source);
  const skip = (reason: SkipReason, detail: string, extra: Partial<TaskOutcome> = {}): TaskOutcome => ({
    task,
    entry: entryName,
    status: 'skipped',
    reason,
    detail,
    ...extra,
    seconds: seconds(),
  });

  const record = readRecord(dir);
  if (existsSync(dir) && !record) {
    return skip('user-folder', `${entryName} exists and arbor did not import it (no .arbor-import.json): move or remove it to import the task`);
  }
  // The same inputs (the task's files, this importer and its options, the interpreter the entry names): nothing to write.
  if (record?.python && record.inputs === taskInputs(ctx, task, record.python)) {
    return {task, entry: entryName, status: 'unchanged', seconds: seconds()};
  }
  const edited = record ? editedFiles(dir, record.files) : [];
  if (edited.length && !ctx.force) {
    return skip(
      'user-edited',
      `${entryName}: ${edited.join(', ')} changed since the import wrote ${edited.length > 1 ? 'them' : 'it'}; pass --force to overwrite (your changes are lost), or move the entry away first`,
    );
  }

  const found = await inspectWithPythons(ctx, taskFile, task);
  const inspection = found.inspection;
  if (!inspection.ok)
    return skip(
      (inspection.reason as SkipReason | undefined) ?? 'no-task',
      inspection.detail ?? 'inspecting the task failed',
      inspection.module ? {module: inspection.module} : {},
    );
  const weak = weakProbes(inspection.probes ?? []);
  if (weak.length && !ctx.allowWeak) return skip('weak-validator', weakValidatorDetail(weak), {probes: inspection.probes});
  const {B, S} = capacities(inspection.problem_bytes!, inspection.solution_bytes!);
  const point = {n: inspection.n!, B, S};
  const files = entryFiles(task, source.toString('utf8'), digest, ctx, inspection, point, found.python);

  // A new entry is built and locked in a hidden sibling, then renamed into place; an update (nothing of it edited, or --force) in place.
  const fresh = !record;
  const target = fresh ? path.join(ctx.zooDir, `.${entryName}.importing-${process.pid}`) : dir;
  if (fresh) rmSync(target, {recursive: true, force: true});
  const written: Record<string, string> = {};
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(target, rel);
    const hash = sha256(content);
    mkdirSync(path.dirname(file), {recursive: true});
    writeFileAtomic(file, content);
    written[rel] = hash;
  }
  const {writeFingerprint} = await import('../bundle/bundle.js');
  writeFingerprint(path.join(target, 'bundle'));
  written['bundle/fherma.toml'] = sha256(readFileSync(path.join(target, 'bundle', 'fherma.toml')));
  const newRecord: ImportRecord = {
    importer,
    source: {suite: 'algotune', commit: ctx.commit, task, file: `AlgoTuneTasks/${task}/${task}.py`, sha256: digest},
    python: found.python,
    inputs: taskInputs(ctx, task, found.python),
    files: written,
    ...(weak.length ? {weakValidator: {accepted: weak.map((p) => p.probe)}} : {}),
    validator: validatorStrength(inspection.probes ?? [], inspection.probes_tried ?? []),
  };

  const refused = await lockFromFiles(target);
  if (refused) {
    if (fresh) rmSync(target, {recursive: true, force: true});
    return skip('not-locked', refused);
  }
  writeFileAtomic(path.join(target, '.arbor-import.json'), `${JSON.stringify(newRecord, null, 2)}\n`);
  if (fresh) renameSync(target, dir);
  const solveMs = median(inspection.solve_ms ?? []);
  return {
    task,
    entry: entryName,
    status: fresh ? 'imported' : 'updated',
    point,
    solveMs,
    ...(inspection.probes?.length ? {probes: inspection.probes} : {}),
    seconds: seconds(),
  };
}

/** The digest of what importing `task` with `python` reads (record.ts). */
function taskInputs(ctx: TaskContext, task: string, python: string): string {
  return inputsDigest({
    importer,
    options: {targetMs: ctx.targetMs, allowWeak: ctx.allowWeak, commit: ctx.commit},
    python,
    license: ctx.license,
    taskDir: path.join(ctx.tasksDir, task),
  });
}

/**
 * The task inspected with the first interpreter that has every module it imports (interpreters.ts).
 * Where none has them, the skip names what each lacks and the package that would bring it.
 */
async function inspectWithPythons(ctx: TaskContext, taskFile: string, task: string): Promise<{inspection: Inspection; python: string}> {
  const assets = {dir: assetDir(), objects: objectsFile(), probes: path.resolve(assetDir(), '../../probe/probe_solve.py')};
  const lacking: {python: string; module: string; older?: string}[] = [];
  for (const candidate of ctx.pythons) {
    const inspector = candidate.inspector();
    if (!inspector) continue;
    const inspection = await inspectTask(inspector, assets, taskFile, task, {targetMs: ctx.targetMs, seeds: [...devSeeds, ...testSeeds]});
    // A module missing, or older than the task needs (a name it lacks): the next interpreter may have it.
    if (inspection.ok || (inspection.reason !== 'missing-module' && inspection.reason !== 'older-module')) return {inspection, python: candidate.python};
    lacking.push({
      python: candidate.python,
      module: inspection.module ?? 'a module',
      ...(inspection.reason === 'older-module' ? {older: inspection.detail} : {}),
    });
  }
  const older = lacking.filter((l) => l.older);
  if (older.length) {
    const detail = `${lacking.map((l) => `${l.python}: ${l.older ?? `lacks ${l.module}`}`).join('; ')}; set ARBOR_PYTHON to a python3 whose ${older[0]!.module} is newer`;
    return {inspection: {ok: false, reason: 'older-module', module: older[0]!.module, detail}, python: ctx.pythons[0]!.python};
  }
  // The summary counts the module Debian's python lacks: the one a package would bring.
  const module = (lacking.find((l) => l.python === debianPython) ?? lacking[0])?.module ?? 'a module';
  return {inspection: {ok: false, reason: 'missing-module', module, detail: missingDetail(lacking, module)}, python: ctx.pythons[0]!.python};
}

/** `/root/.pyenv/shims/python3 lacks sklearn, /usr/bin/python3 lacks sklearn; apt-get install python3-sklearn gives /usr/bin/python3 sklearn`. */
function missingDetail(lacking: {python: string; module: string}[], module: string): string {
  const lacks = lacking.map((l) => `${l.python} lacks ${l.module}`).join(', ');
  const debian = lacking.some((l) => l.python === debianPython);
  const hint = debianPackages[module]
    ? `apt-get install ${debianPackages[module]} gives ${debian ? debianPython : `${debianPython} (with python3-numpy)`} ${module}`
    : `Debian packages no ${module}: install it into one of them (e.g. pip install ${module}), or set ARBOR_PYTHON to a python3 that has it`;
  return `${lacks || `no interpreter could inspect the task (${module})`}; ${hint}`;
}

function readRecord(dir: string): ImportRecord | undefined {
  const file = path.join(dir, '.arbor-import.json');
  if (!existsSync(file)) return undefined;
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as ImportRecord;
    return record && typeof record.files === 'object' && record.source ? record : undefined;
  } catch {
    return undefined;
  }
}

function median(values: number[]): number | undefined {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Every file of the entry, by path relative to it. */
function entryFiles(
  task: string,
  source: string,
  digest: string,
  ctx: TaskContext,
  inspection: Inspection,
  point: {n: number; B: number; S: number},
  python: string,
): Record<string, string> {
  const assets = assetDir();
  const read = (name: string) => readFileSync(path.join(assets, name), 'utf8');
  const name = `algotune_${task}`;
  const description = readDescription(path.join(ctx.tasksDir, task));
  const solver = solverModule(task, source, read('base.py'), inspection.submodules ?? []);
  const files: Record<string, string> = {
    'README.md': readme(name, task, description, point),
    'PROVENANCE.md': provenance(name, task, digest, ctx, inspection, point),
    'plan.toml': plan(name, point),
    'eval.sh': readFileSync(path.resolve(assets, '../../../templates/eval-sh/eval.sh'), 'utf8').replace('{{made_by_sh}}', "''"),
    'reference.py': solver,
    'solution.py': solver,
    'bundle/fherma.toml': fherma(task, digest, python),
    'bundle/algotune_entry.py': read('entry.py')
      .replace('{{task}}', task)
      .replace('{{preimport}}', JSON.stringify(inspection.submodules ?? [])),
    'bundle/generate.py': read('generate.py'),
    'bundle/oracle.py': read('oracle.py'),
    'bundle/verify.py': read('verify.py'),
    'bundle/arbor_objects.py': readFileSync(objectsFile(), 'utf8'),
    'bundle/AlgoTuneTasks/__init__.py': '"""arbor\'s stand-in for AlgoTune\'s AlgoTuneTasks package (see base.py)."""\n',
    'bundle/AlgoTuneTasks/base.py': read('base.py'),
    [`bundle/AlgoTuneTasks/${task}/${task}.py`]: source,
  };
  if (ctx.license) files['bundle/AlgoTuneTasks/LICENSE'] = ctx.license;
  return files;
}
