/**
 * What `submit_test` remembers between calls and servers, per entry: how many
 * calls it answered (every call counts, a file resubmitted too) and the first
 * answer each solution digest got (a digest already scored is answered the
 * same, without a rerun). Kept next to the zoo's ledger (`<ledger>.sealed.json`,
 * mode 0600: in the zoo's `.arbor/`, which no tool accepts a path into), so it
 * goes with the test runs it counts: whoever resets the ledger resets it.
 */
import {chmodSync, mkdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {writeFileAtomic} from '../files.js';

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
  return `${ledger}.sealed.json`;
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

/** One change at a time per file within this process (an HTTP server's sessions share it). */
const queues = new Map<string, Promise<unknown>>();
function serialized<T>(file: string, change: () => T): Promise<T> {
  const next = (queues.get(file) ?? Promise.resolve()).then(change, change);
  queues.set(
    file,
    next.catch(() => {}),
  );
  return next;
}

/**
 * Count one call of `name` against `budget`, unless it is spent: the calls
 * after this one (`used`), or `refused` with the count; and the answer the
 * digest got before, if it did.
 */
export function reserveCall(file: string, name: string, budget: number, digest: string): Promise<{refused: boolean; used: number; answer?: SealedAnswer}> {
  return serialized(file, () => {
    const state = read(file);
    const entry = (state.entries[name] ??= {calls: 0, answers: {}});
    if (entry.calls >= budget) return {refused: true, used: entry.calls};
    entry.calls++;
    write(file, state);
    const known = entry.answers[digest];
    return {refused: false, used: entry.calls, ...(known ? {answer: {verdict: known.verdict, bucket: known.bucket}} : {})};
  });
}

/** Keep the first answer a digest got (a later one never replaces it). */
export function rememberAnswer(file: string, name: string, digest: string, answer: SealedAnswer): Promise<SealedAnswer> {
  return serialized(file, () => {
    const state = read(file);
    const entry = (state.entries[name] ??= {calls: 0, answers: {}});
    const known = entry.answers[digest];
    if (known) return {verdict: known.verdict, bucket: known.bucket};
    entry.answers[digest] = {...answer, time: new Date().toISOString()};
    write(file, state);
    return answer;
  });
}
