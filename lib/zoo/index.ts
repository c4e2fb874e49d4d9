/**
 * The zoo library: verify (lint rules), list, scaffold and checkout. Generic
 * names are exported with a zoo- or lint- prefix so that `lib/index.ts` can
 * re-export every area side by side.
 */
export type {Rule as LintRule} from './rule.js';
export {rules as lintRules} from './rules/index.js';
export {verifyBenchmark, type BenchmarkReport, type Finding as LintFinding, type VerifyOptions} from './lint.js';
export {verifyBenchmarks, type VerifyResult, type UnusableDir} from './verify.js';
export {
  listZoo,
  listZooStream,
  resolveZoo,
  /** @public the zoo's surface, read by the tests through the built index (test/zoo/helpers/zoo.ts) */
  isSkippedName,
  type ListEntry as ZooListEntry,
  type ListResult as ZooListResult,
  type ListOptions as ZooListOptions,
  type ListStart as ZooListStart,
  type ListSummary as ZooListSummary,
  type ListSink as ZooListSink,
} from './list.js';
export {scaffoldBenchmark, type ScaffoldOptions, type ScaffoldResult} from './scaffold.js';
export {checkoutBenchmark, type CheckoutResult} from './checkout.js';
export {
  /** @public the zoo's surface, read by the tests through the built index (test/zoo/helpers/zoo.ts) */
  normalizeHeading,
} from './sections.js';
export {
  /** @public the zoo's surface, read by the tests through the built index (test/zoo/helpers/zoo.ts) */
  findPlaceholders,
} from './rules/placeholder.js';
export {
  /** @public the zoo's surface, read by the tests through the built index (test/zoo/helpers/zoo.ts) */
  formatFinding as formatLintFinding,
  /** @public the zoo's surface, read by the tests through the built index (test/zoo/helpers/zoo.ts) */
  formatList as formatZooList,
  /** @public the zoo's surface, read by the tests through the built index (test/zoo/helpers/zoo.ts) */
  listJson as zooListJson,
  /** @public the zoo's surface, read by the tests through the built index (test/zoo/helpers/zoo.ts) */
  rulesMarkdown as lintRulesMarkdown,
} from './report.js';
