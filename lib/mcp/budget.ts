/**
 * What `submit_test` remembers between calls and servers, per entry: how many
 * calls it answered (every call counts, a file resubmitted too) and the first
 * answer each solution digest got (a digest already scored is answered the
 * same, without a rerun). Every change holds the MCP store's lock, so servers
 * started per call, and runs that outlived theirs, count one call at a time. Kept next to the zoo's ledger (`<ledger>.sealed.json`,
 * mode 0600: in the zoo's `.arbor/`, which no tool accepts a path into), so it
 * goes with the test runs it counts: whoever resets the ledger resets it.
 */
import {chmodSync, existsSync, mkdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {writeFileAtomic} from '../files.js';
import {sealedCallsFile, testExposure} from '../ledger/exposure.js';
import {openLedger} from '../ledger/ledger.js';

/** A sealed answer: what submit_test said of a solution the first time. */
export interface SealedAnswer {
  verdict: string;
  bucket: string;
}

interface Entry {
  calls: number;
  answers: Record<string, SealedAnswer & {time: string}>;
}

interface State {
  version: 1;
  entries: Record<string, Entry>;
}

/** Where the budget of a ledger's entries is kept. */
export function budgetFile(ledger: string): string {
  return sealedCallsFile(ledger);
}

function read(file: string): State {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {version: 1, entries: {}};
    throw error;
  }
  const state = JSON.parse(text) as State;
  // A file that is not ours is refused rather than taken for an empty budget.
  if (state?.version !== 1 || typeof state.entries !== 'object' || state.entries === null) throw new Error(`${file}: not a submit_test budget file`);
  return state;
}

function write(file: string, state: State): void {
  mkdirSync(path.dirname(file), {recursive: true, mode: 0o700});
  writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
  chmodSync(file, 0o600);
}

/** Runs a change holding a lock across processes (the MCP store's write lock: every server and run on the zoo). */
type Lock = <T>(change: () => T) => T;

/** One change at a time per file: in this process (an HTTP server's sessions share it), and across processes under `lock`. */
const queues = new Map<string, Promise<unknown>>();
function serialized<T>(file: string, lock: Lock, change: () => T): Promise<T> {
  const locked = () => lock(change);
  const next = (queues.get(file) ?? Promise.resolve()).then(locked, locked);
  queues.set(
    file,
    next.catch(() => {}),
  );
  return next;
}

/**
 * The entry's test exposure with `entry`'s calls (lib/ledger/exposure.ts, the
 * count `arbor benchmark runs` and `eval … test` give too): the calls, and
 * each other solution the ledger scored on test (the owner's CLI evals).
 */
function exposureWith(ledgerFile: string, name: string, entry: Entry): number {
  const sealed = {calls: entry.calls, answered: Object.keys(entry.answers)};
  if (!existsSync(ledgerFile)) return sealed.calls;
  const ledger = openLedger(ledgerFile, {readonly: true});
  try {
    return testExposure(ledger, name, sealed);
  } finally {
    ledger.close();
  }
}

/**
 * Count one call of `name` against `budget`, unless the entry's test exposure
 * has reached it: the exposure with this call (`used`), or `refused` with the
 * exposure; and the answer the digest got before, if it did.
 */
export function reserveCall(
  file: string,
  name: string,
  budget: number,
  digest: string,
  lock: Lock = (change) => change(),
): Promise<{refused: boolean; used: number; answer?: SealedAnswer}> {
  return serialized(file, lock, () => {
    const state = read(file);
    const entry = (state.entries[name] ??= {calls: 0, answers: {}});
    const ledgerFile = file.slice(0, -'.sealed.json'.length);
    const before = exposureWith(ledgerFile, name, entry);
    if (before >= budget) return {refused: true, used: before};
    entry.calls++;
    write(file, state);
    const known = entry.answers[digest];
    return {refused: false, used: before + 1, ...(known ? {answer: {verdict: known.verdict, bucket: known.bucket}} : {})};
  });
}

/** The answer a digest got first, if any (read without a lock: an answer once written never changes). */
export function knownAnswer(file: string, name: string, digest: string): SealedAnswer | undefined {
  const known = read(file).entries[name]?.answers[digest];
  return known ? {verdict: known.verdict, bucket: known.bucket} : undefined;
}

/** Keep the first answer a digest got (a later one never replaces it). */
export function rememberAnswer(file: string, name: string, digest: string, answer: SealedAnswer, lock: Lock = (change) => change()): Promise<SealedAnswer> {
  return serialized(file, lock, () => {
    const state = read(file);
    const entry = (state.entries[name] ??= {calls: 0, answers: {}});
    const known = entry.answers[digest];
    if (known) return {verdict: known.verdict, bucket: known.bucket};
    entry.answers[digest] = {...answer, time: new Date().toISOString()};
    write(file, state);
    return answer;
  });
}
