/** `arbor benchmark scaffold`. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';

export const scaffoldCommand: CommandModule = {
  command: 'scaffold',
  describe: '(scaffold: not implemented yet)',
  handler: () => {
    throw new UsageError('arbor benchmark scaffold is not implemented yet');
  },
};
