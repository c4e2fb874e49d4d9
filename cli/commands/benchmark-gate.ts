/**
 * `arbor benchmark gate`: the result-package gate, byte-identical to the reference, command
 * line included. Its words are parsed by a port of the reference's argparse parser
 * (lib/gate/args.ts), not by yargs: the entry point routes `arbor benchmark gate …` straight
 * to `runGateCommand`. The yargs module below only lists the command in `arbor benchmark --help`.
 */
import type {CommandModule} from 'yargs';

/** The program name argparse's usage and error lines show. */
const GATE_PROG = 'arbor benchmark gate';

/** Parse the words after `arbor benchmark gate` as the reference does, run the gate, print what it prints. */
export async function runGateCommand(words: readonly string[]): Promise<void> {
  const {parseGateArgs, pythonColumns, runGate} = await import('../../lib/gate/index.js');
  const parsed = parseGateArgs(words, GATE_PROG, pythonColumns(process.env, process.stdout));
  if (parsed.kind === 'exit') {
    process.stdout.write(parsed.stdout);
    process.stderr.write(parsed.stderr);
    process.exitCode = parsed.exitCode;
    return;
  }
  const outcome = runGate(parsed.options);
  if (outcome.stdoutBytes) process.stdout.write(outcome.stdoutBytes);
  else if (outcome.stdout) process.stdout.write(outcome.stdout);
  if (outcome.stderr) process.stderr.write(outcome.stderr);
  process.exitCode = outcome.exitCode;
}

export const gateCommand: CommandModule = {
  command: 'gate',
  describe:
    'Gate a result package: PASS, REVIEW, BLOCK or INCOMPARABLE (exit 0 PASS, 1 otherwise, 2 error); options as the reference: --spec, --cases, --results, --candidate',
  builder: (yargs) => yargs.strict(false),
  handler: async () => {
    // Reached only when yargs parses a gate command line itself (the entry point routes them around it).
    const argv = process.argv.slice(2);
    await runGateCommand(argv.slice(argv.indexOf('gate') + 1));
  },
};
