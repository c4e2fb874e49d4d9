/** `arbor benchmark compare`: two solutions in one eval, a verdict, and optionally a gate package. */
export {compareOnRecord, runComparePlanned} from './compare.js';
export type {CaseComparison, CompareOptions, CompareReport, SideCase, SideSummary, Verdict} from './compare.js';
export {formatCompare} from './format.js';
export {againstProblem, pickAgainst, raceLine} from './against.js';
export type {RaceOutcome} from './against.js';
export {buildPackage, checkPackageable, packageFiles, writePackage} from './package.js';
export type {PackageOutcome} from './package.js';
export {accuracyRatio, pairedRatio, unpairedRatio, verdictOf} from './ratio.js';
export {describeSide, resolveSide} from './sides.js';
export type {SideSource} from './sides.js';
