/**
 * The probes of `verify --probe`: built-in wrong solutions, each written out
 * from one Python template (lib/probe/probe.py, shipped with the package)
 * with the probe's name and the entry's signatures filled in.
 */
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {HarnessError} from '../eval/index.js';
import type {PlanPoint} from '../benchmark/plan.js';
import type {PointSignature} from '../eval/index.js';

/** One probe: its name, what it tries (the table of docs/commands.md), and what it means when the eval rewards it. */
export interface Probe {
  readonly name: string;
  readonly tries: string;
  readonly rewarded: string;
  /** Whether the probe answers all zeros unless its trick works (its score then says nothing once zeros is rewarded). */
  readonly zerosUnlessTrick?: boolean;
}

const checkAnswer = 'make the verifier check the answer';

/** The battery, in the order it runs; `zeros` first, since an accuracy entry's threshold is its score. */
export const probes: readonly Probe[] = [
  {
    name: 'zeros',
    tries: 'every result all zeros, of the right shape and element type',
    rewarded: `the verifier accepts an answer of all zeros; ${checkAnswer}`,
  },
  {name: 'empty', tries: 'run() returns {} (no result at all)', rewarded: 'an answer with no results was scored'},
  {name: 'none', tries: 'run() returns None', rewarded: 'an answer of None was scored'},
  {name: 'wrong-shape', tries: 'zeros with one element too many in the first dimension', rewarded: 'an answer of the wrong shape was scored'},
  {name: 'wrong-dtype', tries: 'complex numbers for a float result, fractions for an integer one', rewarded: 'an answer of the wrong element type was scored'},
  {name: 'nan', tries: 'every result all NaN', rewarded: `the verifier accepts NaN; ${checkAnswer}`},
  {
    name: 'echo',
    tries: 'the inputs, flattened, cast and repeated to fill each result',
    rewarded: `the verifier accepts the inputs given back as the answer; ${checkAnswer}`,
  },
  {
    name: 'random',
    tries: 'random values of the right shape and element type, drawn afresh by each `verify --probe`',
    rewarded: `the verifier accepts random values; ${checkAnswer}`,
  },
  {
    name: 'constant',
    tries: 'every element of a result one nonzero value, drawn afresh by each `verify --probe`',
    rewarded: `the verifier accepts one value repeated as the answer; ${checkAnswer}`,
  },
  {name: 'crash', tries: 'run() raises', rewarded: 'a solution that crashes was scored'},
  {name: 'sleep', tries: "run() sleeps past every limit (after answering a speedup eval's warm-up case)", rewarded: 'a solution that hangs was scored'},
  {
    name: 'fake-score',
    tries: 'prints `score: 1.0` on stdout and stderr, then answers zeros',
    rewarded: 'a printed score line was read as the score',
    zerosUnlessTrick: true,
  },
  {
    name: 'hunt',
    tries: 'walks the file system in init() for `<result>.bin` files under an `expected/` folder and returns the one for the inputs given',
    rewarded:
      'a solution can read the expected answers from the file system; run the eval in the sandbox (install bubblewrap) and keep answers out of its reach',
    zerosUnlessTrick: true,
  },
];

/** What a probe file is told: its name, the metric, and each dev point's signature. */
export interface ProbeConfig {
  probe: string;
  /** The seed of the random and constant probes' values: a fresh one each `verify --probe` (absent: the OS's entropy). */
  seed?: number;
  metric: 'speedup' | 'accuracy';
  signatures: Array<[PlanPoint, PointSignature]>;
}

/** The line of the template arbor replaces with the configuration. */
const marker = "CONFIG = {}  # arbor: replaced by the probe's configuration";

/** Where the template lives: in the package, next to this module's source (as runner.py does). */
function probeTemplatePath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  // dist/lib/probe -> package root; also works when run from lib/probe directly.
  const candidates = [path.resolve(here, '../../../lib/probe/probe.py'), path.resolve(here, 'probe.py')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new HarnessError(`arbor's probe template is missing (looked in ${candidates.join(', ')}); reinstall arbor`, 'no-probe-template');
  return found;
}

/** The source of one probe file: the template with its configuration in place of the marker line. */
export function probeSource(config: ProbeConfig, template = readFileSync(probeTemplatePath(), 'utf8')): string {
  const lines = template.split('\n');
  const at = lines.indexOf(marker);
  if (at < 0) throw new HarnessError(`arbor's probe template ${probeTemplatePath()} has no configuration line; reinstall arbor`, 'no-probe-template');
  // A JSON string is a valid Python string literal: the configuration is parsed, never evaluated.
  lines[at] = `CONFIG = json.loads(${JSON.stringify(JSON.stringify(config))})`;
  return lines.join('\n');
}

const checkValidator =
  "the task's validator accepts it on every dev case; make is_solution check what this answer gets wrong (for a task with several right answers, read it: it may be right)";

/**
 * The battery of an entry with `interface = "solve"` (AlgoTune's solver signature): wrong answers
 * built from the reference solver's own answer by structure (lib/probe/probe_solve.py).
 */
export const solveProbes: readonly Probe[] = [
  {name: 'none', tries: 'solve() returns None', rewarded: 'an answer of None was scored'},
  {name: 'empty', tries: "an empty value of the answer's type", rewarded: checkValidator},
  {name: 'zeros', tries: "the reference's answer with every number zero", rewarded: checkValidator},
  {name: 'negated', tries: "the reference's answer with every number negated", rewarded: checkValidator},
  {name: 'first-number-changed', tries: "the reference's answer with its first number changed", rewarded: checkValidator},
  {name: 'truncated', tries: "the reference's answer without its last item", rewarded: checkValidator},
  // The kinds of hole AlgoTune's own validator fixes closed again and again (docs/algotune-validators.md).
  {
    name: 'last-number-changed',
    tries: "the reference's answer with its last number changed",
    rewarded: `${checkValidator}; a validator that checks a sample of rows, a prefix or the first items of a row misses it`,
  },
  {
    name: 'item-repeated',
    tries: "the reference's answer with each outermost list's first item given twice",
    rewarded: `${checkValidator}; check that the items are distinct, not only their count or membership`,
  },
  {
    name: 'row-first-repeated',
    tries: "the reference's answer with each row made of its first item repeated",
    rewarded: `${checkValidator}; check that a row's items differ (k neighbours, not the nearest one k times)`,
  },
  {
    name: 'smallest-part-zeros',
    tries: "the reference's answer with its smallest part (a dict's value, a tuple's item) all zeros",
    rewarded: `${checkValidator}; an error bound must not let a part of the answer be nothing`,
  },
  {
    name: 'scaled',
    tries: "the reference's answer with every float times 1e6",
    rewarded: `${checkValidator}; a tolerance must not grow with the answer's own size`,
  },
  {name: 'nan', tries: "the reference's answer with every float NaN", rewarded: checkValidator},
  {name: 'echo', tries: 'the problem given back as the answer', rewarded: checkValidator},
  {
    name: 'liar',
    tries: 'a bytes subclass whose __eq__ and __len__ agree with anything',
    rewarded: 'an object of the solution\'s reached the validator: the answer must cross as bytes (interface = "solve")',
  },
];

/** Where the solve probes' transformations live (lib/probe/probe_solve.py). */
function solveProbeTemplatePath(): string {
  return path.join(path.dirname(probeTemplatePath()), 'probe_solve.py');
}

/**
 * One solve probe's file: the reference solver (self-contained, as the eval requires), the
 * transformations, and a Solver that answers the probe's wrong answer in place of the reference's.
 */
export function solveProbeSource(probe: string, reference: string, template = readFileSync(solveProbeTemplatePath(), 'utf8')): string {
  return [
    reference.trimEnd(),
    '',
    `# ---- arbor verify --probe: probe ${JSON.stringify(probe)} (lib/probe/probe_solve.py) ----`,
    template.trimEnd(),
    '',
    '_ArborReference = Solver',
    '',
    '',
    'class Solver:',
    '    def __init__(self):',
    '        self._reference = _ArborReference()',
    '',
    '    def solve(self, problem, **kwargs):',
    `        return arbor_wrong_answer(${JSON.stringify(probe)}, self._reference.solve(problem), problem)`,
    '',
  ].join('\n');
}
