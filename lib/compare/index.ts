/** `arbor benchmark compare`: two solutions in one eval, a verdict, and optionally a gate package. */
export {compareOnRecord, runComparePlanned} from './compare.js';
export type {CompareOptions, CompareReport} from './compare.js';
export {formatCompare} from './format.js';
export {checkPackageable, writePackage} from './package.js';
export {againstProblem, pickAgainst, raceLine} from './against.js';
