/**
 * Testing the checker: the trivial answers (answers.ts) scored against every
 * dev case by the entry's own verifier, and, with `mutants`, the verifier's
 * mutants (source.ts, views.ts, and its [accept] numbers loosened) scored
 * against the same answers. A mutant is killed when some answer gets another
 * per-case verdict (passed, and for an accuracy entry the case's score) than
 * under the real verifier. No solution runs and no sandbox starts.
 */
import {existsSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import type {Bundle} from '../bundle/bundle.js';
import type {Plan} from '../benchmark/plan.js';
import type {Finding} from '../zoo/lint.js';
import {buildAnswers, readDevCases, type BatteryPoint} from './battery-dir.js';
import {trivialAnswers, type AnswerKind} from './answers.js';
import type {MutantOutcome, Outcome} from './mutants.js';
import {messageOf} from '../errors.js';

export type {MutantOutcome} from './mutants.js';

/** The share of an entry's observable mutants its answers must kill. */
const killTarget = 0.9;

/** How much more than all zeros a trivial answer may score on an accuracy entry without a `probe_floor` (as the eval probes). */
const answerSlack = 0.01;

/** One trivial answer's result over every dev case. */
interface AnswerOutcome {
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

/** The checker's report on one entry. */
export interface CheckerReport {
  findings: Finding[];
  answers: AnswerOutcome[];
  /** Dev cases the answers were scored on (over every dev point). */
  cases: number;
  /** accuracy: the floor trivial answers are held to, and where it comes from. */
  floor?: {value: number; from: 'probe_floor' | 'zeros'};
  mutants?: MutantOutcome[];
  /** The dev point the mutants ran at (the smallest), and its number among the plan's dev points. */
  mutantPoint?: {point: Record<string, number>; index: number; of: number};
  /** Killed / (killed + survived), when mutants ran (equivalent and unobservable mutants are not counted). */
  killRate?: number;
  seconds: number;
}

/** Options of checkVerifier. */
export interface CheckerOptions {
  cwd?: string;
  /** Also run the verifier's mutants. */
  mutants?: boolean;
  /** Progress lines of the mutant phase (`<dir>: mutants: 12 of 40 ...`), at most one a second. */
  onProgress?: (line: string) => void;
}

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
    // The verifier judges every answer in memory, as verifyWorkDir would judge it from files; then the mutants run in the same scope.
    const {withAuthored} = await import('../bundle/authored.js');
    const [{makeScorer, mutantPoint}, {runMutants}] = await Promise.all([import('./mutants.js'), import('./mutant-run.js')]);
    const mutantsRun = await withAuthored(bundle, async () => {
      const scorer = await makeScorer(plan, bundle);
      const baseline: Outcome[][] = [];
      for (const p of points) baseline.push(await scorer.battery(p));
      judgeAnswers(plan, points, baseline, report, finding);
      if (!options.mutants) return undefined;
      const {bindingBytes} = await import('../bundle/index.js');
      const k = mutantPoint(bundle, points, (b, p) => Number(bindingBytes(b, p.point)));
      const p = points[k]!;
      report.mutantPoint = {point: {...p.point}, index: k, of: points.length};
      const say = options.onProgress ?? (() => {});
      const where = Object.entries(p.point)
        .map(([name, v]) => `${name} = ${v}`)
        .join(', ');
      let last = process.hrtime.bigint();
      say(`${dir}: mutants: at ${where}${points.length > 1 ? ` (the smallest of ${points.length} dev points)` : ''}, ${p.cases.length} cases`);
      const progress = (done: number, total: number, killed: number) => {
        const now = process.hrtime.bigint();
        if (now - last < 1_000_000_000n || done === total) return;
        last = now;
        say(`${dir}: mutants: ${done} of ${total} (${killed} killed) in ${seconds().toFixed(1)} s`);
      };
      return runMutants(bundle, p, scratch, progress, scorer, baseline[k]!);
    });
    if (mutantsRun) {
      report.mutants = mutantsRun;
      const killed = report.mutants.filter((m) => m.status === 'killed').length;
      const counted = report.mutants.filter((m) => m.status === 'killed' || m.status === 'survived').length;
      report.killRate = counted === 0 ? 1 : killed / counted;
      if (report.killRate < killTarget) {
        const survivors = report.mutants.filter((m) => m.status === 'survived');
        finding(
          'probe-mutants',
          `The trivial answers kill ${killed} of ${counted} mutants of the verifier (${percent(report.killRate)}), expected at least ${percent(killTarget)}: ` +
            `${survivors.map((m) => `\`${m.mutant}\` (${m.changes}${m.answer ? `; ${shownAnswer(m)}` : ''})`).join('; ')} survived; make the verifier check what these skip, or, where the answer shown is one the verifier rejects, make the dev cases hold what the trivial answers need to show it`,
        );
      }
    }
  } finally {
    rmSync(scratch, {recursive: true, force: true});
  }
  return {...report, seconds: seconds()};
}

/** Make the dev work directories (a path split's are read in place) and build the battery of each point. */
async function makeBattery(abs: string, scratch: string): Promise<{plan: Plan; bundle: Bundle; points: BatteryPoint[]}> {
  const [{loadPlan}, {loadBundle, parsePoint, makeWorkDir}, {dataFolder, splitPoints}] = await Promise.all([
    import('../benchmark/plan.js'),
    import('../bundle/index.js'),
    import('../eval/index.js'),
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
    const {bindingShape} = await import('../bundle/bundle.js');
    points.push({point, made, cases, answers, shapes: bundle.results.map((b) => bindingShape(b, point).map(Number))});
  }
  return {plan, bundle, points};
}

/** Each answer's outcome over every dev case, and a finding for each a loose verifier rewards. */
function judgeAnswers(
  plan: Plan,
  points: BatteryPoint[],
  baseline: Outcome[][],
  report: CheckerReport,
  finding: (rule: string, message: string) => void,
): void {
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
    report.floor =
      plan.probeFloor !== undefined
        ? {value: plan.probeFloor, from: 'probe_floor'}
        : {value: minimize ? zeros - answerSlack : zeros + answerSlack, from: 'zeros'};
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
        const bar =
          report.floor!.from === 'probe_floor'
            ? `the plan's probe_floor ${show(outcome.limit!)}`
            : `all zeros' score ${show(report.floor!.value - (minimize ? -answerSlack : answerSlack))} ${minimize ? '-' : '+'} ${answerSlack}`;
        finding(
          'probe-answer',
          `${what} scored ${show(row.score)} on dev, expected ${minimize ? 'no less' : 'no more'} than ${bar}: a trivial answer earns partial credit; ` +
            'check that the verifier checks the answer, or measure the floor and acknowledge it with probe_floor in plan.toml',
        );
      }
    } else if (answer.kind === 'wrong' && row.wronglyPassed > 0) {
      outcome.ok = false;
      finding(
        'probe-answer',
        `${what} passed ${row.wronglyPassed} of ${row.cases} dev cases: the verifier accepts a wrong answer; make the verifier check the answer`,
      );
    } else if (answer.kind === 'control' && row.passed < row.cases) {
      outcome.ok = false;
      finding(
        'probe-answer',
        `The oracle's own answer failed ${row.cases - row.passed} of ${row.cases} dev cases: the verifier rejects the expected answer; check the verifier against the oracle`,
      );
    }
    report.answers.push(outcome);
  }
}

/** A survivor's concrete answer in words. */
export function shownAnswer(m: MutantOutcome): string {
  const a = m.answer!;
  const where = `case ${a.case}, element ${a.element} of ${a.result} = ${a.value} (expected ${a.expected})`;
  const score = a.verifierScore !== undefined ? ` (score ${a.verifierScore} under the verifier, ${a.mutantScore} under the mutant)` : '';
  if (a.differs === 'none') return `the verifier accepts a wrong answer, ${a.answer}: ${where}`;
  const tail = a.differs === 'passed' ? '' : a.differs === 'score' ? ', with another score' : ', with other metrics';
  return `answer ${a.answer}: ${where}: the mutant ${a.mutant === 'accepts' ? 'accepts' : 'rejects'} it, the verifier ${a.verifier === 'accepts' ? 'accepts' : 'rejects'} it${tail}${score}`;
}

const percent = (x: number) => `${Math.floor(x * 1000) / 10}%`;

/** A score to four significant digits, as people read it. */
function show(score: number): string {
  return String(Number(score.toPrecision(4)));
}
