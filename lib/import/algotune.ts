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
import {strengthLine, validatorStrength, weakProbes, weakValidatorDetail} from './weak.js';
import type {ValidatorStrength} from '../zoo/rules/weak-validator.js';
import {editedFiles, inputsDigest} from './record.js';

export type {ProbeFinding} from './inspect.js';

/** What the importer's record in an entry says (`.arbor-import.json`). */
export interface ImportRecord {
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
export type SkipReason =
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
  /** Only these tasks (AlgoTune names). */
  tasks?: string[];
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

const importer = 'arbor-import-algotune/5';
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

/** The Debian package that provides a Python module, where Debian packages it. */
export const debianPackages: Record<string, string> = {
  numpy: 'python3-numpy',
  scipy: 'python3-scipy',
  networkx: 'python3-networkx',
  sklearn: 'python3-sklearn',
  sympy: 'python3-sympy',
  mpmath: 'python3-mpmath',
  cryptography: 'python3-cryptography',
  pywt: 'python3-pywt',
  skimage: 'python3-skimage',
  numba: 'python3-numba',
  ot: 'python3-pot',
  faiss: 'python3-faiss',
};

/** Dev seeds (the cases of `eval dev`) and test seeds, disjoint. */
const devSeeds = [0, 1, 2, 3];
const testSeeds = [1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007];

/** The tasks folder of an AlgoTune checkout (or the folder itself), and the checkout's root. */
export function tasksFolder(source: string): {tasks: string; root: string} {
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
export function listTasks(tasks: string): string[] {
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

/** Round a byte count up to a multiple of 4 KiB. */
const roundUp = (bytes: number) => Math.ceil(bytes / 4096) * 4096;

/** The capacities of the problem and answer tensors: room for larger draws and for answers a faster solver encodes differently. */
export function capacities(problemBytes: number, solutionBytes: number): {B: number; S: number} {
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
  let names = all;
  if (options.tasks?.length) {
    const unknown = options.tasks.filter((name) => !all.includes(name));
    if (unknown.length)
      throw new UsageError(`--task ${unknown.join(', ')}: no such task in ${tasksDir}; its tasks are the folders holding <task>/<task>.py`, 'no-task');
    names = all.filter((name) => options.tasks!.includes(name));
  }
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

function readDescription(folder: string): string {
  const file = path.join(folder, 'description.txt');
  return existsSync(file) ? readFileSync(file, 'utf8').replace(/\r\n?/g, '\n').trim() : '';
}

/**
 * The reference (and baseline solution): one self-contained file, since the eval shows a run its
 * solution files alone. arbor's stand-in for AlgoTuneTasks.base is installed under that name, the
 * task's module follows unchanged (a `from __future__` import moved to the top, where Python wants
 * it), and `Solver` calls the task's own solve.
 */
export function solverModule(task: string, source: string, base: string, submodules: string[] = []): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const future = lines.filter((line) => /^from __future__ import /.test(line));
  const body = lines.filter((line) => !/^from __future__ import /.test(line)).join('\n');
  const copyright = lines.filter((line) => /^#\s*(Copyright|https?:\/\/)/i.test(line)).slice(0, 2);
  return [
    ...future,
    `"""Solver of algotune_${task}: AlgoTune's own solve, the baseline to beat (AlgoTune's solver signature).`,
    '',
    'The eval calls Solver().solve(problem) once per case (the constructor is not timed) with the problem',
    "decoded from arbor's object encoding, and encodes what solve returns: return plain values (lists,",
    'dicts, tuples, numbers, strings, bytes, numpy arrays and scalars). See README.md.',
    '"""',
    ...copyright,
    'import sys as _arbor_sys',
    'import types as _arbor_types',
    '',
    "# arbor's stand-in for AlgoTuneTasks.base (register_task, Task), so the task's module below runs unchanged.",
    '_arbor_base = _arbor_types.ModuleType("AlgoTuneTasks.base")',
    `exec(compile(${JSON.stringify(base)}, "AlgoTuneTasks/base.py", "exec"), _arbor_base.__dict__)`,
    '_arbor_package = _arbor_types.ModuleType("AlgoTuneTasks")',
    '_arbor_package.__path__ = []',
    '_arbor_package.base = _arbor_base',
    '_arbor_sys.modules.setdefault("AlgoTuneTasks", _arbor_package)',
    '_arbor_sys.modules.setdefault("AlgoTuneTasks.base", _arbor_base)',
    ...(submodules.length
      ? ['', '# Submodules the task uses after a bare import of their package.', ...submodules.map((name) => `import ${name}  # noqa: F401`)]
      : []),
    '',
    `# ---- AlgoTuneTasks/${task}/${task}.py, as AlgoTune ships it ----`,
    body.trimEnd(),
    `# ---- end of AlgoTuneTasks/${task}/${task}.py ----`,
    '',
    '',
    'class Solver:',
    '    def __init__(self):',
    `        self.task = _arbor_base.TASK_REGISTRY[${JSON.stringify(task)}]()`,
    '',
    '    def solve(self, problem, **kwargs):',
    '        return self.task.solve(problem)',
    '',
  ].join('\n');
}

function fherma(task: string, digest: string, python: string): string {
  return `# The testing bundle of algotune_${task} (written by arbor benchmark import algotune).
# One u8 tensor carries a problem, one an answer, in arbor's object encoding (arbor_objects.py);
# n is AlgoTune's size parameter, B and S the two tensors' capacities in bytes.
spec = "algotune/${task}@${digest.slice(0, 12)}"
fingerprint = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

[entry]
generate = "generate.py"
oracle = "oracle.py"
verify = "verify.py"
python = ${JSON.stringify(python)}   # the interpreter that has the task's modules: the bundle and every run use it

[[point]]
name = "n"
type = "int"
min = 1
max = 1073741824

[[point]]
name = "B"
type = "int"
min = 16
max = 1073741824

[[point]]
name = "S"
type = "int"
min = 16
max = 1073741824

[[args]]
name = "problem"
type = "u8"
dims = ["B"]

[[results]]
name = "solution"
type = "u8"
dims = ["S"]
`;
}

function plan(name: string, point: {n: number; B: number; S: number}): string {
  const at = `{ n = ${point.n}, B = ${point.B}, S = ${point.S} }`;
  return `# Eval plan of ${name} (protected; written by arbor benchmark import algotune). See README.md.
name = "${name}"
bundle = "bundle"
solution = "solution.py"
interface = "solve"           # the solution is AlgoTune's Solver().solve(problem); problems and answers cross as bytes
metric = "speedup"            # mean over cases of reference seconds / solution seconds; higher is better
reference = "reference.py"
repetitions = 5               # the fewest; more until the score's 95% interval is within +-precision
clock = "cpu"                 # CPU seconds of the run's whole process tree
precision = 0.02
max_seconds = 40

[dev]
seeds = "${devSeeds[0]}-${devSeeds.at(-1)}"
points = [ ${at} ]

[test]
seeds = "${testSeeds[0]}-${testSeeds.at(-1)}"           # disjoint from dev; ARBOR_TEST_SALT replaces them with derived seeds
points = [ ${at} ]
`;
}

function readme(name: string, task: string, description: string, point: {n: number; B: number; S: number}): string {
  return `# ${name}: AlgoTune's ${task}, as fast as possible

Make \`solution.py\` solve AlgoTune's \`${task}\` task faster than the task's own solver, with answers
the task's own validator accepts. This entry was written by \`arbor benchmark import algotune\`
from AlgoTune (github.com/oripress/AlgoTune, MIT); PROVENANCE.md names the commit.

## The task (AlgoTune's description)

${description || '(the task has no description.txt)'}

## The contract

\`solution.py\` follows AlgoTune's solver signature:

\`\`\`python
class Solver:
    def __init__(self): ...              # not timed
    def solve(self, problem, **kwargs):  # timed: one call per case
        return solution
\`\`\`

(a module-level \`solve(problem)\` works too). The problem is decoded from arbor's object encoding
before \`solve\` is called: dicts, lists, tuples, numbers, strings, bytes and numpy arrays, as
AlgoTune's generator made them. What \`solve\` returns is encoded back to bytes in the same process,
inside the timed span, and the verifier decodes it in its own: return plain values of those types
(a list or ndarray subclass, a generator, any object of your own is refused and fails the case).

## The metric

Speedup, **higher is better**: the mean over cases of the reference's time / the solution's time,
both timed side by side in fresh sandboxed processes on the CPU clock, BLAS/OpenMP threads pinned to
1. The score is **0.0** if any case fails: a case passes when AlgoTune's \`is_solution(problem,
solution)\` returns True on the decoded answer. The baseline (the task's own \`solve\`) scores about 1.0.

## What you may edit

Only \`solution.py\`. Everything else is protected: \`eval.sh\`, \`plan.toml\`, \`reference.py\` and
\`bundle/\` (generator, oracle, validator and the task's module).

## Dev and test

- The point: \`n = ${point.n}\` (AlgoTune's size parameter); \`B = ${point.B}\` and \`S = ${point.S}\` are the
  byte capacities of a problem and of an answer.
- dev: 4 cases per repetition (seeds 0-3 name them; a speed eval draws fresh cases for every
  repetition); test: 8 cases, disjoint from dev.

## How to run

\`\`\`sh
bash eval.sh dev     # prints one line: score: <float>
\`\`\`
`;
}

function provenance(name: string, task: string, digest: string, ctx: TaskContext, inspection: Inspection, point: {n: number; B: number; S: number}): string {
  const imports = inspection.imports ?? [];
  const packages = imports.map((module) => debianPackages[module] ?? `${module} (not packaged by Debian)`);
  const solve = inspection.solve_ms ?? [];
  const codec = inspection.codec_ms ?? [];
  const search = (inspection.search ?? []).map(([n, ms]) => `n = ${n}: ${ms} ms`).join(', ');
  const probes = inspection.probes ?? [];
  return `# Provenance of ${name}

## Source

AlgoTune (github.com/oripress/AlgoTune, MIT license, "Copyright (c) 2025 Ori Press and the AlgoTune
contributors"), task \`${task}\`: \`AlgoTuneTasks/${task}/${task}.py\` at commit
\`${ctx.commit ?? 'unknown (the source was not a git checkout)'}\`, sha256 \`${digest}\`, copied unchanged into
\`bundle/AlgoTuneTasks/${task}/\` with AlgoTune's LICENSE. \`bundle/AlgoTuneTasks/base.py\` is arbor's own
stand-in for AlgoTune's base class (no AlgoTuner code). Written by \`arbor benchmark import algotune\`.

## Setup & environment

${
  inspection.python
    ? `Imported with \`${inspection.python.executable}\` (Python ${inspection.python.version}, numpy ${inspection.python.numpy ?? 'none'}): the bundle names its interpreter (\`[entry] python\` in \`bundle/fherma.toml\`), and the eval runs the bundle and every run with it, since another numpy or scipy may answer differently.
`
    : ''
}Python 3 with ${imports.length ? imports.map((m) => `\`${m}\``).join(', ') : 'numpy'} (Debian: ${packages.length ? packages.join(', ') : 'python3-numpy'}).
\`n = ${point.n}\` was chosen as AlgoTune chooses it: the size at which the task's own solve takes about
${ctx.targetMs} ms on the importing machine (\`arbor benchmark import algotune <source> <zoo> --task ${task}\`;
tried: ${search || 'none'}).${routedNote(inspection.routed)}

## Baseline

\`solution.py\` and \`reference.py\` are the task's own \`solve\`, wrapped in AlgoTune's \`Solver\` signature.
At the import, over seeds ${devSeeds.join(', ')}, ${testSeeds.join(', ')}: solve took ${solve.length ? `${Math.min(...solve)}-${Math.max(...solve)} ms` : 'unmeasured'}; decoding a
problem and encoding an answer took ${codec.length ? `${Math.min(...codec)}-${Math.max(...codec)} ms` : 'unmeasured'} (inside every timed case, for both sides).

What was checked at the import: the module imports with arbor's base; \`generate_problem\` gives the same
encoded bytes twice for each seed; the task's own answer passes its own \`is_solution\` after a round trip
through the object encoding, for all ${devSeeds.length + testSeeds.length} seeds; \`arbor benchmark lock\` made every dev and test
case twice in fresh processes (with another PYTHONHASHSEED) and compared the bytes. \`reference.py\` runs the same
\`solve\` as the oracle; \`arbor benchmark verify\` runs it twice in the sandbox on the same dev cases and compares
its answers (rule \`reference-deterministic\`).

## Contamination assessment

AlgoTune's tasks, reference solvers and validators are public (since 2025), and faster solvers for many
of them have been published with its leaderboard: a model may have seen solutions to this task. The
problems themselves are drawn fresh for every repetition from a secret nonce, and test cases from
\`ARBOR_TEST_SALT\` where a platform sets it, so no answer can be recalled.

## Caveats

- The verdict is AlgoTune's \`is_solution\`, as strict as its authors made it.
- ${strengthLine(validatorStrength(probes, inspection.probes_tried ?? []))}${weakCaveat(weakProbes(probes).map((p) => p.probe))}${
    probes.length
      ? `
- At the import, \`is_solution\` accepted wrong answers built from the task's own answer by structure
  (for a task with several right answers, some may be right; read each):
${probes.map((p) => `  - \`${p.probe}\` (case ${p.case}): accepted \`${p.answer.replace(/`/g, "'").replace(/\n/g, ' ')}\``).join('\n')}`
      : `
- At the import, \`is_solution\` rejected every structural wrong answer tried (none, empty, zeros,
  negated, first number changed, truncated).`
  }
- Every timed case includes decoding the problem and encoding the answer (same code for both sides), which
  bounds the speedup a solver can show when solve itself becomes very fast.
- The problem and answer capacities (B, S) hold the sizes measured at the import with room to spare; a
  draw whose problem would not fit makes the bundle fail, and an answer larger than S fails its case.
`;
}

/** Setup's note on the draws outside the task's seed that the entry's generator routes through it (entry.py's routed_urandom). */
function routedNote(routed: Record<string, number> | undefined): string {
  // The number of calls depends on the sizes the target-time search tried: only that there were any is a fact of the task.
  if (!routed?.['os.urandom']) return '';
  return `
\`generate_problem\` draws from \`os.urandom\` (it did at the import): the entry's generator answers those calls
from a generator seeded with the case's seed (\`routed_urandom\` in \`bundle/algotune_entry.py\`), so a case is
reproducible and no more known to a solver than its seed; AlgoTune's own runs draw them from the system.`;
}

/** The caveat of an entry imported with --allow-weak-validators: the facts, and the paragraph verify waits for. */
function weakCaveat(accepted: string[]): string {
  if (!accepted.length) return '';
  const names = accepted.map((name) => `\`${name}\``).join(', ');
  return `
- **Weak validator.** At the import, \`is_solution\` accepted answers that cost nothing (${names}) on every
  case tried: a solver returning one scores without solving. Imported with \`--allow-weak-validators\`;
  \`arbor benchmark verify\` fails this entry (rule \`weak-validator\`) until a paragraph of this section
  starting \`Weak validator accepted:\` names ${names} and says why the entry is kept.`;
}
