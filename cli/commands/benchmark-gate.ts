/** `arbor benchmark gate`. */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';

export const gateCommand: CommandModule = {
  command: 'gate',
  describe: '(gate: not implemented yet)',
  handler: () => {
    throw new UsageError('arbor benchmark gate is not implemented yet');
  },
};
