/** `arbor benchmark eval`. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';

export const evalCommand: CommandModule = {
  command: 'eval',
  describe: '(eval: not implemented yet)',
  handler: () => {
    throw new UsageError('arbor benchmark eval is not implemented yet');
  },
};
