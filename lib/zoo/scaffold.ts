/**
 * `scaffold`: write a benchmark folder from the template parts under `templates/`
 * (`base` always; `eval-sh` or `eval-py`; `bundle-js` or `bundle-py`; `reference`
 * for a speedup, `verify-js` or `verify-py` for an accuracy metric; `data` for
 * path splits; `docs` for the zoo style). `{{variable}}`s are filled in, in file
 * names too; line endings become LF; modes are kept. A new folder is built in a
 * hidden temporary sibling and renamed into place; an existing folder is filled:
 * each missing file is written atomically, each existing one kept and listed as
 * skipped. Nothing is ever overwritten. `.arbor-scaffold` remembers the template
 * files the folder has had, so that once it has an arbor.lock a file its author
 * removed is not written back.
 */
import {existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, chmodSync} from 'node:fs';
import path from 'node:path';
import {ArborError, RefusedError, UsageError} from '../errors.js';
import {writeFileAtomic} from '../files.js';
import {arborCliPath, isArborRoot} from '../invocation.js';
import {makeTempSibling, removeStaleTemps, writeNewFile} from './copy.js';
import {checkBenchmarkName} from './names.js';
import {findPlaceholders} from './rules/placeholder.js';
import {templatesRoot} from './templates.js';
import {describeFsError, kindOf} from './text.js';

const STYLES = ['light', 'zoo'] as const;
const ENTRYPOINTS = ['eval.sh', 'eval.py'] as const;
const DIRECTIONS = ['maximize', 'minimize'] as const;
const SPLIT_KINDS = ['seed_range', 'path'] as const;
const METRICS = ['speedup', 'accuracy'] as const;
const BUNDLE_LANGS = ['js', 'py'] as const;

/** Options of `scaffoldBenchmark`; each has the CLI flag's name and default. */
export interface ScaffoldOptions {
  cwd?: string;
  /** `light`: the measurement plumbing only; `zoo` (default): also README.md and PROVENANCE.md. */
  style?: string;
  /** The eval entrypoint: `eval.sh` (default) or `eval.py`. */
  entrypoint?: string;
  /** `maximize` (default) or `minimize`: README says higher or lower is better; the plan says minimize. */
  direction?: string;
  /** `seed_range` (default): cases generated from seeds; `path`: cases are files under data/dev and data/test. */
  splitKind?: string;
  /**
   * `speedup`: timed against reference.py; `accuracy`: the bundle's verifier scores each answer, no reference.
   * Default: the metric of the folder's plan.toml when it has one, else accuracy for a path split or
   * `direction: minimize` (a speedup is higher-is-better), else speedup.
   */
  metric?: string;
  /** The files an agent may edit (default `["solution.py"]`); the first is the solution module. */
  edit?: string[];
  /** The benchmark's name (default: the folder's name). */
  name?: string;
  /** The bundle skeleton's language: `js` (default) or `py`. */
  bundleLang?: string;
  /** Allow a name starting with `_` (scaffolding, skipped by list). */
  allowUnderscore?: boolean;
  /** Templates folder (default: the one shipped with arbor). */
  templates?: string;
  /** The CLI the eval entrypoint records as "the arbor that made it" (default: this arbor's; `''` records none). */
  arborCli?: string;
}

/** What scaffold did. */
export interface ScaffoldResult {
  dir: string;
  name: string;
  style: (typeof STYLES)[number];
  entrypoint: (typeof ENTRYPOINTS)[number];
  direction: (typeof DIRECTIONS)[number];
  splitKind: (typeof SPLIT_KINDS)[number];
  metric: (typeof METRICS)[number];
  bundleLang: (typeof BUNDLE_LANGS)[number];
  editable: string[];
  /** Files written, relative to the folder, sorted. */
  created: string[];
  /** Files that were already there and were kept, sorted. */
  skipped: string[];
  /**
   * Files not written because the folder has an arbor.lock and its author removed them:
   * listed in `.arbor-scaffold`, or (a folder scaffolded before it existed) protected by the lock.
   */
  withheld: string[];
  /** Whether protected files were written into a folder whose existing arbor.lock does not cover them (relock). */
  lockStale: boolean;
  /** Placeholders left to fill in the files written: file and line. */
  placeholders: {file: string; line: number; text: string}[];
}

/** Files an agent must never be able to edit. */
const PROTECTED = /^(?:eval\.sh|eval\.py|plan\.toml|reference\.py|README\.md|PROVENANCE\.md|arbor\.lock|(?:bundle|data)(?:\/.*)?)$/;

/** One file to write: where it goes and its bytes. */
interface Planned {
  rel: string;
  bytes: Buffer;
  mode: number;
  text: string | undefined;
}

/** Write (or fill) the benchmark folder `dir`. */
export async function scaffoldBenchmark(dir: string, options: ScaffoldOptions = {}): Promise<ScaffoldResult> {
  const cwd = options.cwd ?? process.cwd();
  if (dir.trim() === '') throw new UsageError('The benchmark folder path is empty, expected e.g. `zoo/my_task`', 'bad-name');
  if (/(^|[\\/])\.\.([\\/]|$)/.test(dir))
    throw new UsageError(`Invalid benchmark folder \`${dir}\`: it contains \`..\`; expected a path inside the zoo`, 'bad-name');
  const target = path.resolve(cwd, dir);
  const choices = readChoices(options, folderMetric(target));
  const editable = checkEditable(options.edit ?? ['solution.py']);
  const name = options.name ?? path.basename(target);
  try {
    checkBenchmarkName(name, {allowUnderscore: options.allowUnderscore});
  } catch (error) {
    if (options.name !== undefined || !(error instanceof ArborError)) throw error;
    throw new UsageError(`${error.message.replace('`:', "` (the folder's name):")}, or give --name`, 'bad-name');
  }

  const {entrypoint, bundleLang, metric, splitKind, style} = choices;
  const templates = options.templates ?? templatesRoot();
  const parts = ['base', entrypoint === 'eval.sh' ? 'eval-sh' : 'eval-py', `bundle-${bundleLang}`, metric === 'speedup' ? 'reference' : `verify-${bundleLang}`];
  if (splitKind === 'path') parts.push('data');
  if (style === 'zoo') parts.push('docs');
  const variables = templateVariables({name, ...choices, editable, arborCli: recordedArbor(options.arborCli ?? arborCliPath(), target)});
  const planned = new Map<string, Planned[]>();
  // globby (a few hundred ms to load) only here, where the template parts are read.
  const {globbySync} = await import('globby');
  // Every regular file of a part, dot files included, symlinks left out (a template is plain files).
  const listPart = (source: string) => globbySync('**', {cwd: source, dot: true, onlyFiles: true, followSymbolicLinks: false, suppressErrors: false}).sort();
  for (const part of parts) planned.set(part, render(templates, part, variables, listPart));

  const existing = inspectTarget(target, dir);
  const result: ScaffoldResult = {dir, name, ...choices, editable, created: [], skipped: [], withheld: [], lockStale: false, placeholders: []};
  const memory = existing === 'empty' ? undefined : readMemory(target);
  const locked = existing === 'filled' && lstatSync(path.join(target, 'arbor.lock'), {throwIfNoEntry: false}) !== undefined;
  const toWrite =
    existing === 'empty' ? [...planned.values()].flat() : chooseFills(target, dir, planned, result, locked ? (memory ?? LOCK_PROTECTED) : undefined);

  if (existing === 'empty') writeFolder(target, dir, toWrite);
  else fillFolder(target, dir, toWrite);
  for (const file of toWrite) {
    result.created.push(file.rel);
    if (file.text === undefined) continue;
    for (const found of findPlaceholders(file.text))
      result.placeholders.push({file: file.rel, line: file.text.slice(0, found.offset).split('\n').length, text: found.text});
  }
  result.lockStale = locked && toWrite.some((file) => LOCK_PROTECTED.test(file.rel));
  const had = [...planned.values()]
    .flat()
    .map((f) => f.rel)
    .filter((rel) => existsSync(path.join(target, rel)));
  if (writeMemory(target, memory, [...had, ...result.withheld])) result.created.push(MEMORY);
  await lockScaffold(target, result);
  result.created.sort();
  result.skipped.sort();
  result.withheld.sort();
  result.placeholders.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line));
  return result;
}

/** The metric an existing plan.toml names (its `metric = "…"` line), so that filling the folder fits it. */
function folderMetric(target: string): string | undefined {
  try {
    return /^metric\s*=\s*"(speedup|accuracy)"/m.exec(readFileSync(path.join(target, 'plan.toml'), 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** The option values, checked against their choices, with their defaults (the metric: the folder's plan's, if it has one). */
function readChoices(options: ScaffoldOptions, planMetric: string | undefined) {
  const choice = <T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T => {
    const picked = value ?? allowed[0]!;
    if (!allowed.includes(picked as T)) throw new UsageError(`Unknown ${flag} \`${picked}\`, expected one of: ${allowed.join(', ')}`, 'bad-option');
    return picked as T;
  };
  const style = choice('--style', options.style ?? 'zoo', STYLES);
  const entrypoint = choice('--entrypoint', options.entrypoint, ENTRYPOINTS);
  const direction = choice('--direction', options.direction, DIRECTIONS);
  const splitKind = choice('--split-kind', options.splitKind, SPLIT_KINDS);
  // Cases read from files are scored by how right they are, and a lower-is-better score is no speedup.
  const metric = choice('--metric', options.metric ?? planMetric ?? (splitKind === 'path' || direction === 'minimize' ? 'accuracy' : 'speedup'), METRICS);
  if (metric === 'speedup' && direction === 'minimize')
    throw new UsageError(
      '--direction minimize does not fit --metric speedup: a speedup is higher-is-better; expected --metric accuracy (or --direction maximize)',
      'bad-option',
    );
  const bundleLang = choice('--bundle-lang', options.bundleLang, BUNDLE_LANGS);
  return {style, entrypoint, direction, splitKind, metric, bundleLang};
}

/**
 * The files to write into an existing folder; the rest go to `result.skipped`
 * (present) or `result.withheld`. `removed` (set when the folder has an arbor.lock)
 * tells which missing files its author removed: those `.arbor-scaffold` lists, or,
 * without one, those the lock protects.
 */
function chooseFills(
  target: string,
  shown: string,
  planned: Map<string, Planned[]>,
  result: ScaffoldResult,
  removed: Set<string> | RegExp | undefined,
): Planned[] {
  const present = (rel: string) => {
    try {
      return lstatSync(path.join(target, rel), {throwIfNoEntry: false}) !== undefined;
    } catch {
      return false; // a parent that is not a folder: checkParents refuses it below
    }
  };
  const wasRemoved = (rel: string) => (removed instanceof RegExp ? removed.test(rel) : removed?.has(rel) === true);
  const toWrite: Planned[] = [];
  for (const [part, files] of planned) {
    // A folder that has an eval entrypoint or a bundle keeps it whole: no second one beside it.
    const bundled = part.startsWith('bundle-') || part.startsWith('verify-');
    const kept = part.startsWith('eval-') ? ENTRYPOINTS.filter(present) : bundled && present('bundle/fherma.toml') ? ['bundle/fherma.toml'] : [];
    if (kept.length > 0) {
      result.skipped.push(...new Set([...kept, ...files.map((f) => f.rel).filter(present)]));
      continue;
    }
    for (const file of files) {
      if (present(file.rel)) result.skipped.push(file.rel);
      else if (wasRemoved(file.rel)) result.withheld.push(file.rel);
      else toWrite.push(file);
    }
  }
  result.skipped = [...new Set(result.skipped)];
  for (const file of toWrite) checkParents(target, shown, file.rel);
  return toWrite;
}

/** The file that remembers which template files a folder has had (see `withheld`). */
const MEMORY = '.arbor-scaffold';

/** What the lock protects among the template files: adding one makes an existing lock stale. */
const LOCK_PROTECTED = /^(?:plan\.toml|eval\.sh|eval\.py|reference\.py|(?:bundle|data)\/.*)$/;

const MEMORY_HEADER = [
  '# The template files `arbor benchmark scaffold` wrote here or found here. Once the folder has an',
  '# arbor.lock, a file listed here and missing is one its author removed: scaffold does not write it',
  '# back. Delete its line to have it written again.',
];

/** The files `.arbor-scaffold` lists, or undefined when the folder has none (or it cannot be read). */
function readMemory(target: string): Set<string> | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(target, MEMORY), 'utf8');
  } catch {
    return undefined;
  }
  return new Set(
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

/** Add `files` to `.arbor-scaffold` (written atomically when it changes); true when the file is new. */
function writeMemory(target: string, memory: Set<string> | undefined, files: string[]): boolean {
  const all = new Set([...(memory ?? []), ...files]);
  if (memory !== undefined && all.size === memory.size) return false;
  try {
    writeFileAtomic(path.join(target, MEMORY), [...MEMORY_HEADER, ...[...all].sort(), ''].join('\n'));
  } catch {
    // Best effort: without it, a locked folder falls back to the lock (no protected file is added).
    return false;
  }
  return memory === undefined;
}

/**
 * Write arbor.lock for the protected files just written (evals compare them
 * with it), unless the folder already had one; a folder whose plan.toml does
 * not load yet gets none.
 */
async function lockScaffold(target: string, result: ScaffoldResult): Promise<void> {
  if (lstatSync(path.join(target, 'arbor.lock'), {throwIfNoEntry: false})) return;
  const {writeLock} = await import('../benchmark/lock.js');
  try {
    await writeLock(target);
    result.created.push('arbor.lock');
  } catch {
    // No loadable plan: nothing the eval would check yet.
  }
}

/** The `--edit` list, checked: relative paths inside the folder, no protected file, the first a `.py` module. */
function checkEditable(files: string[]): string[] {
  if (files.length === 0) throw new UsageError('--edit names no file, expected the solution module first, e.g. --edit solution.py', 'bad-option');
  const out: string[] = [];
  for (const raw of files) {
    const file = path.posix.normalize(String(raw).replaceAll('\\', '/')).replace(/^\.\//, '');
    const fail = (why: string): never => {
      throw new UsageError(`--edit \`${raw}\`: ${why}`, 'bad-option');
    };
    if (!/^[A-Za-z0-9._/-]+$/.test(file) || file.endsWith('/')) fail('expected a file name of letters, digits, `.`, `_`, `-` and `/`');
    if (file.startsWith('/') || file === '..' || file.startsWith('../')) fail('expected a path inside the benchmark folder');
    if (PROTECTED.test(file)) fail('it is a protected file of the benchmark, which an agent must not edit; expected the solution file(s), e.g. solution.py');
    if (out.includes(file)) fail('it is listed twice');
    out.push(file);
  }
  if (!out[0]!.endsWith('.py'))
    throw new UsageError(
      `--edit \`${files[0]}\`: the first editable file is the solution module the runner imports; expected a .py file first, e.g. --edit solution.py ${out.join(' ')}`,
      'bad-option',
    );
  return out;
}

/** The values of every `{{variable}}` the templates use. */
/**
 * The arbor an entrypoint records as the one that made it: none for a benchmark inside that
 * arbor's own repository, whose entrypoint finds it from its own folder (and whose path would
 * be one machine's checkout, wrong in every other clone).
 */
function recordedArbor(arborCli: string, target: string): string {
  const repository = path.resolve(arborCli, '../../..');
  if (!arborCli || path.resolve(arborCli) !== path.join(repository, 'dist/cli/index.js') || !isArborRoot(repository)) return arborCli;
  const inside = path.relative(repository, path.resolve(target));
  return !inside.startsWith('..') && !path.isAbsolute(inside) ? '' : arborCli;
}

function templateVariables(v: {
  name: string;
  entrypoint: string;
  direction: string;
  splitKind: string;
  metric: string;
  bundleLang: string;
  editable: string[];
  arborCli: string;
}): Record<string, string> {
  const quoted = v.editable.map((f) => `\`${f}\``);
  const list = quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)}`;
  const path = v.splitKind === 'path';
  return {
    name: v.name,
    solution: v.editable[0]!,
    editable: `[${v.editable.map((f) => JSON.stringify(f)).join(', ')}]`,
    editable_list: `${list} ${quoted.length === 1 ? 'is the file' : 'are the files'} an agent may edit`,
    ...metricVariables(v),
    made_by_sh: `'${v.arborCli.replace(/'/g, `'\\''`)}'`,
    made_by_py: JSON.stringify(v.arborCli),
    entrypoint: v.entrypoint,
    run: v.entrypoint === 'eval.sh' ? 'bash eval.sh dev|test' : 'python3 eval.py --split dev|test',
    run_dev: v.entrypoint === 'eval.sh' ? 'bash eval.sh dev' : 'python3 eval.py --split dev',
    better: v.direction === 'maximize' ? 'higher is better' : 'lower is better',
    // A minimize plan names its worst score, or a crash would score 0.0, the best (the template's share is at most 1).
    direction:
      v.direction === 'minimize'
        ? 'direction = "minimize"        # lower scores are better\nfail_score = 1.0              # the score of a case with no scorable answer (crash, timeout, wrong shape): the worst'
        : '',
    splits: path
      ? [
          'split_kind = "path"           # cases are files, not generated from seeds',
          '',
          '[dev]',
          'path = "data/dev"             # each subfolder is a made work directory: manifest.json, cases/, expected/',
          '',
          '[test]',
          'path = "data/test"            # held out only as far as this folder is (see data/test/README.md)',
        ].join('\n')
      : [
          '[dev]',
          'seeds = "0-3"',
          'points = [ { N = 100000 } ]',
          '',
          '[test]',
          'seeds = "1000-1007"           # disjoint from dev; ARBOR_TEST_SALT replaces them with derived seeds',
          'points = [ { N = 100000 }, { N = 1000000 } ]',
        ].join('\n'),
    split_note: path
      ? 'The cases are files: `data/dev/` and `data/test/`, one made work directory per subfolder. The test split is only as held out as this folder: whoever can read `data/test/` has seen it, and no salt can change fixed data, so a platform keeps a private copy of the test data outside the benchmark. TODO(arbor): say where the data comes from and how the splits differ.'
      : 'dev and test use disjoint seeds (`plan.toml`: dev 0-3, test 1000-1007); a platform that sets `ARBOR_TEST_SALT` gets test seeds derived from the salt instead. TODO(arbor): say how else the splits differ (points, sizes), or that they do not.',
  };
}

/** The variables that differ between a speedup and an accuracy metric: the plan's lines, the bundle's verifier, the README's words. */
function metricVariables(v: {entrypoint: string; metric: string; bundleLang: string; splitKind: string; direction: string}): Record<string, string> {
  const verifier = `verify.${v.bundleLang === 'py' ? 'py' : 'mjs'}`;
  const data = v.splitKind === 'path' ? ', `data/`' : '';
  if (v.metric === 'speedup')
    return {
      metric: [
        'metric = "speedup"            # mean over cases of reference seconds / solution seconds',
        'reference = "reference.py"',
        'repetitions = 3               # the fewest repetitions, each a fresh sandbox for reference and solution',
        'clock = "cpu"                 # cases timed in CPU seconds of the run\'s whole process tree ("wall" for parallel tasks)',
        "precision = 0.01              # repeat until the score's 95% interval is within +-1% of it...",
        'max_seconds = 60              # ...or this many seconds of repetitions are spent',
      ].join('\n'),
      verify_entry: `# verify = "${verifier}"   # omit for byte-equality verification`,
      metric_note:
        'The score is a speedup: per case, the time `reference.py` takes over the time the solution takes (CPU seconds, the median of the repetitions), averaged over the cases; 0.0 as soon as any case is answered wrong. TODO(arbor): say what the reference is and why it is a fair baseline.',
      protected_list: `\`${v.entrypoint}\`, \`plan.toml\`, \`bundle/\`${data} and \`reference.py\``,
    };
  return {
    metric: [
      `metric = "accuracy"           # mean over cases of metrics.correct / metrics.of, reported by bundle/${verifier}`,
      'numerator = "correct"',
      'denominator = "of"',
      'timeout = 60                  # seconds one case may take (an accuracy eval runs each case once, untimed)',
    ].join('\n'),
    verify_entry: `verify = "${verifier}"         # reports metrics.correct and metrics.of (the accuracy score)`,
    metric_note: `The score is an accuracy: per case, the share of the answer that \`bundle/${verifier}\` counts correct (\`correct / of\`), averaged over the cases; a case that crashes, times out or returns no answer counts ${v.direction === 'minimize' ? "1.0, plan.toml's `fail_score` (0 would be the best score)" : '0'}. It is not timed, and there is no reference solver. TODO(arbor): say what counts as correct.`,
    protected_list: `\`${v.entrypoint}\`, \`plan.toml\`${data} and \`bundle/\``,
  };
}

/** The files of one template part with their variables filled in (a line that is only an empty variable goes). */
function render(templates: string, part: string, variables: Record<string, string>, listPart: (source: string) => string[]): Planned[] {
  const source = path.join(templates, part);
  let files: string[];
  try {
    if (!statSync(source).isDirectory()) throw Object.assign(new Error('not a folder'), {code: 'ENOTDIR'});
    files = listPart(source);
  } catch (error) {
    throw new UsageError(`The templates folder ${templates} has no readable part \`${part}\` (${describeFsError(error)}); reinstall arbor`, 'bad-templates');
  }
  const fill = (text: string, where: string) =>
    text
      .replace(/\r\n?/g, '\n')
      .replace(/^\{\{(\w+)\}\}\n/gm, (line, key: string) => (variables[key] === '' ? '' : line))
      .replace(/\{\{(\w+)\}\}/g, (_m, key: string) => {
        if (!Object.hasOwn(variables, key))
          throw new UsageError(
            `${where} uses \`{{${key}}}\`, which scaffold does not fill; expected one of ${Object.keys(variables)
              .map((k) => `{{${k}}}`)
              .join(', ')}`,
            'bad-templates',
          );
        return variables[key]!;
      });
  return files.map((rel) => {
    const from = path.join(source, rel);
    const bytes = readFileSync(from);
    const text = asText(bytes);
    const filled = text === undefined ? undefined : fill(text, path.join(part, rel));
    return {rel: fill(rel, path.join(part, rel)), bytes: filled === undefined ? bytes : Buffer.from(filled), mode: statSync(from).mode & 0o777, text: filled};
  });
}

/** `empty` for a new or empty folder, `filled` for one with files; a file in the way is refused. */
function inspectTarget(target: string, shown: string): 'empty' | 'filled' {
  let stats;
  try {
    stats = statSync(target, {throwIfNoEntry: false});
  } catch (error) {
    throw new UsageError(`Cannot inspect \`${shown}\` (${describeFsError(error)})`);
  }
  if (!stats) return 'empty';
  if (!stats.isDirectory())
    throw new RefusedError(
      `Refusing to scaffold into \`${shown}\`: it is ${stats.isFile() ? 'a file' : kindOf(stats)}, expected a folder (nothing was changed)`,
    );
  removeStaleTemps(target);
  return readdirSync(target).length === 0 ? 'empty' : 'filled';
}

/** Refuse, before anything is written, a file whose folder is taken by something that is not a folder. */
function checkParents(target: string, shown: string, rel: string): void {
  const parts = rel.split('/').slice(0, -1);
  for (let k = 1; k <= parts.length; k++) {
    const sub = parts.slice(0, k).join('/');
    const stats = lstatSync(path.join(target, sub), {throwIfNoEntry: false});
    if (!stats) return;
    if (!stats.isDirectory())
      throw new RefusedError(
        `Refusing to scaffold into \`${shown}\`: \`${sub}\` is ${stats.isFile() ? 'a file' : stats.isSymbolicLink() ? 'a symlink' : kindOf(stats)}, expected a folder for ${rel} (nothing was changed)`,
      );
  }
}

/** A new folder: built in a hidden temporary sibling, then renamed into place. */
function writeFolder(target: string, shown: string, files: Planned[]): void {
  const parent = path.dirname(target);
  let temp: string | undefined;
  try {
    mkdirSync(parent, {recursive: true});
    removeStaleTemps(parent);
    temp = makeTempSibling(target, 'scaffold');
    for (const file of files) {
      const to = path.join(temp, file.rel);
      mkdirSync(path.dirname(to), {recursive: true});
      writeFileSync(to, file.bytes);
      chmodSync(to, file.mode);
    }
    chmodSync(temp, 0o755);
    renameSync(temp, target);
  } catch (error) {
    if (temp) rmSync(temp, {recursive: true, force: true});
    throw new UsageError(`Could not write \`${shown}\` (${describeFsError(error)}); nothing was changed`, 'write-failed', {cause: error});
  }
}

/** An existing folder: each missing file written atomically, never over anything. */
function fillFolder(target: string, shown: string, files: Planned[]): void {
  const written: string[] = [];
  for (const file of files) {
    const to = path.join(target, file.rel);
    try {
      mkdirSync(path.dirname(to), {recursive: true});
      removeStaleTemps(path.dirname(to));
      if (!writeNewFile(to, file.bytes, file.mode, 'scaffold'))
        throw new RefusedError(`Refusing to write \`${path.join(shown, file.rel)}\`: it appeared while scaffolding; kept it${wroteSoFar(written)}`);
      written.push(file.rel);
    } catch (error) {
      if (error instanceof ArborError) throw error;
      throw new UsageError(`Could not write \`${path.join(shown, file.rel)}\` (${describeFsError(error)})${wroteSoFar(written)}`, 'write-failed', {
        cause: error,
      });
    }
  }
}

function wroteSoFar(written: string[]): string {
  return written.length === 0 ? '; nothing was changed' : `; wrote ${written.join(', ')} before it`;
}

const strict = new TextDecoder('utf-8', {fatal: true});

/** The text of `bytes` if they are UTF-8 without NUL bytes, else undefined (binary). */
function asText(bytes: Buffer): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
