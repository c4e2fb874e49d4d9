/**
 * The entry point's direct route for the bundle protocol's own argument form: the action and its
 * one error line, exactly as through yargs (see cli/index.ts and cli/protocol-call.ts).
 *
 * `npm run build` also builds this module and everything it reaches (the bundle runtime,
 * smol-toml) into one CommonJS file, dist/lib/bundle/protocol-route.cjs (see
 * cli/build-protocol-route.mjs), which the entry point loads with `require`. Loading the same
 * code as some thirty ES modules took about 30 ms, the better part of what a small `verify` adds
 * to Node's own start: the ES module loader resolves and reads each file apart, and importing
 * `node:fs` as an ES module loads its stream classes too. The Python host is in that file but
 * runs only when a bundle names a `.py` entry point; the random stream (make only) stays apart.
 */
import {runBundleAction, type BundleArgv} from './commands/bundle-action.js';
import {reportFailure} from './exit.js';

/**
 * Run one protocol call; a failure is reported as one line with its exit code (cli/exit.ts).
 * @public called by cli/index.ts through the built CommonJS route (a createRequire, which knip does not follow)
 */
export async function runProtocolCall(call: BundleArgv): Promise<void> {
  try {
    await runBundleAction(call);
  } catch (error) {
    reportFailure(error);
  }
}
