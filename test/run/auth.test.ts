/** The queue key and its MACs (lib/run/auth.ts), and what an eval process is given of the caller's secrets (lib/run/eval-process.ts). */
import {chmodSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {loadPlan} from '../../lib/benchmark/plan.js';
import {deriveSeeds, warmupSeed} from '../../lib/eval/seeds.js';
import {checkQueueMac, queueMac, resolveQueueKey, sign, verifySigned} from '../../lib/run/auth.js';
import {derivedTestSeeds, evalEnvironment, redactDeep, seedRedactor} from '../../lib/run/eval-process.js';
import {fixtures, tempDir} from '../helpers/cli.js';

const hex = 'a3'.repeat(32);
const key = Buffer.from(hex);
const scope = {queue: 'arbor-eval', jobId: 'j-0'};

describe('resolveQueueKey', () => {
  const noKey =
    'no queue key: set ARBOR_QUEUE_KEY to a secret shared by the submitter and its workers (make one with `openssl rand -hex 32`), or name a file holding it with --queue-key-file PATH or ARBOR_QUEUE_KEY_FILE';

  it('reads ARBOR_QUEUE_KEY, ARBOR_QUEUE_KEY_FILE or --queue-key-file (which wins), trimmed', () => {
    const dir = tempDir();
    const file = path.join(dir, 'key');
    writeFileSync(file, `${'b4'.repeat(32)}\n`, {mode: 0o600});
    expect(resolveQueueKey(undefined, {ARBOR_QUEUE_KEY: ` ${hex}\n`})).toEqual(key);
    expect(resolveQueueKey(undefined, {ARBOR_QUEUE_KEY_FILE: 'key'}, dir).toString()).toBe('b4'.repeat(32));
    expect(resolveQueueKey(file, {ARBOR_QUEUE_KEY: hex}).toString()).toBe('b4'.repeat(32));
  });

  it('refuses no key, a short key, both variables, and a key file others can read: one line, exit 2, saying how to make a key', () => {
    const refusal = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        expect(error).toMatchObject({exitCode: 2, code: 'no-queue-key'});
        expect((error as Error).message).not.toContain('\n');
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(refusal(() => resolveQueueKey(undefined, {}))).toBe(noKey);
    expect(refusal(() => resolveQueueKey(undefined, {ARBOR_QUEUE_KEY: '', ARBOR_QUEUE_KEY_FILE: ''}))).toBe(noKey);
    expect(refusal(() => resolveQueueKey(undefined, {ARBOR_QUEUE_KEY: 'secret'}))).toBe(
      'ARBOR_QUEUE_KEY: the queue key is 6 character(s), too short to be a secret: use at least 32 (make one with `openssl rand -hex 32`)',
    );
    expect(refusal(() => resolveQueueKey(undefined, {ARBOR_QUEUE_KEY: hex, ARBOR_QUEUE_KEY_FILE: 'key'}))).toBe(
      'both ARBOR_QUEUE_KEY and ARBOR_QUEUE_KEY_FILE are set: set one of them',
    );
    const dir = tempDir();
    const file = path.join(dir, 'key');
    writeFileSync(file, hex);
    chmodSync(file, 0o644);
    expect(refusal(() => resolveQueueKey(file, {}))).toBe(`--queue-key-file ${file}: the key file can be read by other users (mode 0644): chmod 600 ${file}`);
    expect(refusal(() => resolveQueueKey(path.join(dir, 'missing'), {}))).toBe(
      `--queue-key-file ${path.join(dir, 'missing')}: cannot read the key file: ENOENT`,
    );
  });
});

describe('queue MACs', () => {
  const payload = {entry: 'abs-a', split: 'dev', files: [{path: 'solution.py', sha256: 'ab'}]};

  it('cover every field, the purpose, the queue and the job id; not the order of keys', () => {
    const mac = queueMac(key, 'job', scope, payload);
    expect(mac).toMatch(/^[0-9a-f]{64}$/);
    expect(queueMac(key, 'job', scope, {files: [{sha256: 'ab', path: 'solution.py'}], split: 'dev', entry: 'abs-a'})).toBe(mac);
    expect(checkQueueMac(key, 'job', scope, payload, mac)).toBe(true);
    for (const [what, check] of [
      ['another field value', () => checkQueueMac(key, 'job', scope, {...payload, split: 'test'}, mac)],
      ['another job id (a replay)', () => checkQueueMac(key, 'job', {...scope, jobId: 'j-1'}, payload, mac)],
      ['another queue', () => checkQueueMac(key, 'job', {...scope, queue: 'other'}, payload, mac)],
      ['another purpose', () => checkQueueMac(key, 'answer', scope, payload, mac)],
      ['another key', () => checkQueueMac(Buffer.from('c5'.repeat(32)), 'job', scope, payload, mac)],
      ['a MAC that is not hex', () => checkQueueMac(key, 'job', scope, payload, 'z'.repeat(64))],
      ['a short MAC', () => checkQueueMac(key, 'job', scope, payload, mac.slice(2))],
      ['no MAC', () => checkQueueMac(key, 'job', scope, payload, undefined)],
    ] as const)
      expect(check(), what).toBe(false);
  });

  it('a signed answer is bound to the job it answers: a field added, or the answer moved to another job, does not verify', () => {
    const answer = sign(key, 'answer', scope, {report: {score: 0.5}, worker: 'w:1'}, {job: 'mac-of-job-0'});
    const stored = JSON.parse(JSON.stringify(answer)) as unknown;
    expect(verifySigned(key, 'answer', scope, stored, {job: 'mac-of-job-0'})).toEqual({ok: true, payload: {report: {score: 0.5}, worker: 'w:1'}});
    expect(verifySigned(key, 'answer', scope, stored, {job: 'mac-of-job-1'})).toEqual({ok: false, reason: 'its MAC does not verify with this queue key'});
    expect(verifySigned(key, 'answer', scope, {...answer, report: {score: 999}}, {job: 'mac-of-job-0'}).ok).toBe(false);
    expect(verifySigned(key, 'answer', scope, {...answer, job: 'x'}, {job: 'mac-of-job-0'}).ok).toBe(false);
    expect(verifySigned(key, 'answer', scope, {report: {score: 999}, worker: 'rogue'})).toEqual({ok: false, reason: 'it carries no MAC'});
    expect(verifySigned(key, 'answer', scope, null)).toEqual({ok: false, reason: 'it is not a signed message'});
  });
});

describe('the eval process holds no secret', () => {
  it("gets the caller's environment without ARBOR_TEST_SALT and the queue key", () => {
    const env = {PATH: '/bin', ARBOR_TEST_SALT: 's', ARBOR_QUEUE_KEY: hex, ARBOR_QUEUE_KEY_FILE: '/k', ARBOR_PYTHON: 'python3'};
    expect(evalEnvironment(env)).toEqual({PATH: '/bin', ARBOR_PYTHON: 'python3'});
    expect(env.ARBOR_TEST_SALT).toBe('s');
  });

  it('is handed the salted test seeds, derived by the parent as the eval derives them; they are blanked out of what it says', async () => {
    const plan = await loadPlan(path.join(fixtures, 'run/zoo/abs-a'));
    const env = {ARBOR_TEST_SALT: 'pepper'};
    const seeds = deriveSeeds('pepper', 'run_abs_a', 3, [0, 1]);
    expect(await derivedTestSeeds(plan, 'test', env)).toEqual(seeds);
    expect(await derivedTestSeeds(plan, 'dev', env)).toBeUndefined();
    expect(await derivedTestSeeds(plan, 'test', {})).toBeUndefined();
    const redact = seedRedactor(plan, seeds);
    const warm = warmupSeed({...plan, test: {...plan.test, seeds}}, seeds);
    expect(redact(`generate failed for seed ${seeds[1]} (case 000001); warm-up ${warm + 2}; case 12`)).toBe(
      'generate failed for seed <test seed> (case 000001); warm-up <test seed>; case 12',
    );
    expect(redactDeep({failure: `seed ${seeds[0]}`, score: 1, points: [{note: `${seeds[2]}`}]}, redact)).toEqual({
      failure: 'seed <test seed>',
      score: 1,
      points: [{note: '<test seed>'}],
    });
    expect(seedRedactor(plan, undefined)('seed 10')).toBe('seed 10');
  });
});
