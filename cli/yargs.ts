/**
 * yargs, re-exported from one module so the build can bundle it into a single
 * file (see `build:yargs` in package.json): loading yargs' many small modules
 * was most of arbor's start-up time.
 */
export {default} from 'yargs';
export {hideBin} from 'yargs/helpers';
