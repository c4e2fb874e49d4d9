/** `arbor benchmark gate`: the result-package gate (byte-identical to the reference). */
import type {CommandModule} from 'yargs';

interface GateArgs {
  spec?: string | string[];
  cases?: string | string[];
  results?: string | string[];
  candidate?: string | string[];
}

/** A repeated option keeps its last value, as argparse does. */
function last(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

export const gateCommand: CommandModule<object, GateArgs> = {
  command: 'gate',
  describe: 'Gate a result package: PASS, REVIEW, BLOCK or INCOMPARABLE (exit 0 PASS, 1 otherwise, 2 error)',
  builder: (yargs) =>
    yargs
      .option('spec', {type: 'string', defaultDescription: 'benchmark_spec.json', describe: 'Benchmark spec file', requiresArg: true})
      .option('cases', {type: 'string', defaultDescription: 'benchmark_cases.json', describe: 'Benchmark cases file', requiresArg: true})
      .option('results', {type: 'string', defaultDescription: 'benchmark_results_pass.json', describe: 'Result package file', requiresArg: true})
      .option('candidate', {type: 'string', defaultDescription: 'candidate-pass', describe: 'Candidate system ID', requiresArg: true}),
  handler: async (argv) => {
    const {runGate} = await import('../../lib/gate/index.js');
    const outcome = runGate({
      spec: last(argv.spec),
      cases: last(argv.cases),
      results: last(argv.results),
      candidate: last(argv.candidate),
    });
    if (outcome.stdoutBytes) process.stdout.write(outcome.stdoutBytes);
    else if (outcome.stdout) process.stdout.write(outcome.stdout);
    if (outcome.stderr) process.stderr.write(outcome.stderr);
    process.exitCode = outcome.exitCode;
  },
};
