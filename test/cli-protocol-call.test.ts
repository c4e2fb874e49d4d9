// The entry point runs the bundle protocol's own argument form without yargs (cli/protocol-call.ts).
// For every list it recognises, yargs must hand the bundle command the very same values; every
// other list must be left to yargs.
import {describe, expect, it} from 'vitest';
import {buildCli} from '../cli/main.js';
import {benchmarkCommand} from '../cli/commands/benchmark.js';
import {bundleCommand} from '../cli/commands/bundle.js';
import type {BundleArgv} from '../cli/commands/bundle-action.js';
import {parseProtocolCall} from '../cli/protocol-call.js';

/** What yargs passes to the bundle command's handler for `args` (or the error it raises). */
async function throughYargs(args: string[]): Promise<BundleArgv | string> {
  let seen: BundleArgv | undefined;
  const capture: typeof bundleCommand = {
    ...bundleCommand,
    handler: (argv) => {
      seen = argv as BundleArgv;
    },
  };
  try {
    await buildCli(args, [benchmarkCommand, capture]).parseAsync();
  } catch (error) {
    return (error as Error).message;
  }
  if (!seen) return 'handler not run';
  const {bundleDir, command, dir, point, seeds, check} = seen;
  return JSON.parse(JSON.stringify({bundleDir, command, dir, point, seeds, check})) as BundleArgv;
}

describe('the protocol call form', () => {
  it.each([
    [['bundle', 'b', 'make', 'w', '--point', '{"N": 1024}', '--seeds', '0-3']],
    [['bundle', 'b', 'make', '--seeds', '0,2', 'w', '--point', '{}']],
    [['bundle', '--point', '{"N":1}', 'b', 'make', 'w', '--seeds', '1']],
    [['bundle', 'b', 'verify', 'w']],
    [['bundle', '/tmp/a b/bundle', 'verify', '/tmp/w w']],
    [['bundle', '123', 'verify', '0x10']],
    [['bundle', 'true', 'info']],
    [['bundle', '1e3', 'fingerprint', '--check']],
    [['bundle', 'b', 'fingerprint', '--check', 'x']],
    [['bundle', 'b', 'make', 'w', '--point', '', '--seeds', '']],
    [['bundle', 'b', 'make', 'w', '--point', '5', '--seeds', '7']],
    [['bundle', 'b', 'info', 'w']],
    [['bundle', 'b', 'make', 'w', '--check']],
    [['bundle', 'b', 'verify', 'w', '--point', 'x']],
  ])('%j: yargs gives the same arguments', async (args) => {
    const direct = parseProtocolCall(args);
    expect(direct).toBeDefined();
    expect(await throughYargs(args)).toEqual(direct);
  });

  it.each([
    [['bundle', 'b', 'make', 'w', '--point={"N":1}', '--seeds', '0']],
    [['bundle', 'b', 'verify', 'w', '--help']],
    [['bundle', 'b', 'verify', 'w', '-h']],
    [['bundle', 'b', 'verify', 'w', '--version']],
    [['bundle', 'b', 'mak', 'w']],
    [['bundle', 'b']],
    [['bundle']],
    [['bundle', 'b', 'verify', 'w', 'x']],
    [['bundle', 'b', 'make', 'w', '--seeds', '-1', '--point', '{}']],
    [['bundle', 'b', 'make', 'w', '--seeds', '1', '--seeds', '2', '--point', '{}']],
    [['bundle', 'b', 'make', 'w', '--point']],
    [['bundle', 'b', 'verify', 'w', '--']],
    [['bundle', 'b', 'verify', 'w', '--check', '--check']],
    [['bundle', 'b', 'fingerprint', '--check', 'true']],
    [['bundle', 'b', 'fingerprint', '--check', 'false']],
    [['bundle', 'b', 'verify', 'w', '--no-check']],
    [['bundle', 'b', 'verify', 'w', '--dir', 'x']],
    [['bundle', '', 'verify', 'w']],
    [['bundle', '-', 'verify', 'w']],
    [['benchmark', 'list']],
    [['--version']],
    [[]],
  ])('%j is left to yargs', (args) => {
    expect(parseProtocolCall(args)).toBeUndefined();
  });
});
