/** `arbor bundle <bundle-dir> make | verify | info`: the bundle protocol. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';

export const bundleCommand: CommandModule = {
  command: 'bundle <bundle-dir>',
  describe: 'Run a testing bundle (make, verify, info)',
  handler: () => {
    throw new UsageError('arbor bundle is not implemented yet');
  },
};
