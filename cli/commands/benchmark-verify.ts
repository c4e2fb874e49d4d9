/** `arbor benchmark verify <dir>...`: the structural lint of benchmark folders (and, with --probe, adversarial evals). */
import type {CommandModule} from 'yargs';
import {UsageError} from '../../lib/errors.js';
import type {ReferenceChecker} from '../../lib/zoo/determinism.js';
import {setExitCode} from '../exit.js';
import {jsonOption, printJson} from '../options.js';

interface VerifyArgs {
  dir?: string[];
  json: boolean;
  'list-rules': boolean;
  probe: boolean;
  mutants: boolean;
}

/** `arbor benchmark verify`: lint folders, print findings, exit 0/1/2. */
export const verifyCommand: CommandModule<object, VerifyArgs> = {
  command: 'verify [dir..]',
  describe:
    'Lint benchmark folders: README, PROVENANCE sections, eval entrypoint, unfilled placeholders; --probe runs wrong-on-purpose solutions through each eval',
  builder: (yargs) =>
    yargs
      .positional('dir', {type: 'string', array: true, describe: 'Benchmark folder(s) to verify'})
      .option('json', jsonOption)
      .option('list-rules', {type: 'boolean', default: false, describe: 'List the lint rules and exit'})
      .option('probe', {
        type: 'boolean',
        default: false,
        describe: "Also score a battery of wrong-on-purpose solutions through each folder's eval (dev split); any the eval rewards is an error",
      })
      .option('mutants', {
        type: 'boolean',
        default: false,
        describe:
          "Test each folder's verifier: score trivial answers (zeros, echo, lower precision, partly right, ...) on every dev case, then mutate the verifier " +
          '(at least 20 ways it could check less) and report each mutant no answer tells apart; under 90% killed is an error. Runs no solution',
      })
      .example('$0 benchmark verify zoo/algotune_knn', 'exit 0 when clean, 1 with findings, 2 when a folder is missing')
      .example('$0 benchmark verify --probe zoo/relu_poly', 'also check that no probe (zeros, NaN, random, crash, ...) scores more than it may')
      .example('$0 benchmark verify --mutants zoo/toeplitz_solve', 'test the verifier with its mutants (seconds; no eval runs)')
      .example('$0 benchmark verify --list-rules', 'the rules verify runs')
      .epilogue(
        'Exit 0 when no folder has an error (warnings allowed), 1 when any has (with --probe: also a probe the eval rewards, or an eval that cannot run; ' +
          'with --probe or --mutants: a trivial answer the verifier rewards; with --mutants: fewer than 90% of the mutants killed), ' +
          '2 when a folder does not exist or is not a folder (the others are still verified). Probes and their cost: docs/commands.md, "arbor benchmark verify".',
      ),
  handler: async (args) => {
    if (args['list-rules']) {
      const [{rules}, {formatRules}] = await Promise.all([import('../../lib/zoo/rules/index.js'), import('../../lib/zoo/report.js')]);
      if (args.json) printJson(rules.map((r) => ({id: r.id, severity: r.severity, description: r.description})));
      else process.stdout.write(formatRules(rules));
      return;
    }
    const dirs = args.dir ?? [];
    if (dirs.length === 0)
      throw new UsageError('Missing argument for `arbor benchmark verify`: expected one or more benchmark folders, e.g. `arbor benchmark verify zoo/demo`');
    {
      // The determinism check (and the probes and mutants) run the bundle's code, which never shares a process with the test salt (nor the queue key): this command runs again without them.
      if (await (await import('../../lib/run/door.js')).reranWithoutSecrets()) return;
    }
    const [{verifyBenchmarks}, {formatVerify, verifyJson}] = await Promise.all([import('../../lib/zoo/verify.js'), import('../../lib/zoo/report.js')]);
    // The reference check's eval may wait for a CPU lease: say so on stderr, as eval does. The zoo sits below the eval, so the check is
    // handed in, and the eval is loaded only when a speedup plan's reference runs (a verify of anything else never loads it).
    const onWait = (dir: string, text: string) => process.stderr.write(`${dir}: ${text}\n`);
    const checkReference: ReferenceChecker = async (request) => (await import('../../lib/eval/index.js')).checkReference(request);
    const result = await verifyBenchmarks(dirs, {determinism: true, checkReference, onWait});
    if (args.probe) {
      // Imported only here: the probes run the eval, which verify alone never loads. As in `eval`,
      // a SIGUSR1 listener keeps Node's inspector closed to anything that can signal this process.
      process.on('SIGUSR1', () => {});
      const {probeBenchmarks} = await import('../../lib/probe/index.js');
      await probeBenchmarks(result, {onProgress: (line) => process.stderr.write(`${line}\n`)});
    }
    let checkers: Map<string, import('../../lib/probe/index.js').CheckerReport> | undefined;
    let formatChecker: typeof import('../../lib/probe/index.js').formatChecker | undefined;
    if (args.probe || args.mutants) {
      // The trivial answers join --probe (on stderr, as its progress); --mutants shows them and the mutants on stdout.
      const probe = await import('../../lib/probe/index.js');
      formatChecker = probe.formatChecker;
      checkers = await probe.checkVerifiers(result, {mutants: args.mutants, planReported: args.probe, onProgress: (line) => process.stderr.write(`${line}\n`)});
      if (!args.mutants && !args.json) for (const [dir, report] of checkers) for (const line of formatChecker(dir, report)) process.stderr.write(`${line}\n`);
    }
    if (args.json) {
      const json = verifyJson(result) as {benchmarks: Array<Record<string, unknown>>};
      for (const benchmark of json.benchmarks) {
        const checked = checkers?.get(benchmark.dir as string);
        if (checked) Object.assign(benchmark, checkerJson(checked));
      }
      printJson(json);
    } else {
      if (args.mutants && checkers && formatChecker)
        for (const [dir, report] of checkers) for (const line of formatChecker(dir, report)) process.stdout.write(`${line}\n`);
      process.stdout.write(formatVerify(result));
    }
    for (const unusable of result.unusable) process.stderr.write(`arbor: ${unusable.problem}\n`);
    setExitCode(result.unusable.length ? 2 : result.errors ? 1 : 0);
  },
};

/** The checker's part of a benchmark's --json: the trivial answers, the floor, and the mutants when they ran. */
function checkerJson(report: import('../../lib/probe/index.js').CheckerReport): object {
  return {
    answers: report.answers,
    answerCases: report.cases,
    ...(report.floor ? {probeFloor: report.floor} : {}),
    ...(report.mutants ? {mutants: report.mutants, killRate: report.killRate, mutantPoint: report.mutantPoint} : {}),
    checkerSeconds: report.seconds,
  };
}
