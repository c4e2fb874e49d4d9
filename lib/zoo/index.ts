/** The zoo library: verify (lint rules), list, scaffold and checkout. */
export type {Rule, RuleContext, Severity, Place} from './rule.js';
export {rules} from './rules/index.js';
export {verifyBenchmark, type BenchmarkReport, type Finding, type VerifyOptions} from './lint.js';
export {verifyBenchmarks, type VerifyResult, type UnusableDir} from './verify.js';
export {listZoo, resolveZoo, isSkippedName, type ListEntry, type ListResult, type ListOptions} from './list.js';
export {scaffoldBenchmark, templateStyles, type ScaffoldOptions, type ScaffoldResult} from './scaffold.js';
export {checkoutBenchmark, type CheckoutResult} from './checkout.js';
export {checkBenchmarkName} from './names.js';
export {normalizeHeading, requiredSections} from './sections.js';
export {placeholderToken, findPlaceholders} from './rules/placeholder.js';
export {formatFinding, formatVerify, verifyJson, formatList, listJson, rulesMarkdown, formatRules} from './report.js';
export {cacheDir} from './cache.js';
