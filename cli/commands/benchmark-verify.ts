/** `arbor benchmark verify`. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';

export const verifyCommand: CommandModule = {
  command: 'verify',
  describe: '(verify: not implemented yet)',
  handler: () => {
    throw new UsageError('arbor benchmark verify is not implemented yet');
  },
};
