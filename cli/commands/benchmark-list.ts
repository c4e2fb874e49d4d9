/** `arbor benchmark list`. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';

export const listCommand: CommandModule = {
  command: 'list',
  describe: '(list: not implemented yet)',
  handler: () => {
    throw new UsageError('arbor benchmark list is not implemented yet');
  },
};
