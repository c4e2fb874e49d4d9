#!/usr/bin/env node
// AlgoTune's validator fixes as a test of arbor's probes (issue 52, item 3; docs/algotune-validators.md).
//
// For each fix of a task's `is_solution` in AlgoTune's log, the task is imported as it was just
// before the fix (the commit's parent) and as fixed (the commit), each into a zoo of its own, and
// `verify --probe --mutants` is run on the entry. What arbor said of each side is recorded: the
// import's own structural probes (a costless answer accepted skips the task as weak-validator; any
// accepted probe is the entry's `validator` record), the eval probes the eval rewarded, and the
// verifier mutants' kill rate. A hole the "before" side shows and the "after" side does not is a
// hole arbor flags for the right reason.
//
//   node test/bench/algotune-history.mjs [--git-dir <AlgoTune .git>] [--out <dir>] [--only <task>,...] [--again]
//
// A fix history.json (in --out) holds already is skipped, so an interrupted run resumes; the fixed
// side is verified only where the side before it was flagged (the import's probes run on both).
//
// The AlgoTune source is a bare mirror or a clone; it is checked out (sparse: AlgoTuneTasks, LICENSE,
// aws) into a shared clone under --out, one commit at a time. ARBOR_PYTHON defaults to Debian's
// /usr/bin/python3 (sklearn, faiss, POT, numba as Debian packages). Writes <out>/history.json and
// prints the table's rows. Takes about a minute per side and task on an idle 2-core machine.
import {spawnSync} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const cli = path.resolve(here, '../../dist/cli/index.js');

/**
 * The fixes of 2026 that change a task's `is_solution` or generator, each with the hole it closed.
 * kind: `validator` (is_solution accepted a wrong answer), `generator` (problems easier than meant),
 * `false-reject` (is_solution rejected right answers: no hole; a control only).
 */
const fixes = [
  {commit: '9592708', task: 'gzip_compression', kind: 'validator', hole: 'a bytes subclass whose `__len__` lies passes the size bound'},
  {commit: '94959c5', task: 'convex_hull', kind: 'validator', hole: 'duplicate hull vertex indices accepted'},
  {commit: '34ba9cc', task: 'randomized_svd', kind: 'validator', hole: 'tolerance above 1 at large sizes: a trivial (zero) factorisation passes'},
  {
    commit: 'dc00fbb',
    task: 'max_flow_min_cost',
    kind: 'validator',
    hole: 'NaN/inf flows accepted; the flow-value test inverted (less flow than the maximum passes)',
  },
  {
    commit: '5d0cb90',
    task: 'kd_tree',
    kind: 'validator',
    hole: 'distances checked on 10 sampled queries and 3 neighbours; repeated neighbour ids; recall only above 10 dimensions',
  },
  {commit: '5b0fff2', task: 'kd_tree', kind: 'validator', hole: 'exact top-k checked on 64 sampled queries only'},
  {commit: '8bd5a55', task: 'spectral_clustering', kind: 'validator', hole: 'quality gates: a labelling far from the reference passes'},
  {commit: '170c5d0', task: 'spectral_clustering', kind: 'validator', hole: 'near-hack labellings (e.g. one cluster, round-robin) not gated'},
  {
    commit: '295abf2',
    task: 'ode_stiff_robertson',
    kind: 'validator',
    hole: 'checked against one reference only: negative concentrations, lost mass within its tolerance',
  },
  {
    commit: '06c8bdf',
    task: 'polynomial_real',
    kind: 'false-reject',
    hole: 'the reference roots computed with threaded BLAS (right answers rejected now and then); its NaN hole stays open at the fix and at HEAD',
  },
  {commit: '06c8bdf', task: 'polynomial_mixed', kind: 'validator', hole: 'no shape or finiteness check (a broadcastable or NaN answer)'},
  {commit: 'd4a7af2', task: 'firls', kind: 'false-reject', hole: 'reference recomputed with threaded BLAS: right answers rejected now and then'},
  {commit: '762c79c', task: 'pca', kind: 'validator', hole: 'objective only: any rotation of the top-k subspace passes'},
  {commit: '4e05666', task: 'minimum_volume_ellipsoid', kind: 'validator', hole: 'shape check with `and`: a wrong shape passes when the other matches'},
  {
    commit: '6b7f1cd',
    task: 'capacitated_facility_location',
    kind: 'validator',
    hole: 'assignments and open facilities not checked for consistency and integrality',
  },
  {commit: 'd0e2535', task: 'integer_factorization', kind: 'generator', hole: 'q = nextprime(p): adjacent primes, so Fermat factors any composite in one step'},
  {commit: '051e249', task: 'kernel_density_estimation', kind: 'false-reject', hole: 'a single query point rejected'},
];

function args() {
  const argv = process.argv.slice(2);
  const get = (name, fallback) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv[at + 1] : fallback;
  };
  const only = get('--only', '');
  return {
    gitDir: path.resolve(get('--git-dir', '/work/.mirror/oripress+AlgoTune/repo')),
    out: path.resolve(get('--out', '/tmp/arbor-algotune-history')),
    only: only ? only.split(',') : null,
    // --again: measure fixes history.json already holds again, and verify both sides of every fix.
    again: argv.includes('--again'),
  };
}

function run(command, argv, options = {}) {
  const result = spawnSync(command, argv, {encoding: 'utf8', maxBuffer: 1 << 28, ...options});
  return {code: result.status, stdout: result.stdout ?? '', stderr: result.stderr ?? ''};
}

/** A clone sharing the mirror's objects, checked out sparsely (the mirror lacks some large assets). */
function checkoutDir(gitDir, out) {
  const dir = path.join(out, 'src');
  if (!existsSync(dir)) {
    const cloned = run('git', ['clone', '-q', '--shared', '--no-checkout', gitDir, dir]);
    if (cloned.code !== 0) throw new Error(`cannot clone ${gitDir}: ${cloned.stderr.trim()}`);
    run('git', ['-C', dir, 'sparse-checkout', 'set', '--no-cone', '/AlgoTuneTasks/', '/LICENSE', '/aws/']);
  }
  return dir;
}

function checkout(dir, rev) {
  const result = run('git', ['-C', dir, 'checkout', '-q', '--force', rev]);
  if (result.code !== 0) throw new Error(`cannot check out ${rev}: ${result.stderr.trim()}`);
  return run('git', ['-C', dir, 'rev-parse', 'HEAD']).stdout.trim();
}

function importTask(src, zoo, task, extra = []) {
  const result = run(process.execPath, [cli, 'benchmark', 'import', 'algotune', src, zoo, '--task', task, '--force', '--json', ...extra]);
  try {
    return JSON.parse(result.stdout).tasks[0];
  } catch {
    return {status: 'error', detail: (result.stderr || result.stdout).trim().split('\n').pop()};
  }
}

/** The import's probes that the task's validator accepted (the entry's `validator` record). */
function accepted(entry) {
  const record = JSON.parse(readFileSync(path.join(entry, '.arbor-import.json'), 'utf8'));
  return (record.validator?.accepted ?? []).map((a) => `${a.probe}${a.everyCase ? '' : ' (some cases)'}`);
}

/** What the entry's verify said: probes the eval rewarded, the import's accepted probes, the kill rate. */
function verifyEntry(entry) {
  const result = run(process.execPath, [cli, 'benchmark', 'verify', '--probe', '--mutants', '--json', entry]);
  let bench;
  try {
    bench = JSON.parse(result.stdout).benchmarks[0];
  } catch {
    return {error: (result.stderr || result.stdout).trim().split('\n').pop()};
  }
  const mutants = bench.mutants ?? [];
  const count = (status) => mutants.filter((m) => m.status === status).length;
  return {
    rewarded: (bench.probes ?? []).filter((p) => !p.ok).map((p) => p.probe),
    // The object that lies to a validator (`__len__`, `__eq__`): refused where the answer leaves the solution.
    liarRefused: (bench.probes ?? []).some((p) => p.probe === 'liar' && p.ok && /AnswerNotCarried/.test(p.note ?? '')),
    importAccepted: accepted(entry),
    killed: count('killed'),
    survived: mutants.filter((m) => m.status === 'survived').map((m) => m.mutant),
    killRate: bench.killRate ?? null,
    findings: [...new Set((bench.findings ?? []).filter((f) => f.severity === 'error').map((f) => f.ruleId))],
  };
}

/** One side of a fix: the task at `rev` imported, and verified unless `verify` is false (the import's probes alone). */
function side(src, rev, zoo, task, verify = true) {
  const commit = checkout(src, rev);
  const started = Date.now();
  const first = importTask(src, zoo, task);
  const outcome = {commit: commit.slice(0, 7), import: first.status, reason: first.reason ?? null, detail: first.detail ?? null};
  let imported = first;
  // A task skipped for its validator is imported anyway, so that its entry's probes are measured too.
  if (first.status === 'skipped' && /weak-validator/.test(`${first.reason ?? ''} ${first.detail ?? ''}`)) {
    imported = importTask(src, zoo, task, ['--allow-weak-validators']);
  }
  const entry = path.join(zoo, imported.entry ?? '');
  if (['imported', 'updated', 'unchanged'].includes(imported.status)) {
    Object.assign(outcome, verify ? verifyEntry(entry) : {importAccepted: accepted(entry), rewarded: null});
  }
  outcome.seconds = Math.round((Date.now() - started) / 1000);
  return outcome;
}

/** The probes added for the holes AlgoTune's fixes closed (marked * in the table: main's arbor lacks them). */
const added = new Set(['last-number-changed', 'item-repeated', 'row-first-repeated', 'smallest-part-zeros', 'scaled']);
const mark = (probe) => (added.has(probe.split(' ')[0]) ? `${probe}*` : probe);

function said(s) {
  if (!s.importAccepted) return `not imported: ${s.reason ?? s.import}${s.detail ? ` (${s.detail.slice(0, 90)})` : ''}`;
  const parts = [];
  if (s.import === 'skipped') parts.push('import skipped: weak-validator');
  if (s.importAccepted.length) parts.push(`import's probes accepted: ${s.importAccepted.map(mark).join(', ')}`);
  if (s.rewarded === null) return parts.length ? parts.join('; ') : "nothing (import's probes only)";
  if (s.rewarded.length) parts.push(`eval rewarded: ${s.rewarded.map(mark).join(', ')}`);
  if (s.liarRefused) parts.push('liar refused by the encoding');
  parts.push(`mutants ${s.killed}/${s.killed + s.survived.length}`);
  return parts.join('; ');
}

function main() {
  const {gitDir, out, only, again} = args();
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run npm run build first`);
  mkdirSync(out, {recursive: true});
  process.env.ARBOR_PYTHON ??= '/usr/bin/python3';
  const src = checkoutDir(gitDir, out);
  const file = path.join(out, 'history.json');
  const rows = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [];
  for (const fix of fixes.filter((f) => !only || only.includes(f.task))) {
    const key = `${fix.commit}-${fix.task}`;
    const held = rows.find((r) => `${r.commit}-${r.task}` === key);
    if (again === false && held) {
      console.log(`| ${fix.commit} | \`${fix.task}\` | ${fix.kind}: ${fix.hole} | ${said(held.before)} | ${said(held.after)} |`);
      continue;
    }
    const before = side(src, `${fix.commit}^`, path.join(out, `${key}-before`), fix.task);
    // The control costs a whole verify only where the hole was flagged (else the import's probes say enough).
    const flagged = (before.rewarded ?? []).length > 0 || (before.importAccepted ?? []).length > 0 || before.import === 'skipped';
    const after = side(src, fix.commit, path.join(out, `${key}-after`), fix.task, flagged || again);
    const row = {...fix, before, after};
    const at = rows.findIndex((r) => `${r.commit}-${r.task}` === key);
    if (at >= 0) rows[at] = row;
    else rows.push(row);
    writeFileSync(file, `${JSON.stringify(rows, null, 2)}\n`);
    console.log(`| ${fix.commit} | \`${fix.task}\` | ${fix.kind}: ${fix.hole} | ${said(before)} | ${said(after)} |`);
  }
  // Fixes the table does not name yet: every later commit touching a task's module, to be sorted by hand.
  const named = new Set(fixes.map((f) => f.commit));
  const log = run('git', ['--git-dir', gitDir, 'log', '--since=2026-01-01', '--format=%h %s', '--', 'AlgoTuneTasks/*/*.py']).stdout.trim().split('\n');
  const unnamed = log.filter((line) => line && !named.has(line.split(' ')[0]));
  console.log(`\n${unnamed.length} other commits touch a task's module since 2026-01-01 (formatting, follow-ups, generator-only, list/array fixes):`);
  for (const line of unnamed) console.log(`  ${line}`);
}

main();
