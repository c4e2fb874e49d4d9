#!/usr/bin/env node
/**
 * arbor's command-line entry point.
 *
 * The bundle protocol's own argument form (`arbor bundle <bundle-dir> make <dir> --point …
 * --seeds …`, `… verify <dir>`, …) is run directly: harnesses call it once per point, and
 * going through yargs costs more than the rest of start-up together (loading it, then
 * rendering the help text it caches for every command it runs). Every other argument list,
 * including --help, --version and every misspelling, goes to the yargs parser in main.ts.
 * `arbor benchmark gate …` goes to the gate's own port of the reference's argparse parser.
 */
import {parseProtocolCall} from './protocol-call.js';

const args = process.argv.slice(2);
const call = parseProtocolCall(args);
if (args[0] === 'benchmark' && args[1] === 'gate') {
  // The gate parses its own options exactly as the reference's argparse does (no yargs).
  const [{runGateCommand}, {reportFailure}] = await Promise.all([import('./commands/benchmark-gate.js'), import('./exit.js')]);
  try {
    await runGateCommand(args.slice(2));
  } catch (error) {
    reportFailure(error);
  }
} else if (call) {
  const [{runBundleAction}, {reportFailure}] = await Promise.all([import('./commands/bundle-action.js'), import('./exit.js')]);
  try {
    await runBundleAction(call);
  } catch (error) {
    reportFailure(error);
  }
} else {
  const {main} = await import('./main.js');
  await main(args);
}
