/** Eval jobs: what they carry (the entry's name, its lock, the solution; never a protected file), and a worker's checks before it runs one. */
import {createHash} from 'node:crypto';
import {cpSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {loadPlan} from '../../lib/benchmark/plan.js';
import {readLock, writeLock} from '../../lib/benchmark/lock.js';
import {checkJob, encodeCompareJob, encodeJob, findWorkerEntry, JobRefusedError, materializeJob, type EvalJob} from '../../lib/run/job.js';
import {planDigest} from '../../lib/benchmark/plan.js';
import type {RunItem} from '../../lib/run/targets.js';
import {fixtures, tempDir} from '../helpers/cli.js';

const zoo = path.join(fixtures, 'run/zoo');
const entry = path.join(zoo, 'abs-a');
const slow = path.join(fixtures, 'run/solutions/slow.py');
const item = (extra: Partial<RunItem> = {}, dir = entry): RunItem => ({
  index: 0,
  target: {entry: path.basename(dir), dir, shown: path.basename(dir)},
  split: 'test',
  ...extra,
});
const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
/** A copy of abs-a (named `name`) in a fresh folder, changed by `change` and locked again. */
const copyOfAbsA = async (name: string, change: (dir: string) => void = () => {}, relock = true): Promise<string> => {
  const dir = path.join(tempDir(), name);
  cpSync(entry, dir, {recursive: true});
  change(dir);
  if (relock) await writeLock(dir);
  return dir;
};

describe('encodeJob', () => {
  it('names the entry and split, carries its arbor.lock and the solution (editable files and --solution), each with its SHA-256, and no protected file', async () => {
    const job = await encodeJob(item({solution: slow, solutionShown: 'slow.py'}));
    expect(job).toMatchObject({format: 'arbor-eval-job', version: 4, kind: 'eval', entry: 'abs-a', split: 'test', lock: await readLock(entry)});
    // The digest of the plan it was made under: the worker runs it under a plan that parses to the same.
    expect(job.plan).toEqual({sha256: planDigest(await loadPlan(entry))});
    expect(job.files.map((file) => file.path)).toEqual(['solution.py']);
    const bytes = readFileSync(path.join(entry, 'solution.py'));
    expect(job.files[0]).toEqual({path: 'solution.py', sha256: sha(bytes), content: bytes.toString('base64')});
    expect(job.solution).toEqual({name: 'slow.py', sha256: sha(readFileSync(slow)), content: readFileSync(slow).toString('base64')});
    // No seeds and no salt: the worker derives test seeds itself.
    expect(Object.keys(job).sort()).toEqual(['entry', 'files', 'format', 'kind', 'lock', 'plan', 'solution', 'split', 'version']);
  });

  it("the plan's digest is the same for the same entry in another folder (paths inside the entry count relative), and differs with any setting", async () => {
    const plan = await loadPlan(entry);
    const moved = await loadPlan(await copyOfAbsA('abs-a'));
    expect(moved.dir).not.toBe(plan.dir);
    expect(planDigest(moved)).toBe(planDigest(plan));
    expect(planDigest({...plan, repetitions: plan.repetitions + 1})).not.toBe(planDigest(plan));
    expect(planDigest({...plan, test: {...plan.test, seeds: [...plan.test.seeds, 999]}})).not.toBe(planDigest(plan));
  });

  it('refuses an entry without arbor.lock, or whose protected files differ from it', async () => {
    const unlocked = await copyOfAbsA('abs-a', (dir) => rmSync(path.join(dir, 'arbor.lock')), false);
    await expect(encodeJob(item({}, unlocked))).rejects.toThrow(
      /^abs-a has no arbor\.lock: a queue worker evaluates only entries whose protected files match its own lock; write one with 'arbor benchmark lock abs-a'$/,
    );
    const changed = await copyOfAbsA('abs-a', (dir) => writeFileSync(path.join(dir, 'bundle/oracle.mjs'), 'export default () => ({y: []});\n'), false);
    // A stale lock is the same error as in eval (exit 3), before anything is queued.
    await expect(encodeJob(item({}, changed))).rejects.toMatchObject({
      code: 'stale-lock',
      exitCode: 3,
      message:
        "abs-a: its protected files differ from arbor.lock (bundle/oracle.mjs changed), so nothing was evaluated: restore them (e.g. with git checkout), or if the change is on purpose run 'arbor benchmark lock abs-a'",
    });
  });
});

describe('findWorkerEntry: the worker runs only its own locked entry, the one the job names', () => {
  it("finds the entry of its zoo whose lock is the job's", async () => {
    const found = await findWorkerEntry(zoo, await encodeJob(item()));
    expect(found.dir).toBe(entry);
    expect(found.plan.name).toBe('run_abs_a');
  });

  it("refuses an entry its zoo lacks, one whose lock differs from the job's, and one whose own files differ from its own lock", async () => {
    const other = await encodeJob(item({}, await copyOfAbsA('abs-z')));
    await expect(findWorkerEntry(zoo, other)).rejects.toThrow(`refused the job: this worker's zoo (${zoo}) has no entry abs-z`);
    const foreign = await encodeJob(
      item({}, await copyOfAbsA('abs-a', (dir) => writeFileSync(path.join(dir, 'bundle/generate.mjs'), 'export default () => ({x: new Float64Array(1)});\n'))),
    );
    await expect(findWorkerEntry(zoo, foreign)).rejects.toThrow(
      "refused the job: the submitter's abs-a is not this worker's (against the worker's arbor.lock, bundle/generate.mjs changed): check out the same zoo on both",
    );
    const workerZoo = path.dirname(
      await copyOfAbsA('abs-a', (dir) => writeFileSync(path.join(dir, 'bundle/verify.mjs'), 'export default () => ({passed: true});\n'), false),
    );
    await expect(findWorkerEntry(workerZoo, await encodeJob(item()))).rejects.toThrow(
      "refused the job: this worker's abs-a differs from its own arbor.lock (bundle/verify.mjs changed): restore it on the worker",
    );
    // Its lock and files the submitter's, but its plan parses to another (an arbor whose plan defaults differ, or a plan.toml
    // changed after the lock was checked): refused in one line naming both digests.
    const job = await encodeJob(item());
    const mismatched = {...job, plan: {sha256: sha('another plan')}};
    await expect(findWorkerEntry(zoo, checkJob(JSON.parse(JSON.stringify(mismatched))))).rejects.toThrow(
      new RegExp(
        `^refused the job: this worker's plan of abs-a is not the submitter's \\(plan digest ${planDigest(await loadPlan(entry)).slice(0, 12)}, the job's ${sha('another plan').slice(0, 12)}\\): run the same arbor and zoo on both$`,
      ),
    );
    rmSync(path.join(workerZoo, 'abs-a/arbor.lock'));
    await expect(findWorkerEntry(workerZoo, await encodeJob(item()))).rejects.toThrow(
      "refused the job: this worker's abs-a has no arbor.lock: a worker evaluates only locked entries of its zoo",
    );
  });
});

describe('materializeJob', () => {
  it("writes the editable files into a folder of their own, the --solution file in place of the plan's solution", async () => {
    const root = tempDir();
    const plan = await loadPlan(entry);
    const written = await materializeJob(await encodeJob(item({solution: slow})), plan, root);
    expect(written).toEqual({folder: path.join(root, 'solution'), split: 'test'});
    expect(readdirSync(written.folder)).toEqual(['solution.py']);
    expect(readFileSync(path.join(written.folder, 'solution.py'), 'utf8')).toBe(readFileSync(slow, 'utf8'));
    const plain = await materializeJob(await encodeJob(item({split: 'dev'})), plan, tempDir());
    expect(readFileSync(path.join(plain.folder, 'solution.py'), 'utf8')).toBe(readFileSync(path.join(entry, 'solution.py'), 'utf8'));
  });

  const refused = async (change: (job: EvalJob) => void, message: RegExp) => {
    const job = await encodeJob(item({solution: slow}));
    change(job);
    const root = tempDir();
    const attempt = (async () => materializeJob(checkJob(JSON.parse(JSON.stringify(job))), await loadPlan(entry), root))();
    await expect(attempt).rejects.toThrow(JobRefusedError);
    await expect(attempt).rejects.toThrow(message);
    return root;
  };

  it('refuses a file or solution whose content does not match its hash', async () => {
    await refused((job) => {
      delete job.solution;
      job.files[0]!.content = Buffer.from('print(1)\n').toString('base64');
    }, /^refused the job: abs-a\/solution\.py does not match its SHA-256 \(expected [0-9a-f]{64}, got [0-9a-f]{64}\)$/);
    await refused((job) => (job.solution!.content = Buffer.from('print(1)\n').toString('base64')), /the solution slow\.py does not match its SHA-256/);
  });

  const content = (text: string) => ({sha256: sha(text), content: Buffer.from(text).toString('base64')});
  it.each([
    [
      'a protected file (a bundle of its own)',
      (job: EvalJob) => job.files.push({path: 'bundle/verify.mjs', ...content('export default () => ({passed: true});\n')}),
      /abs-a\/bundle\/verify\.mjs is not an editable file of abs-a \(editable: solution\.py\): a worker runs only its own protected files/,
    ],
    ['a plan of its own', (job: EvalJob) => job.files.push({path: 'plan.toml', ...content('name = "x"\n')}), /abs-a\/plan\.toml is not an editable file/],
    [
      'a symlink',
      (job: EvalJob) => job.files.push({path: 'data', sha256: sha('../..'), symlink: '../..'} as never),
      /data carries "symlink": a job's files are plain editable files/,
    ],
    [
      'files of the old format (version 1)',
      (job: EvalJob) => (job.version = 1 as never),
      /job format version 1, this arbor reads versions 2, 3 and 4: run the same arbor version on submitter and workers/,
    ],
    [
      "a version 4 job without its plan's digest",
      (job: EvalJob) => delete job.plan,
      /the job carries no digest of its entry's plan \(plan\.sha256\): a version 4 job names the plan it was made under/,
    ],
    ['a plan of more than its digest', (job: EvalJob) => (job.plan = {sha256: sha('x'), seeds: [1]} as never), /the job carries no digest of its entry's plan/],
    ['a plan field in a version 3 job', (job: EvalJob) => (job.version = 3), /the job carries "plan", which a worker never reads/],
    ['a field a worker does not read', (job: EvalJob) => Object.assign(job, {seeds: [1, 2]}), /the job carries "seeds", which a worker never reads/],
    ['no lock', (job: EvalJob) => delete (job as Partial<EvalJob>).lock, /the job carries no arbor\.lock of its entry/],
    ['a path that climbs out', (job: EvalJob) => (job.files[0]!.path = '../../etc/evil'), /"\.\.\/\.\.\/etc\/evil" is not a plain relative path/],
    ['an absolute path', (job: EvalJob) => (job.files[0]!.path = '/tmp/evil'), /"\/tmp\/evil" is not a plain relative path/],
    ['an entry name with a slash', (job: EvalJob) => (job.entry = '../x'), /entry "\.\.\/x" is not a folder name/],
    ['a solution name with a slash', (job: EvalJob) => (job.solution!.name = '../../x.py'), /solution needs a plain file name/],
    ['an unknown split', (job: EvalJob) => (job.split = 'holdout' as never), /unknown split "holdout"/],
    ['an unknown kind', (job: EvalJob) => (job.kind = 'calibrate' as never), /unknown job kind "calibrate", expected eval or compare/],
    ['a kind in a version 2 job', (job: EvalJob) => Object.assign(job, {version: 2, kind: 'compare'}), /the job carries "kind", which a worker never reads/],
    ['an eval job with a baseline', (job: EvalJob) => (job.baseline = {sha256: sha('x')}), /an eval job carries no baseline/],
    ["a compare job without the baseline's digest", (job: EvalJob) => (job.kind = 'compare'), /a compare job carries the digest of the entry's own solution/],
    [
      'a compare job with more of the baseline than its digest',
      (job: EvalJob) => Object.assign(job, {kind: 'compare', baseline: {sha256: sha('x'), content: 'eA=='}}),
      /a compare job carries the digest of the entry's own solution \(baseline\.sha256\) and nothing else of it/,
    ],
  ])('refuses %s, writing nothing outside its folder', async (_, change, message) => {
    const root = await refused(change, message);
    const inside = (dir: string): string[] =>
      readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? inside(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    for (const file of inside(root)) expect(file.startsWith(root)).toBe(true);
    expect(statSync(root).isDirectory()).toBe(true);
  });

  it('refuses what is not a job at all', () => {
    expect(() => checkJob({hello: 1})).toThrow('refused the job: not an arbor eval job (format null)');
    expect(() => checkJob(null)).toThrow(JobRefusedError);
  });
});

describe('compare jobs (arbor mcp --sealed-queue), and eval jobs of version 2', () => {
  it('a version 2 eval job (no kind) reads as an eval', async () => {
    const {kind: _, plan: __, ...old} = await encodeJob(item());
    const checked = checkJob(JSON.parse(JSON.stringify({...old, version: 2})));
    expect(checked).toMatchObject({version: 2, kind: 'eval', entry: 'abs-a', split: 'test'});
    expect((await materializeJob(checked, await loadPlan(entry), tempDir())).split).toBe('test');
  });

  it("a version 3 job (no plan digest, an arbor before it) is run on its lock's word alone", async () => {
    const {plan: _, ...old} = await encodeJob(item());
    const checked = checkJob(JSON.parse(JSON.stringify({...old, version: 3})));
    expect((await findWorkerEntry(zoo, checked)).dir).toBe(entry);
  });

  it("carries the candidate's editable files (a folder's, or a file in place of the solution) and the digest of the entry's own solution; a worker whose own solution differs refuses it", async () => {
    const {solutionDigest} = await import('../../lib/ledger/digest.js');
    const own = solutionDigest([{path: 'solution.py', bytes: readFileSync(path.join(entry, 'solution.py'))}]);
    const candidate = tempDir();
    writeFileSync(path.join(candidate, 'solution.py'), readFileSync(slow));
    const job = await encodeCompareJob({entry: 'abs-a', dir: entry, shown: 'abs-a', split: 'test', candidate});
    expect(job).toMatchObject({
      format: 'arbor-eval-job',
      version: 4,
      kind: 'compare',
      entry: 'abs-a',
      split: 'test',
      lock: await readLock(entry),
      baseline: {sha256: own},
    });
    expect(job.files).toEqual([{path: 'solution.py', sha256: sha(readFileSync(slow)), content: readFileSync(slow).toString('base64')}]);
    expect(job.solution).toBeUndefined();
    const fromFile = await encodeCompareJob({entry: 'abs-a', dir: entry, shown: 'abs-a', split: 'test', candidate: slow});
    expect(fromFile.solution).toEqual({name: 'slow.py', sha256: sha(readFileSync(slow)), content: readFileSync(slow).toString('base64')});
    const checked = checkJob(JSON.parse(JSON.stringify(job)));
    expect((await findWorkerEntry(zoo, checked)).dir).toBe(entry);
    const written = await materializeJob(checked, await loadPlan(entry), tempDir());
    expect(readFileSync(path.join(written.folder, 'solution.py'), 'utf8')).toBe(readFileSync(slow, 'utf8'));
    // A worker zoo whose abs-a solves it its own way: its lock still matches (the solution is editable), its baseline is not the submitter's.
    const workerZoo = path.dirname(await copyOfAbsA('abs-a', (dir) => writeFileSync(path.join(dir, 'solution.py'), readFileSync(slow))));
    await expect(findWorkerEntry(workerZoo, checked)).rejects.toThrow(
      /^refused the job: this worker's own solution of abs-a is not the submitter's \(solution digest [0-9a-f]{12}, the job's [0-9a-f]{12}\): check out the same zoo on both$/,
    );
  });
});
