/** `arbor benchmark <subcommand>`: the zoo commands. */
import type {CommandModule} from 'yargs';
import {scaffoldCommand} from './benchmark-scaffold.js';
import {verifyCommand} from './benchmark-verify.js';
import {listCommand} from './benchmark-list.js';
import {checkoutCommand} from './benchmark-checkout.js';
import {evalCommand} from './benchmark-eval.js';
import {gateCommand} from './benchmark-gate.js';
import {lockCommand} from './benchmark-lock.js';
import {calibrateCommand} from './benchmark-calibrate.js';
import {runsCommand} from './benchmark-runs.js';
import {compareCommand} from './benchmark-compare.js';
import {reportCommand} from './benchmark-report.js';
import {runCommand} from './benchmark-run.js';
import {workerCommand} from './benchmark-worker.js';
import {importCommand} from './benchmark-import.js';

export const benchmarkCommand: CommandModule = {
  command: 'benchmark <command>',
  describe:
    'Scaffold, verify, list, check out, lock, evaluate, compare and calibrate benchmarks; list recorded runs, report on them; gate result packages; import a public suite',
  builder: (yargs) =>
    yargs
      .command(scaffoldCommand)
      .command(verifyCommand)
      .command(listCommand)
      .command(checkoutCommand)
      .command(evalCommand)
      .command(gateCommand)
      .command(calibrateCommand)
      .command(compareCommand)
      .command(lockCommand)
      .command(runsCommand)
      .command(reportCommand)
      .command(runCommand)
      .command(workerCommand)
      .command(importCommand)
      .demandCommand(1, 'Missing benchmark command: expected one of the commands below.'),
  handler: () => {},
};
