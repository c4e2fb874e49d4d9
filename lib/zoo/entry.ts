/** Verify one zoo entry for `list`: the lint counts plus the README's first prose line, and what list's cache signs it with. */
import type {Stats} from 'node:fs';
import {type StatResult, signature, signedFiles, statOf} from './cache.js';
import {FolderReader} from './folder-reader.js';
import {type Markdown, verifyBenchmarkSync} from './lint.js';
import type {RawFile} from './text.js';
import {nestedTemplateFiles, textFilesOf} from './templates.js';
import {type ValidatorStrength, validatorStrength} from './rules/weak-validator.js';

/** What `list` keeps of one verified entry (small: 10,000 of these stay in memory). */
export interface EntryStatus {
  errors: number;
  warnings: number;
  title: string | null;
  /** The first error message, for a quick hint. */
  firstError?: string;
  /** An imported entry's validator strength, from its import record (rules/weak-validator.ts). */
  validator?: ValidatorStrength;
}

/** An entry verified, with what the cache needs to store it. */
export interface Inspected {
  status: EntryStatus;
  /** The folder's top-level text files, as verify listed them. */
  files: string[];
  /** The files whose stats prove the result unchanged (`signedFiles`), their `signature` and its newest change time. */
  signed: string[];
  sig: string;
  newest: number;
}

/**
 * What one list run shares between the folders it verifies: files outside any folder (a bundle's
 * determinism cache file), each read and stat'ed once per run, and the TOML texts parsed.
 */
export interface ListRun {
  outside: Map<string, RawFile>;
  stats: Map<string, StatResult>;
  /** TOML texts parsed (plans and bundle markers), by text. */
  tomls: Map<string, unknown>;
}

/** A fresh `ListRun`. */
export function listRun(): ListRun {
  return {outside: new Map(), stats: new Map(), tomls: new Map()};
}

/**
 * Verify the folder `abs` (shown as `shown`) and extract its title; `files`: its top-level text files
 * when already listed. The result is signed with the stats of the files as they were read (the
 * descriptor's fstat), so a file changed after its read never matches the signature stored.
 */
export function inspectEntry(abs: string, shown: string, parse: Markdown, files?: string[], run: ListRun = listRun()): Inspected {
  const reader = new FolderReader(abs, run.outside, run.tomls);
  const topLevel = files ?? textFilesOf(reader.entries(abs));
  const report = verifyBenchmarkSync(shown, parse, {root: abs, title: true, topLevelFiles: topLevel, reader});
  const status: EntryStatus = {errors: report.errors, warnings: report.warnings, title: report.title ?? null};
  const first = report.findings.find((f) => f.severity === 'error');
  if (first) status.firstError = `${first.message} (${first.ruleId})`;
  // The import record is signed already (the weak-validator rule depends on it), so a cached status stays true to it.
  const recordFile = `${abs}/.arbor-import.json`;
  const record = reader.isFile(recordFile) ? reader.text(recordFile) : undefined;
  const validator = record?.status === 'ok' ? validatorStrength(record.text) : undefined;
  if (validator) status.validator = validator;
  const stat = memo((file: string): StatResult => {
    const kept: Stats | undefined = reader.stats.get(file);
    if (kept) return kept;
    if (!file.startsWith(`${abs}/`)) {
      // Outside the folder (shared by the run): stat'ed once.
      if (!run.stats.has(file)) run.stats.set(file, statOf(file));
      return run.stats.get(file);
    }
    // A file the listings verify took show absent is signed absent without a stat of its own (most
    // of a folder's signed names are optional files it does not have). A file created after the
    // listing then changes its folder's mtime, which is signed, or misses on the next run.
    if (reader.listedAbsent(file)) return undefined;
    return statOf(file);
  });
  const signed = signedFiles(abs, ['README.md', 'PROVENANCE.md', ...topLevel, ...nestedTemplateFiles(), ...(report.deps ?? [])], stat);
  const {sig, newest} = signature(abs, signed, stat);
  return {status, files: topLevel, signed, sig, newest};
}

/** `stat` remembered per file for one signing (signedFiles and signature look at the same files). */
function memo(stat: (file: string) => StatResult): (file: string) => StatResult {
  const seen = new Map<string, StatResult>();
  return (file) => {
    if (!seen.has(file)) seen.set(file, stat(file));
    return seen.get(file);
  };
}
