/**
 * The lint runner: builds a rule context for one benchmark folder, runs every
 * rule, and stamps each report as a vfile message with rule id, severity and file.
 */
import path from 'node:path';
import {VFileMessage} from 'vfile-message';
import type {Root} from 'mdast';
import type {DeterminismOutcome} from './determinism.js';
import type {Place, Rule, RuleContext, Severity} from './rule.js';
import {rules as allRules} from './rules/index.js';
import {bindReader, FolderReader} from './folder-reader.js';
import {scannedFiles, textFilesOf} from './templates.js';
import {firstProseLine} from './title.js';

/** One finding, as printed and as serialised by `--json`. */
export interface Finding {
  /** The file (folder path joined with the file name), or the folder itself for folder-level findings. */
  file: string;
  line?: number;
  column?: number;
  severity: Severity;
  ruleId: string;
  message: string;
}

/** The result of verifying one benchmark folder. */
export interface BenchmarkReport {
  /** The folder as given. */
  dir: string;
  errors: number;
  warnings: number;
  findings: Finding[];
  /** The README's first prose line, when asked for with `title: true`. */
  title?: string | null;
  /** Files the findings depend on beyond README, PROVENANCE and the top-level text files (list's cache looks at them). */
  deps?: string[];
  /** verify's determinism check, when it ran: what was made twice, whether every byte matched, and its wall seconds. */
  determinism?: {
    checked: Array<{point: Record<string, number>; seed: number}>;
    identical: boolean;
    seconds: number;
    /** A speedup plan's reference, run twice on the same fresh dev cases: whether its answers agreed (and passed), and whether an earlier pass of the same bytes was reused. */
    reference?: {identical: boolean; reused: boolean; seconds: number};
  };
  /** `verify --probe`: each probe's outcome, and the battery's wall seconds. */
  probes?: ProbeOutcome[];
  probeSeconds?: number;
}

/** One probe's outcome. */
export interface ProbeOutcome {
  probe: string;
  /** The eval's score, or null when the eval could not run. */
  score: number | null;
  /** The most the probe may score (for a minimize entry: the least); absent when its score says nothing (see README). */
  limit?: number;
  /** Whether the score is within the limit (false also when the eval could not run). */
  ok: boolean;
  /** Wall seconds of the probe's eval. */
  seconds: number;
  /** The eval's reason for the score (its first failing case), or why the eval could not run. */
  note?: string;
}

/** Options of `verifyBenchmark`. */
export interface VerifyOptions {
  /** Resolve `dir` against this folder (default: process.cwd()). */
  cwd?: string;
  /** Rules to run (default: all). */
  rules?: readonly Rule[];
  /** The folder's absolute path when `dir` is only a display name. */
  root?: string;
  /** Also extract the README's first prose line (for `list`). */
  title?: boolean;
  /** The outcome of the determinism check run for this folder just now (verify and lock; see determinism-run.ts). */
  determinism?: DeterminismOutcome;
  /** The folder's top-level text files (`textFilesOf`) when the caller already listed them. */
  topLevelFiles?: string[];
  /** How the folder's files are read (default: a new `FolderReader`, each file read once); list passes its own to sign with the stats it kept. */
  reader?: FolderReader;
}

/** The markdown functions the runner needs (see `markdown.ts`). */
export interface Markdown {
  parseBlocks(text: string): Root;
  /** `parseBlocks` without paragraph text (paragraphs have no children); what `ctx.markdown` gives. */
  parseOutline(text: string): Root;
  inlineText(raw: string): string;
}
let loaded: Markdown | undefined;

/** Load the markdown parser (remark) once; verify calls it before running rules. */
export async function loadParser(): Promise<Markdown> {
  loaded ??= (await import('./markdown.js')).markdown;
  return loaded;
}

/** Run the rules over one benchmark folder (which must exist). */
export async function verifyBenchmark(dir: string, options: VerifyOptions = {}): Promise<BenchmarkReport> {
  const parser = await loadParser();
  return verifyBenchmarkSync(dir, parser, options);
}

/** Synchronous core of `verifyBenchmark`, used by the list workers with a preloaded parser. */
export function verifyBenchmarkSync(dir: string, parser: Markdown, options: VerifyOptions = {}): BenchmarkReport {
  const root = options.root ?? path.resolve(options.cwd ?? process.cwd(), dir);
  const reader = options.reader ?? new FolderReader(root);
  const trees = new Map<string, Root | undefined>();
  const messages: VFileMessage[] = [];
  let current: Rule | undefined;
  let placeholderFiles: string[] | undefined;
  const deps = new Set<string>();

  const ctx: RuleContext = {
    dir,
    root,
    ...(options.determinism ? {determinism: options.determinism} : {}),
    dependsOn(names) {
      for (const name of names) deps.add(name);
    },
    file(name) {
      return reader.text(path.join(root, name));
    },
    markdown(name) {
      if (!trees.has(name)) {
        const loaded = ctx.file(name);
        trees.set(name, loaded.status === 'ok' ? parser.parseOutline(loaded.text) : undefined);
      }
      return trees.get(name);
    },
    inlineText: parser.inlineText,
    placeholderFiles() {
      placeholderFiles ??= scannedFiles(root, options.topLevelFiles ?? textFilesOf(reader.entries(root)), (folder) => reader.entries(folder)?.keys());
      return placeholderFiles;
    },
    report(reason, where = {}) {
      const rule = current!;
      const place: Place | undefined = where.place;
      const message = new VFileMessage(reason, {place, ruleId: rule.id, source: 'arbor'});
      message.fatal = rule.severity === 'error';
      message.file = where.file ? path.join(dir, where.file) : dir;
      messages.push(message);
    },
  };

  bindReader(ctx, reader);
  for (const rule of options.rules ?? allRules) {
    current = rule;
    rule.check(ctx);
  }
  const findings = messages.map(toFinding);
  const report: BenchmarkReport = {
    dir,
    errors: findings.filter((f) => f.severity === 'error').length,
    warnings: findings.filter((f) => f.severity === 'warning').length,
    findings,
  };
  if (deps.size > 0) report.deps = [...deps];
  const determinism = options.determinism;
  if (determinism) {
    const checked = determinism.checked.flatMap((t) => t.seeds.map((seed) => ({point: t.point, seed})));
    const reference = determinism.reference;
    report.determinism = {
      checked,
      identical: !determinism.problems.some((problem) => problem.of === undefined),
      seconds: determinism.seconds,
      ...(reference
        ? {
            reference: {
              identical: reference.conclusive && !determinism.problems.some((problem) => problem.of === 'reference'),
              reused: reference.reused === true,
              seconds: reference.seconds,
            },
          }
        : {}),
    };
  }
  if (options.title) {
    const readme = ctx.file('README.md');
    report.title = readme.status === 'ok' ? firstProseLine(readme.text, parser) : null;
  }
  return report;
}

function toFinding(message: VFileMessage): Finding {
  const finding: Finding = {
    file: message.file ?? '',
    severity: message.fatal ? 'error' : 'warning',
    ruleId: message.ruleId ?? 'unknown',
    message: message.reason,
  };
  const place = message.place;
  if (place && 'line' in place) {
    finding.line = place.line;
    finding.column = place.column;
  }
  return finding;
}
