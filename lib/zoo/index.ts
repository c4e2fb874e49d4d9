/**
 * The zoo library: verify (lint rules), list, scaffold and checkout. Generic
 * names are exported with a zoo- or lint- prefix so that `lib/index.ts` can
 * re-export every area side by side.
 */
export type {Rule as LintRule, RuleContext as LintRuleContext, Severity as LintSeverity, Place as LintPlace} from './rule.js';
export {rules as lintRules} from './rules/index.js';
export {verifyBenchmark, type BenchmarkReport, type Finding as LintFinding, type VerifyOptions} from './lint.js';
export {verifyBenchmarks, type VerifyResult, type UnusableDir} from './verify.js';
export {
  listZoo,
  listZooStream,
  resolveZoo,
  isSkippedName,
  defaultWorkers as defaultListWorkers,
  type ListEntry as ZooListEntry,
  type ListResult as ZooListResult,
  type ListOptions as ZooListOptions,
  type ListStart as ZooListStart,
  type ListSummary as ZooListSummary,
  type ListSink as ZooListSink,
} from './list.js';
export {scaffoldBenchmark, templateStyles, type ScaffoldOptions, type ScaffoldResult} from './scaffold.js';
export {checkoutBenchmark, type CheckoutResult} from './checkout.js';
export {checkBenchmarkName} from './names.js';
export {normalizeHeading, requiredSections} from './sections.js';
export {placeholderToken, findPlaceholders} from './rules/placeholder.js';
export {
  formatFinding as formatLintFinding,
  formatVerify,
  verifyJson,
  formatList as formatZooList,
  formatListRow as formatZooListRow,
  formatListEnd as formatZooListEnd,
  listJson as zooListJson,
  rulesMarkdown as lintRulesMarkdown,
  formatRules as formatLintRules,
} from './report.js';
export {cacheDir as listCacheDir} from './cache.js';
