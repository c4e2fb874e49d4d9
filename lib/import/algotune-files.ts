/**
 * The files of an imported AlgoTune entry, composed from the task and its inspection: fherma.toml,
 * plan.toml, README.md, PROVENANCE.md, the self-contained solver (reference and baseline), the
 * bundle's entry points and arbor's stand-in for AlgoTune's base class; and where the importer's
 * own Python files are.
 */
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import type {Inspection} from './inspect.js';
import {weakProbes} from './weak.js';

/** What the entry's files say about where the task came from and how it was inspected. */
export interface EntrySource {
  tasksDir: string;
  commit: string | null;
  license: string | undefined;
  targetMs: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** lib/import/algotune (the Python files), from lib/import (sources) or dist/lib/import (built). */
export function assetDir(): string {
  const candidates = [path.resolve(here, '../../../lib/import/algotune'), path.resolve(here, 'algotune')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'inspect_task.py')));
  if (!found) throw new Error(`arbor's AlgoTune importer files are missing (looked in ${candidates.join(', ')}); reinstall arbor`);
  return found;
}
export function objectsFile(): string {
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
export const devSeeds = [0, 1, 2, 3];
export const testSeeds = [1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007];

/** Every file of the entry, by path relative to it. */
export function entryFiles(
  task: string,
  source: string,
  digest: string,
  ctx: EntrySource,
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

function provenance(name: string, task: string, digest: string, ctx: EntrySource, inspection: Inspection, point: {n: number; B: number; S: number}): string {
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
tried: ${search || 'none'}).

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

- The verdict is AlgoTune's \`is_solution\`, as strict as its authors made it.${weakCaveat(weakProbes(probes).map((p) => p.probe))}${
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
