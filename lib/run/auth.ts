/**
 * The queue's key and what it authenticates. Submitter and workers share a
 * secret (ARBOR_QUEUE_KEY, or a key file) that never travels: every job, every
 * worker answer and every progress update on the queue carries an HMAC-SHA256
 * over the canonical JSON of all its fields, the queue's name and the job's
 * id, so a process that can write to Redis but holds no key can neither make
 * a worker run a job nor make a submitter record a report, and no signed
 * message can be moved onto another job. lib/run/README.md has the model.
 */
import {createHmac, timingSafeEqual} from 'node:crypto';
import {readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import {canonicalJson} from '../environment.js';
import {UsageError} from '../errors.js';
import {queueKeyFileVariable, queueKeyVariable} from '../secrets.js';

/** The environment variable holding the key itself. */
export {queueKeyVariable} from '../secrets.js';
/** The environment variable naming a file that holds the key. */
export {queueKeyFileVariable} from '../secrets.js';
/** The fewest characters a key may have (`openssl rand -hex 32` makes 64). */
export const queueKeyMinLength = 32;

/** How to make a key, for messages. */
const howToMake = 'make one with `openssl rand -hex 32`';

/**
 * The queue key: `--queue-key-file` when given, else the environment
 * (ARBOR_QUEUE_KEY or ARBOR_QUEUE_KEY_FILE, not both). The key is the text
 * with surrounding whitespace removed. A missing, short or unreadable key, or
 * a key file others can read or anyone but its owner can write, is a
 * UsageError (exit 2) that says how to make one.
 */
export function resolveQueueKey(file: string | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Buffer {
  const fromEnv = env[queueKeyVariable] ?? '';
  const fileFromEnv = env[queueKeyFileVariable] ?? '';
  if (file !== undefined) return readKeyFile(file, `--queue-key-file ${file}`, cwd);
  if (fromEnv !== '' && fileFromEnv !== '')
    throw new UsageError(`both ${queueKeyVariable} and ${queueKeyFileVariable} are set: set one of them`, 'no-queue-key');
  if (fileFromEnv !== '') return readKeyFile(fileFromEnv, `${queueKeyFileVariable}=${fileFromEnv}`, cwd);
  if (fromEnv !== '') return checkKey(fromEnv, queueKeyVariable);
  throw new UsageError(
    `no queue key: set ${queueKeyVariable} to a secret shared by the submitter and its workers (${howToMake}), or name a file holding it with --queue-key-file PATH or ${queueKeyFileVariable}`,
    'no-queue-key',
  );
}

function readKeyFile(file: string, where: string, cwd: string): Buffer {
  const full = path.resolve(cwd, file);
  let text: string;
  let mode: number;
  try {
    mode = statSync(full).mode;
    text = readFileSync(full, 'utf8');
  } catch (error) {
    throw new UsageError(`${where}: cannot read the key file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'no-queue-key');
  }
  // Others reading it could forge reports; others writing it could swap the key.
  if (mode & 0o026)
    throw new UsageError(
      `${where}: the key file can be ${mode & 0o004 ? 'read' : 'written'} by other users (mode ${(mode & 0o777).toString(8).padStart(4, '0')}): chmod 600 ${file}`,
      'no-queue-key',
    );
  return checkKey(text, where);
}

function checkKey(text: string, where: string): Buffer {
  const key = text.trim();
  if (key.length < queueKeyMinLength) {
    throw new UsageError(
      `${where}: the queue key is ${key.length} character(s), too short to be a secret: use at least ${queueKeyMinLength} (${howToMake})`,
      'no-queue-key',
    );
  }
  return Buffer.from(key, 'utf8');
}

/**
 * The text a MAC covers: canonical JSON (keys sorted) of the value as it
 * reads back from JSON, undefined fields dropped and non-finite numbers null,
 * as Redis will hand it to the other side: the same text for the same
 * content on every machine.
 */
function macText(value: unknown): string {
  return canonicalJson(JSON.parse(JSON.stringify(value)) as unknown);
}

/** What a MAC is about: a job, a worker's answer to one, or a progress update of one. */
export type MacPurpose = 'job' | 'answer' | 'progress';

/** Where a message belongs: the queue's name and the job's id. */
export interface MacScope {
  queue: string;
  jobId: string;
}

/** HMAC-SHA256 (hex) of a message: its purpose, queue, job id and every field, as canonical JSON. */
export function queueMac(key: Buffer, purpose: MacPurpose, scope: MacScope, payload: unknown): string {
  const message = macText({mac: 'arbor-queue-hmac-sha256/1', purpose, queue: scope.queue, jobId: scope.jobId, payload});
  return createHmac('sha256', key).update(message, 'utf8').digest('hex');
}

/** Whether `mac` is the MAC of the message (compared in constant time). */
export function checkQueueMac(key: Buffer, purpose: MacPurpose, scope: MacScope, payload: unknown, mac: unknown): boolean {
  if (typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return timingSafeEqual(Buffer.from(queueMac(key, purpose, scope, payload), 'hex'), Buffer.from(mac, 'hex'));
}

/** A message and its MAC as they sit in Redis: the fields, and `mac`. */
export type Signed<T> = T & {mac: string};

/** The message with its MAC added. */
export function sign<T extends object>(key: Buffer, purpose: MacPurpose, scope: MacScope, payload: T, bound: Record<string, unknown> = {}): Signed<T> {
  return {...payload, mac: queueMac(key, purpose, scope, {fields: payload, bound})};
}

/**
 * The fields of a signed message whose MAC verifies, else why not. `bound`
 * are fields the MAC covers that do not travel with it (the job's own MAC, in
 * an answer).
 */
export function verifySigned(
  key: Buffer,
  purpose: MacPurpose,
  scope: MacScope,
  data: unknown,
  bound: Record<string, unknown> = {},
): {ok: true; payload: Record<string, unknown>} | {ok: false; reason: string} {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {ok: false, reason: 'it is not a signed message'};
  const {mac, ...payload} = data as Record<string, unknown>;
  if (mac === undefined) return {ok: false, reason: 'it carries no MAC'};
  if (!checkQueueMac(key, purpose, scope, {fields: payload, bound}, mac)) return {ok: false, reason: 'its MAC does not verify with this queue key'};
  return {ok: true, payload};
}
