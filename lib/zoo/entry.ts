/** Verify one zoo entry for `list`: the lint counts plus the README's first prose line. */
import {type Markdown, verifyBenchmarkSync} from './lint.js';

/** What `list` keeps of one verified entry (small: 10,000 of these stay in memory). */
export interface EntryStatus {
  errors: number;
  warnings: number;
  title: string | null;
  /** The first error message, for a quick hint. */
  firstError?: string;
  /** Files the result depends on beyond README, PROVENANCE and the top-level text files (the cache looks at them). */
  deps?: string[];
}

/** Verify the folder `abs` (shown as `shown`) and extract its title; `files`: its top-level text files when already listed. */
export function inspectEntry(abs: string, shown: string, parse: Markdown, files?: string[]): EntryStatus {
  const report = verifyBenchmarkSync(shown, parse, {root: abs, title: true, topLevelFiles: files});
  const status: EntryStatus = {errors: report.errors, warnings: report.warnings, title: report.title ?? null};
  const first = report.findings.find((f) => f.severity === 'error');
  if (first) status.firstError = `${first.message} (${first.ruleId})`;
  if (report.deps) status.deps = report.deps;
  return status;
}
