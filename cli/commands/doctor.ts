/** `arbor doctor`: what this machine can run and what to install. */
import type {CommandModule} from 'yargs';
import {setExitCode} from '../exit.js';
import {jsonOption, printJson} from '../options.js';

interface DoctorArgs {
  json: boolean;
}

export const doctorCommand: CommandModule<object, DoctorArgs> = {
  command: 'doctor',
  describe: 'Check this machine: the sandbox, the clocks, Python and numpy, Redis, Chromium; what to install; the state arbor keeps outside the zoo',
  builder: (yargs) =>
    yargs
      .option('json', jsonOption)
      .example('$0 doctor', 'what works here, what is missing and what it disables')
      .epilogue('Exit 0 when the main job, a sandboxed eval, can run here (other features may be missing: each is named); 1 when it cannot; 2 for bad usage.'),
  handler: async (args) => {
    const {runDoctor, formatDoctor} = await import('../../lib/doctor/index.js');
    const report = runDoctor(process.env);
    if (args.json) printJson(report);
    else process.stdout.write(formatDoctor(report));
    if (!report.ok) setExitCode(1);
  },
};
