/**
 * The shape of a lint rule: an id, a one-line description and a `check(ctx)`
 * that only reports. The runner (`lint.ts`) stamps rule id, severity and file.
 */
import type {Root} from 'mdast';
import type {DeterminismOutcome} from './determinism.js';
import type {LoadedFile} from './text.js';

/** How bad a finding is: errors fail verify, warnings do not. */
export type Severity = 'error' | 'warning';

/** A place in a file (1-based line and column). */
export interface Place {
  line: number;
  column: number;
}

/** What a rule sees of one benchmark folder. */
export interface RuleContext {
  /** The folder as the user named it. */
  readonly dir: string;
  /** The folder's absolute path. */
  readonly root: string;
  /** Load a file of the folder (relative path, `/`-separated) as text; cached. */
  file(name: string): LoadedFile;
  /**
   * The block-structure mdast tree of a markdown file (inline markup left as raw
   * text; pass it through `inlineText`), or undefined when it could not be read.
   * Paragraphs carry their position but no children: their text is not
   * tokenized (read it from `file(name)` by offset if a rule ever needs it).
   */
  markdown(name: string): Root | undefined;
  /** Plain text of raw inline markdown, inline markup removed. */
  inlineText(raw: string): string;
  /** Files the placeholder rule scans: README, PROVENANCE and every template text file present. */
  placeholderFiles(): string[];
  /**
   * Name files (relative to the folder, `/`-separated; folders too; or absolute, for a file outside
   * it) a finding depends on beyond README, PROVENANCE and the top-level text files, so that list's
   * cache looks at them.
   */
  dependsOn(files: readonly string[]): void;
  /**
   * The determinism check's outcome when verify or lock just made the cases twice (`bundle-deterministic`
   * reports it); absent in list, whose rule reads the cached outcome instead and never runs a make.
   */
  readonly determinism?: DeterminismOutcome;
  /** Report a finding; `file` is relative to the folder, absent for folder-level findings. */
  report(message: string, options?: {file?: string; place?: Place}): void;
}

/** One lint rule. */
export interface Rule {
  /** Stable kebab-case id, printed after each finding. */
  readonly id: string;
  /** One line: what the rule expects. */
  readonly description: string;
  /** Severity of every finding of this rule. */
  readonly severity: Severity;
  /** Inspect the folder and report; never throws for bad input. */
  check(ctx: RuleContext): void;
}
