/**
 * Testing the checker: the trivial answers (answers.ts) scored against every
 * dev case by the entry's own verifier, and, with `mutants`, the verifier's
 * mutants (source.ts, views.ts, and its [accept] numbers loosened) scored
 * against the same answers. A mutant is killed when some answer gets another
 * per-case verdict (passed, and for an accuracy entry the case's score) than
 * under the real verifier. No solution runs and no sandbox starts.
 */
import {cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {Bundle} from '../bundle/bundle.js';
import type {Verdicts} from '../bundle/workdir.js';
import type {Plan} from '../benchmark/plan.js';
import type {Finding} from '../zoo/lint.js';
import {buildAnswers, layOutBattery, layOutViewed, readDevCases, viewApplies, viewedCases, writeAnswers, type BatteryPoint} from './battery-dir.js';
import {trivialAnswers, type AnswerKind} from './answers.js';
import {sourceMutants} from './source.js';
import {viewMutants} from './views.js';

/** The share of an entry's observable mutants its answers must kill. */
export const killTarget = 0.9;

/** How much more than all zeros a trivial answer may score on an accuracy entry without a `probe_floor` (as the eval probes). */
export const answerSlack = 0.01;

/** One trivial answer's result over every dev case. */
export interface AnswerOutcome {
  answer: string;
  kind: AnswerKind;
  tries: string;
  cases: number;
  /** Cases it passed. */
  passed: number;
  /** accuracy: the mean over cases of numerator / denominator, as the eval scores it. */
  score?: number;
  /** accuracy: the most it may score (for a minimize entry: the least); only for a blind answer (answers.ts), all zeros included when the plan sets probe_floor. */
  limit?: number;
  ok: boolean;
}

/** What a mutant is, and whether the answers killed it. */
export interface MutantOutcome {
  mutant: string;
  kind: 'source' | 'accept' | 'wrapper';
  changes: string;
  status: 'killed' | 'survived' | 'unobservable';
  /** The first answer whose verdict the mutant changed. */
  killedBy?: string;
  /** What changed in that answer's verdict: whether it passed, its score (accuracy), or only its metrics or error. */
  killedOn?: 'passed' | 'score' | 'metrics';
  /** Why the mutant cannot be observed. */
  note?: string;
}

/** The checker's report on one entry. */
export interface CheckerReport {
  findings: Finding[];
  answers: AnswerOutcome[];
  /** Dev cases the answers were scored on (over every dev point). */
  cases: number;
  /** accuracy: the floor trivial answers are held to, and where it comes from. */
  floor?: {value: number; from: 'probe_floor' | 'zeros'};
  mutants?: MutantOutcome[];
  /** Killed / (killed + survived), when mutants ran. */
  killRate?: number;
  seconds: number;
}

/** Options of checkVerifier. */
export interface CheckerOptions {
  cwd?: string;
  /** Also run the verifier's mutants. */
  mutants?: boolean;
}

/** Per-case verdict of one battery case, as the kill compares it: passed, the score the eval reads, and the rest of the record. */
type Outcome = {passed: boolean; score: number | null; rest: string};

/** Score the trivial answers (and with `mutants` the mutants) of one entry. Never throws for a broken entry: that is a finding. */
export async function checkVerifier(dir: string, options: CheckerOptions = {}): Promise<CheckerReport> {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  const abs = path.resolve(options.cwd ?? process.cwd(), dir);
  const report: CheckerReport = {findings: [], answers: [], cases: 0, seconds: 0};
  const finding = (ruleId: string, message: string) => report.findings.push({file: dir, severity: 'error', ruleId, message});
  if (!existsSync(path.join(abs, 'plan.toml'))) {
    finding('probe-plan', 'No `plan.toml`, so there are no dev cases to score the trivial answers on; add one (its format is in lib/eval/README.md)');
    return {...report, seconds: seconds()};
  }
  const scratch = mkdtempSync(path.join(tmpdir(), 'arbor-checker-'));
  try {
    let plan: Plan;
    let bundle: Bundle;
    let points: BatteryPoint[];
    try {
      ({plan, bundle, points} = await makeBattery(abs, scratch));
    } catch (error) {
      finding('probe-harness', `The dev cases cannot be made, so no trivial answer could be scored: ${messageOf(error)}`);
      return {...report, seconds: seconds()};
    }
    const {verifyWorkDir} = await import('../bundle/index.js');
    const verify = async (variant: Bundle, workDir: string) => outcomes(plan, await verifyWorkDir(variant, workDir));
    const score = async (variant: Bundle): Promise<Outcome[][]> => {
      const all: Outcome[][] = [];
      for (const p of points) all.push(await verify(variant, p.dir));
      return all;
    };
    for (const p of points) writeAnswers(bundle, p);
    const baseline = await score(bundle);
    judgeAnswers(plan, points, baseline, report, finding);
    if (options.mutants) {
      report.mutants = await runMutants(bundle, points, baseline, scratch, score, verify);
      const killed = report.mutants.filter((m) => m.status === 'killed').length;
      const counted = report.mutants.filter((m) => m.status !== 'unobservable').length;
      report.killRate = counted === 0 ? 1 : killed / counted;
      if (report.killRate < killTarget) {
        const survivors = report.mutants.filter((m) => m.status === 'survived');
        finding(
          'probe-mutants',
          `The trivial answers kill ${killed} of ${counted} mutants of the verifier (${percent(report.killRate)}), expected at least ${percent(killTarget)}: ` +
            `${survivors.map((m) => `\`${m.mutant}\` (${m.changes})`).join('; ')} survived; make the verifier check what these skip, or add answers that tell them apart`,
        );
      }
    }
  } finally {
    rmSync(scratch, {recursive: true, force: true});
  }
  return {...report, seconds: seconds()};
}

/** Make the dev work directories (a path split's are read in place) and lay out the battery of each point. */
async function makeBattery(abs: string, scratch: string): Promise<{plan: Plan; bundle: Bundle; points: BatteryPoint[]}> {
  const [{loadPlan}, {loadBundle, parsePoint, makeWorkDir}, {dataFolder, splitPoints}] = await Promise.all([
    import('../benchmark/plan.js'),
    import('../bundle/index.js'),
    import('../eval/data.js'),
  ]);
  const plan = await loadPlan(abs);
  const bundle = await loadBundle(plan.bundle);
  const sources = await splitPoints(plan, 'dev', dataFolder(plan, 'dev', {}));
  const points: BatteryPoint[] = [];
  for (const [k, source] of sources.entries()) {
    let made = source.folder;
    if (made === undefined) {
      made = path.join(scratch, `made-${k}`);
      await makeWorkDir(bundle, made, parsePoint(bundle, source.point), plan.dev.seeds);
    }
    const {point, cases} = readDevCases(bundle, made);
    const answers = buildAnswers(bundle, point, cases);
    const dir = path.join(scratch, `battery-${k}`);
    layOutBattery(bundle, made, dir, point, cases.length, answers.length);
    const {bindingShape} = await import('../bundle/bundle.js');
    points.push({point, made, dir, cases, answers, shapes: bundle.results.map((b) => bindingShape(b, point).map(Number))});
  }
  return {plan, bundle, points};
}

/** A verdict's outcome: passed, and on an accuracy entry the case's score (the plan's fail_score without metrics, as the eval scores it). */
function outcomes(plan: Plan, verdicts: Verdicts): Outcome[] {
  return verdicts.cases.map((v) => {
    const rest = JSON.stringify({metrics: v.metrics, error: v.error});
    if (plan.metric !== 'accuracy') return {passed: v.passed, score: null, rest};
    const n = Number(v.metrics?.[plan.numerator!]);
    const d = Number(v.metrics?.[plan.denominator!]);
    return {passed: v.passed, score: v.error === undefined && Number.isFinite(n) && Number.isFinite(d) && d > 0 ? n / d : plan.failScore, rest};
  });
}

/** Each answer's outcome over every dev case, and a finding for each a loose verifier rewards. */
function judgeAnswers(plan: Plan, points: BatteryPoint[], baseline: Outcome[][], report: CheckerReport, finding: (rule: string, message: string) => void): void {
  // Every answer that fits some dev point, in battery order (a point of one row has no row answers).
  const names = trivialAnswers.filter((t) => points.some((p) => p.answers.some((a) => a.answer === t)));
  report.cases = points.reduce((n, p) => n + p.cases.length, 0);
  const minimize = plan.direction === 'minimize';
  const rows = names.map((answer) => {
    let passed = 0;
    let wronglyPassed = 0;
    let total = 0;
    let cases = 0;
    points.forEach((p, k) => {
      const a = p.answers.findIndex((x) => x.answer.name === answer.name);
      if (a < 0) return;
      p.cases.forEach((_c, i) => {
        const o = baseline[k]![a * p.cases.length + i]!;
        cases++;
        if (o.passed) passed++;
        if (o.passed && !p.answers[a]!.right[i]) wronglyPassed++;
        total += o.score ?? 0;
      });
    });
    return {answer, passed, wronglyPassed, cases, score: cases ? total / cases : 0};
  });
  if (plan.metric === 'accuracy') {
    const zeros = rows.find((r) => r.answer.name === 'zeros')?.score ?? 0;
    report.floor = plan.probeFloor !== undefined ? {value: plan.probeFloor, from: 'probe_floor'} : {value: minimize ? zeros - answerSlack : zeros + answerSlack, from: 'zeros'};
  }
  for (const row of rows) {
    const {answer} = row;
    const outcome: AnswerOutcome = {answer: answer.name, kind: answer.kind, tries: answer.tries, cases: row.cases, passed: row.passed, ok: true};
    const what = `Trivial answer \`${answer.name}\` (${answer.tries})`;
    if (plan.metric === 'accuracy') {
      outcome.score = row.score;
      // Only a blind answer is held to the floor; all zeros sets it unless the plan does.
      const judged = answer.kind === 'wrong' && answer.blind === true && !(answer.name === 'zeros' && report.floor!.from === 'zeros');
      if (judged) outcome.limit = report.floor!.value;
      if (answer.kind === 'wrong' && row.cases > 0 && row.wronglyPassed === row.cases) {
        outcome.ok = false;
        finding('probe-answer', `${what} passed every dev case (score ${show(row.score)}): the verifier accepts it; make the verifier check the answer`);
      } else if (judged && (minimize ? row.score < outcome.limit! : row.score > outcome.limit!)) {
        outcome.ok = false;
        const bar = report.floor!.from === 'probe_floor' ? `the plan's probe_floor ${show(outcome.limit!)}` : `all zeros' score ${show(report.floor!.value - (minimize ? -answerSlack : answerSlack))} ${minimize ? '-' : '+'} ${answerSlack}`;
        finding(
          'probe-answer',
          `${what} scored ${show(row.score)} on dev, expected ${minimize ? 'no less' : 'no more'} than ${bar}: a trivial answer earns partial credit; ` +
            'check that the verifier checks the answer, or measure the floor and acknowledge it with probe_floor in plan.toml',
        );
      }
    } else if (answer.kind === 'wrong' && row.wronglyPassed > 0) {
      outcome.ok = false;
      finding('probe-answer', `${what} passed ${row.wronglyPassed} of ${row.cases} dev cases: the verifier accepts a wrong answer; make the verifier check the answer`);
    } else if (answer.kind === 'control' && row.passed < row.cases) {
      outcome.ok = false;
      finding('probe-answer', `The oracle's own answer failed ${row.cases - row.passed} of ${row.cases} dev cases: the verifier rejects the expected answer; check the verifier against the oracle`);
    }
    report.answers.push(outcome);
  }
}

/** Run every mutant of the verifier and say which the answers killed. */
async function runMutants(
  bundle: Bundle,
  points: BatteryPoint[],
  baseline: Outcome[][],
  scratch: string,
  score: (variant: Bundle) => Promise<Outcome[][]>,
  verify: (variant: Bundle, dir: string) => Promise<Outcome[]>,
): Promise<MutantOutcome[]> {
  const results: MutantOutcome[] = [];
  const judge = async (mutant: string, kind: MutantOutcome['kind'], changes: string, scoring: () => Promise<Outcome[][]>) => {
    let scored: Outcome[][];
    try {
      scored = await scoring();
    } catch (error) {
      // A mutant the host refuses to run at all (a module that no longer loads) is caught by any answer.
      results.push({mutant, kind, changes, status: 'killed', killedBy: 'expected', killedOn: 'passed', note: `the verifier no longer runs: ${messageOf(error)}`});
      return;
    }
    const kill = firstDifference(points, baseline, scored);
    results.push({mutant, kind, changes, status: kill === undefined ? 'survived' : 'killed', ...(kill === undefined ? {} : {killedBy: kill.name, killedOn: kill.on})});
  };
  // Source mutants, in a copy of the bundle folder so the verifier's own imports resolve.
  if (bundle.entry.verify) {
    const copy = path.join(scratch, 'bundle');
    cpSync(bundle.dir, copy, {recursive: true});
    const file = bundle.entry.verify;
    const language = file.endsWith('.py') ? 'py' : 'js';
    const mutants = sourceMutants(readFileSync(file, 'utf8'), language);
    for (const [k, m] of mutants.entries()) {
      const base = path.basename(file).replace(/\.[^.]+$/, '');
      const target = path.join(copy, path.dirname(path.relative(bundle.dir, file)), `${base}_mutant_${k}${path.extname(file)}`);
      writeFileSync(target, m.text);
      await judge(m.name, 'source', m.changes, () => score({...bundle, dir: copy, entry: {...bundle.entry, verify: target}}));
    }
  }
  // Every number of [accept] loosened: 1000 times larger, or 1 for a zero (a count of rows allowed wrong).
  for (const [key, value] of Object.entries(bundle.accept)) {
    if (typeof value !== 'number' && typeof value !== 'bigint') continue;
    const loosened = Number(value) === 0 ? 1 : Number(value) * 1000;
    await judge(`accept-${key}`, 'accept', `[accept] ${key} = ${value} -> ${loosened}`, () => score({...bundle, accept: {...bundle.accept, [key]: loosened}}));
  }
  for (const view of viewMutants) {
    if (!viewApplies(bundle, points[0]!, view)) continue;
    const why = bundle.results.map((b) => view.unobservable?.(b)).find((x) => x !== undefined);
    if (why !== undefined) {
      results.push({mutant: view.name, kind: 'wrapper', changes: view.changes, status: 'unobservable', note: why});
      continue;
    }
    await judge(view.name, 'wrapper', view.changes, () => scoreViewed(bundle, points, baseline, scratch, view, verify));
  }
  return results;
}

/** The battery's outcomes under a wrapper mutant: the baseline's, with the cases its view changes verified again. */
async function scoreViewed(
  bundle: Bundle,
  points: BatteryPoint[],
  baseline: Outcome[][],
  scratch: string,
  view: (typeof viewMutants)[number],
  verify: (variant: Bundle, dir: string) => Promise<Outcome[]>,
): Promise<Outcome[][]> {
  const scored: Outcome[][] = [];
  for (const [k, p] of points.entries()) {
    const mine = baseline[k]!.slice();
    const viewed = viewedCases(bundle, p, view);
    if (viewed.length > 0) {
      const dir = path.join(scratch, 'viewed');
      layOutViewed(bundle, p, dir, viewed);
      const outcomes = await verify(bundle, dir);
      viewed.forEach(({a, i}, j) => (mine[a * p.cases.length + i] = outcomes[j]!));
    }
    scored.push(mine);
  }
  return scored;
}

/**
 * The answer that tells two scorings apart, and how: the first (in battery order) whose pass or
 * score differs, else the first whose metrics or error differ (a mutant that changes only what
 * the verifier reports is killed, and said to be so).
 */
function firstDifference(points: BatteryPoint[], a: Outcome[][], b: Outcome[][]): {name: string; on: NonNullable<MutantOutcome['killedOn']>} | undefined {
  let best: {rank: number; name: string; on: NonNullable<MutantOutcome['killedOn']>} | undefined;
  points.forEach((p, k) => {
    const n = p.cases.length;
    a[k]!.forEach((o, c) => {
      const other = b[k]![c]!;
      const on = o.passed !== other.passed ? 'passed' : o.score !== other.score ? 'score' : o.rest !== other.rest ? 'metrics' : undefined;
      if (on === undefined) return;
      const answer = Math.floor(c / n);
      const rank = (on === 'metrics' ? 1e9 : 0) + answer;
      if (!best || rank < best.rank) best = {rank, name: p.answers[answer]!.answer.name, on};
    });
  });
  return best && {name: best.name, on: best.on};
}

const percent = (x: number) => `${Math.floor(x * 1000) / 10}%`;

/** A score to four significant digits, as people read it. */
function show(score: number): string {
  return String(Number(score.toPrecision(4)));
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n', 1)[0] ?? '';
}
