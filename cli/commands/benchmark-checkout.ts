/** `arbor benchmark checkout`. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';

export const checkoutCommand: CommandModule = {
  command: 'checkout',
  describe: '(checkout: not implemented yet)',
  handler: () => {
    throw new UsageError('arbor benchmark checkout is not implemented yet');
  },
};
