/** Eval jobs: what they carry, and a worker's checks before it runs one. */
import {createHash} from 'node:crypto';
import {readFileSync, readdirSync, statSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {encodeJob, JobRefusedError, materializeJob, type EvalJob} from '../../lib/run/job.js';
import {computeLock, lockDifference, readLock} from '../../lib/eval/lock.js';
import type {RunItem} from '../../lib/run/targets.js';
import {fixtures, tempDir} from '../helpers/cli.js';

const entry = path.join(fixtures, 'run/zoo/abs-a');
const slow = path.join(fixtures, 'run/solutions/slow.py');
const item = (extra: Partial<RunItem> = {}): RunItem => ({index: 0, target: {entry: 'abs-a', dir: entry, shown: 'abs-a'}, split: 'test', ...extra});
const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

describe('encodeJob', () => {
  it('carries plan.toml, arbor.lock, the protected and editable files and the solution, each with its SHA-256, and names the split only', async () => {
    const job = await encodeJob(item({solution: slow, solutionShown: 'slow.py'}));
    expect(job).toMatchObject({format: 'arbor-eval-job', version: 1, entry: 'abs-a', split: 'test'});
    expect(job.files.map((file) => file.path).sort()).toEqual(['arbor.lock', 'bundle/fherma.toml', 'bundle/generate.mjs', 'bundle/oracle.mjs', 'bundle/verify.mjs', 'eval.sh', 'plan.toml', 'solution.py']);
    for (const file of job.files) {
      const bytes = readFileSync(path.join(entry, file.path));
      expect(file.sha256).toBe(sha(bytes));
      expect(Buffer.from(file.content!, 'base64').equals(bytes)).toBe(true);
    }
    expect(job.files.find((file) => file.path === 'eval.sh')!.executable).toBe(true);
    expect(job.solution).toEqual({name: 'slow.py', sha256: sha(readFileSync(slow)), content: readFileSync(slow).toString('base64')});
    // No seeds and no salt: the worker derives test seeds itself.
    expect(Object.keys(job).sort()).toEqual(['entry', 'files', 'format', 'solution', 'split', 'version']);
  });
});

describe('materializeJob', () => {
  it('writes the files into the folder, same name, lock intact, and the solution beside it', async () => {
    const root = tempDir();
    const written = await materializeJob(await encodeJob(item({solution: slow})), root);
    expect(written).toEqual({dir: path.join(root, 'bench', 'abs-a'), split: 'test', solution: path.join(root, 'solution', 'slow.py')});
    expect(lockDifference((await readLock(written.dir))!, await computeLock(written.dir))).toBeUndefined();
    expect(statSync(path.join(written.dir, 'eval.sh')).mode & 0o111).not.toBe(0);
    expect(readFileSync(written.solution!, 'utf8')).toBe(readFileSync(slow, 'utf8'));
  });

  const refused = async (change: (job: EvalJob) => void, message: RegExp) => {
    const job = await encodeJob(item({solution: slow}));
    change(job);
    const root = tempDir();
    const attempt = materializeJob(JSON.parse(JSON.stringify(job)), root);
    await expect(attempt).rejects.toThrow(JobRefusedError);
    await expect(attempt).rejects.toThrow(message);
    return root;
  };

  it('refuses a file whose content does not match its hash', async () => {
    await refused((job) => {
      const plan = job.files.find((file) => file.path === 'bundle/verify.mjs')!;
      plan.content = Buffer.from('export default () => ({passed: true});\n').toString('base64');
    }, /^refused the job: abs-a\/bundle\/verify\.mjs does not match its SHA-256 \(expected [0-9a-f]{64}, got [0-9a-f]{64}\)$/);
  });

  it('refuses a solution whose content does not match its hash', async () => {
    await refused((job) => (job.solution!.content = Buffer.from('print(1)\n').toString('base64')), /the solution slow\.py does not match its SHA-256/);
  });

  it.each([
    ['a path that climbs out', (job: EvalJob) => (job.files[0]!.path = '../../etc/evil'), /"\.\.\/\.\.\/etc\/evil" is not a plain relative path/],
    ['an absolute path', (job: EvalJob) => (job.files[0]!.path = '/tmp/evil'), /"\/tmp\/evil" is not a plain relative path/],
    ['a symlink out of the folder', (job: EvalJob) => job.files.push({path: 'data', sha256: sha('../..'), symlink: '../..'}), /symlink data points outside the benchmark folder/],
    [
      'chained symlinks that reach out only together',
      (job: EvalJob) => job.files.push({path: 'a/b', sha256: sha('..'), symlink: '..'}, {path: 'x', sha256: sha('a/b/..'), symlink: 'a/b/..'}),
      /symlink x reaches outside the benchmark folder/,
    ],
    ['a file below a symlink', (job: EvalJob) => job.files.push({path: 'link', sha256: sha('bundle'), symlink: 'bundle'}, {path: 'link/x', sha256: sha(''), content: ''}), /link\/x lies inside link/],
    ['an entry name with a slash', (job: EvalJob) => (job.entry = '../x'), /entry "\.\.\/x" is not a folder name/],
    ['a solution name with a slash', (job: EvalJob) => (job.solution!.name = '../../x.py'), /solution needs a plain file name/],
    ['an unknown split', (job: EvalJob) => (job.split = 'holdout' as never), /unknown split "holdout"/],
    ['another format version', (job: EvalJob) => (job.version = 2 as never), /job format version 2, this arbor reads version 1/],
    ['no plan.toml', (job: EvalJob) => (job.files = job.files.filter((file) => file.path !== 'plan.toml')), /carries no plan\.toml/],
  ])('refuses %s, writing nothing outside its folder', async (_, change, message) => {
    const root = await refused(change, message);
    // Whatever was written stays inside the job's folder.
    const inside = (dir: string): string[] => readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? inside(path.join(dir, e.name)) : [path.join(dir, e.name)]));
    for (const file of inside(root)) expect(file.startsWith(root)).toBe(true);
  });

  it('refuses what is not a job at all', async () => {
    await expect(materializeJob({hello: 1}, tempDir())).rejects.toThrow('refused the job: not an arbor eval job (format null)');
    await expect(materializeJob(null, tempDir())).rejects.toThrow(JobRefusedError);
  });
});
