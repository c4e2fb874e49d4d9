#!/usr/bin/env node
/**
 * arbor's command-line entry point.
 *
 * The bundle protocol's own argument form (`arbor bundle <bundle-dir> make <dir> --point …
 * --seeds …`, `… verify <dir>`, …) is run directly: harnesses call it once per point, and
 * going through yargs costs more than the rest of start-up together (loading it, then
 * rendering the help text it caches for every command it runs). `arbor --version` alone is
 * answered here too. `arbor benchmark gate …` goes to the gate's own port of the reference's
 * argparse parser. Every other argument list, including --help and every misspelling, goes to
 * the yargs parser in main.ts.
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
  // The route and the bundle runtime, built into one CommonJS file (see bundle-protocol.ts).
  const {createRequire} = await import('node:module');
  const route = createRequire(import.meta.url)('../lib/bundle/protocol-route.cjs') as typeof import('./bundle-protocol.js');
  await route.runProtocolCall(call);
} else if (args.length === 1 && args[0] === '--version') {
  // What yargs prints for it (main.ts gives yargs the same arborVersion()).
  const [{arborVersion}, {stdout}] = await Promise.all([import('../lib/version.js'), import('./stdio.js')]);
  stdout.write(`${arborVersion()}\n`);
} else {
  const {main} = await import('./main.js');
  await main(args);
}
