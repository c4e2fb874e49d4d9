/**
 * runMutants: every mutant of one dev point judged against the verifier (see mutants.ts for the
 * phase as a whole). The candidates are the source mutants of the verifier, the loosened
 * `[accept]` values and the wrapper views; each is killed by the first trivial answer (in battery
 * order) whose verdict differs, else shown by an edge answer, else called equivalent (source,
 * accept) or shown by a wrong answer the verifier accepts (wrapper: the verifier is as weak as the view).
 */
import {cpSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import type {Binding, Bundle} from '../bundle/bundle.js';
import type {Tensor} from '../bundle/codec.js';
import type {BatteryPoint} from './battery-dir.js';
import {sameTensor} from './answers.js';
import {edgeAnswers, type MutantEvidence, type MutantOutcome, type Outcome, type Scorer, type Verifier} from './mutants.js';
import {sourceMutants} from './source.js';
import {viewMutants, type ViewMutant} from './views.js';
import {messageOf} from '../errors.js';

type ElementValue = (type: Binding['type'], bytes: Uint8Array) => number | string;
/** A mutant's verify of one answer; undefined when it sees the answer as the verifier does (same outcome). */
type MutantVerify = (tensors: Tensor[], i: number) => Promise<Outcome> | undefined;

/** What every mutant of one point is judged with. */
interface MutantRun {
  bundle: Bundle;
  p: BatteryPoint;
  scorer: Scorer;
  judge: (fn: Verifier | undefined, accept: Record<string, unknown>, tensors: Tensor[], i: number, answer?: Tensor[]) => Promise<Outcome>;
  /** The verifier's outcome on an answer (battery or edge), computed once, as it is asked for. */
  referenceOf: (key: string, tensors: Tensor[], i: number) => Promise<Outcome>;
  /** The oracle's own answer in the battery (its tensors are each case's expected ones), or -1. */
  control: number;
  elementValue: ElementValue;
}

interface Candidate {
  name: string;
  kind: MutantOutcome['kind'];
  changes: string;
  extra?: Partial<MutantOutcome>;
  load(): Promise<MutantVerify>;
}

const batteryKey = (a: number, i: number) => `battery ${a} ${i}`;

/** The source mutants of the verifier file, each written next to it in the bundle's copy and imported when its turn comes. */
function sourceCandidates(run: MutantRun, verifierFile: string, copy: string, importAuthored: (file: string, role: string) => Promise<Verifier>): Candidate[] {
  const {bundle, judge} = run;
  const language = verifierFile.endsWith('.py') ? 'py' : 'js';
  const text = readFileSync(verifierFile, 'utf8');
  return [...sourceMutants(text, language).entries()].map(([k, m]) => {
    const base = path.basename(verifierFile).replace(/\.[^.]+$/, '');
    const target = path.join(copy, path.dirname(path.relative(bundle.dir, verifierFile)), `${base}_mutant_${k}${path.extname(verifierFile)}`);
    return {
      name: m.name,
      kind: 'source' as const,
      changes: m.changes,
      extra: changedLine(text, m.text),
      load: async () => {
        writeFileSync(target, m.text);
        const fn = await importAuthored(target, 'verifier');
        return (tensors, i) => judge(fn, bundle.accept, tensors, i);
      },
    };
  });
}

/** Each numeric `[accept]` value loosened (x1000, or 0 -> 1): a tolerance nothing tests. */
function acceptCandidates(run: MutantRun): Candidate[] {
  const {bundle, judge} = run;
  const candidates: Candidate[] = [];
  for (const [key, value] of Object.entries(bundle.accept)) {
    if (typeof value !== 'number' && typeof value !== 'bigint') continue;
    const loosened = Number(value) === 0 ? 1 : Number(value) * 1000;
    const accept = {...bundle.accept, [key]: loosened};
    candidates.push({
      name: `accept-${key}`,
      kind: 'accept',
      changes: `[accept] ${key} = ${value} -> ${loosened}`,
      load: async () => (tensors, i) => judge(run.scorer.original, accept, tensors, i),
    });
  }
  return candidates;
}

/** The wrapper views that apply to this point's results: candidates, or unobservable (said why) where no answer could show them. */
function viewCandidates(run: MutantRun): {candidates: Candidate[]; unobservable: MutantOutcome[]; views: Map<string, ViewMutant>} {
  const {bundle, p, judge, referenceOf, control, scorer} = run;
  const candidates: Candidate[] = [];
  const unobservable: MutantOutcome[] = [];
  const views = new Map<string, ViewMutant>();
  for (const view of viewMutants) {
    if (!bundle.results.some((b, r) => view.applies(b, p.shapes[r]!, p.cases[0]!.expected[r]!))) continue;
    const why = bundle.results.map((b) => view.unobservable?.(b)).find((x) => x !== undefined);
    if (why !== undefined) {
      unobservable.push({mutant: view.name, kind: 'wrapper', changes: view.changes, status: 'unobservable', note: why});
      continue;
    }
    views.set(view.name, view);
    candidates.push({
      name: view.name,
      kind: 'wrapper',
      changes: view.changes,
      load: async () => (tensors, i) => {
        const seen = viewOf(bundle, p, view, tensors, i);
        if (!seen) return undefined;
        // Seen as the expected answer itself: the verifier's verdict on the expected answer (when that holds no NaN), failed when the answer holds NaN.
        const expected = p.cases[i]!.expected;
        if (control >= 0 && seen.every((t, r) => t === expected[r]) && !scorer.hasNaN(expected))
          return referenceOf(batteryKey(control, i), expected, i).then((o) => (scorer.hasNaN(tensors) ? {...o, passed: false} : o));
        return judge(scorer.original, bundle.accept, seen, i, tensors);
      },
    });
  }
  return {candidates, unobservable, views};
}

/** The trivial answer that kills the mutant: the first, in battery order, whose pass or score differs, else the first whose metrics do. */
async function killingAnswer(run: MutantRun, verify: MutantVerify): Promise<{by: string; on: MutantOutcome['killedOn']} | undefined> {
  const {p, referenceOf} = run;
  let onMetrics: string | undefined;
  for (let a = 0; a < p.answers.length; a++) {
    for (let i = 0; i < p.cases.length; i++) {
      const tensors = p.answers[a]!.out[i]!;
      const mine = verify(tensors, i);
      if (!mine) continue;
      const d = differs(await referenceOf(batteryKey(a, i), tensors, i), await mine);
      if (d === 'metrics') onMetrics ??= p.answers[a]!.answer.name;
      else if (d) return {by: p.answers[a]!.answer.name, on: d};
    }
  }
  return onMetrics ? {by: onMetrics, on: 'metrics'} : undefined;
}

/** The first edge answer on which the mutant and the verifier differ, as evidence. */
async function edgeEvidence(run: MutantRun, verify: MutantVerify): Promise<MutantEvidence | undefined> {
  const {bundle, p} = run;
  for (const edge of edgeAnswers(bundle, p)) {
    const mine = verify(edge.tensors, edge.i);
    if (!mine) continue;
    const ref = await run.referenceOf(edge.key, edge.tensors, edge.i);
    const m = await mine;
    const d = differs(ref, m);
    if (d) return describe(bundle, p, edge.name, edge.i, edge.tensors, ref, m, d, run.elementValue);
  }
  return undefined;
}

/**
 * A surviving wrapper: the verifier is as weak as the view, so show a wrong answer it accepts that
 * the view changes. Wrong trivial answers first, then the edge answers, then the near ones (whose
 * difference may be the tolerance's); best one the view turns into the expected answer (all it
 * gets wrong, the view hides), else any the view changes.
 */
async function weakVerifierEvidence(run: MutantRun, view: ViewMutant): Promise<MutantEvidence | undefined> {
  const {bundle, p} = run;
  const trivial = (near: boolean) =>
    p.answers.flatMap((x, a) =>
      x.answer.kind === 'control' || (x.answer.kind === 'near') !== near
        ? []
        : p.cases.map((_c, i) => ({name: x.answer.name, key: batteryKey(a, i), tensors: x.out[i]!, i, right: x.right[i]!})),
    );
  const tries = function* () {
    yield* trivial(false);
    for (const e of edgeAnswers(bundle, p)) yield {...e, right: false};
    yield* trivial(true);
  };
  for (const whole of [true, false]) {
    for (const t of tries()) {
      if (t.right) continue;
      const seen = viewOf(bundle, p, view, t.tensors, t.i);
      if (!seen || (whole && !seen.every((x, r) => sameTensor(x, p.cases[t.i]!.expected[r]!)))) continue;
      const ref = await run.referenceOf(t.key, t.tensors, t.i);
      if (ref.passed) return describe(bundle, p, t.name, t.i, t.tensors, ref, ref, 'none', run.elementValue);
    }
  }
  return undefined;
}

const EQUIVALENT_NOTE =
  "no trivial or edge answer tells it apart from the verifier (NaN, ±Infinity, -0, 0, huge and tiny values, relative steps from 1/2 to 2^-52, ±1, the type's extremes, a swap and a copy, at the first, second, middle and last element of the first two cases)";

/** One candidate's outcome: killed (also when it no longer loads), survived with evidence, or equivalent. */
async function judgeCandidate(run: MutantRun, c: Candidate, views: Map<string, ViewMutant>): Promise<MutantOutcome> {
  const head = {mutant: c.name, kind: c.kind, changes: c.changes, ...c.extra};
  let verify: MutantVerify;
  try {
    verify = await c.load();
  } catch (error) {
    // A mutant that no longer loads is caught by any answer.
    return {...head, status: 'killed', killedBy: 'expected', killedOn: 'passed', note: `the verifier no longer runs: ${messageOf(error)}`};
  }
  const kill = await killingAnswer(run, verify);
  if (kill) return {...head, status: 'killed', killedBy: kill.by, killedOn: kill.on};
  // A survivor: an edge answer that tells it apart, else equivalent (source, accept) or as weak as the verifier (wrapper).
  const evidence = await edgeEvidence(run, verify);
  if (evidence) return {...head, status: 'survived', answer: evidence};
  if (c.kind !== 'wrapper') return {...head, status: 'equivalent', note: EQUIVALENT_NOTE};
  const shown = await weakVerifierEvidence(run, views.get(c.name)!);
  return {...head, status: 'survived', ...(shown ? {answer: shown} : {})};
}

/**
 * Run every mutant at one point, inside the scorer's `withAuthored` scope (a Python verifier's
 * mutants then share its host). `say(done, total)` is called after each. `baseline`: the verifier's
 * outcomes on this point's battery (scorer.battery), not computed again.
 */
export async function runMutants(
  bundle: Bundle,
  p: BatteryPoint,
  scratch: string,
  say: (done: number, total: number, killed: number) => void,
  scorer: Scorer,
  baseline: readonly Outcome[],
): Promise<MutantOutcome[]> {
  const {importAuthored} = await import('../bundle/authored.js');
  const {elementValue} = await import('../bundle/index.js');
  const n = p.cases.length;
  const judge: MutantRun['judge'] = (fn, accept, tensors, i, answer = tensors) => scorer.judge(p, fn, accept, tensors, i, answer);
  const verifierFile = bundle.entry.verify;
  const copy = path.join(scratch, 'bundle');
  if (verifierFile) cpSync(bundle.dir, copy, {recursive: true});
  // The verifier's outcomes on the battery (given) and on edge answers (computed once, as they are asked for).
  const reference = new Map<string, Promise<Outcome>>();
  baseline.forEach((o, k) => reference.set(batteryKey(Math.floor(k / n), k % n), Promise.resolve(o)));
  const referenceOf = (key: string, tensors: Tensor[], i: number) => {
    let o = reference.get(key);
    if (!o) reference.set(key, (o = judge(scorer.original, bundle.accept, tensors, i)));
    return o;
  };
  const control = p.answers.findIndex((x) => x.answer.kind === 'control' && x.out.every((ts, i) => ts.every((t, r) => t === p.cases[i]!.expected[r])));
  const run: MutantRun = {bundle, p, scorer, judge, referenceOf, control, elementValue};
  const views = viewCandidates(run);
  const candidates = [...(verifierFile ? sourceCandidates(run, verifierFile, copy, importAuthored) : []), ...acceptCandidates(run), ...views.candidates];
  const total = candidates.length + views.unobservable.length;
  const results: MutantOutcome[] = [];
  let killed = 0;
  for (const c of candidates) {
    const outcome = await judgeCandidate(run, c, views.views);
    if (outcome.status === 'killed') killed++;
    results.push(outcome);
    say(results.length, total, killed);
  }
  for (const u of views.unobservable) {
    results.push(u);
    say(results.length, total, killed);
  }
  // Source, accept, wrapper order as before (unobservable wrappers among the wrappers).
  const order = new Map([...candidates.map((c) => c.name), ...views.unobservable.map((u) => u.mutant)].map((name, k) => [name, k]));
  const wrapperOrder = new Map(viewMutants.map((v, k) => [v.name, k]));
  return results.sort((x, y) =>
    x.kind === 'wrapper' && y.kind === 'wrapper' ? wrapperOrder.get(x.mutant)! - wrapperOrder.get(y.mutant)! : order.get(x.mutant)! - order.get(y.mutant)!,
  );
}

/** The answer as a wrapper mutant's verifier sees it; undefined when the view changes nothing. */
function viewOf(bundle: Bundle, p: BatteryPoint, view: ViewMutant, tensors: Tensor[], i: number): Tensor[] | undefined {
  let changed = false;
  const seen = bundle.results.map((b, r) => {
    if (!view.applies(b, p.shapes[r]!, p.cases[0]!.expected[r]!)) return tensors[r]!;
    const t = view.see({
      binding: b,
      shape: p.shapes[r]!,
      actual: tensors[r]!,
      expected: p.cases[i]!.expected[r]!,
      args: p.cases[i]!.args,
      caseIndex: i,
      cases: p.cases.length,
    });
    if (!sameTensor(t, tensors[r]!)) changed = true;
    return t;
  });
  return changed ? seen : undefined;
}

/** What tells two outcomes apart: pass, score, or only the rest of the record. */
function differs(a: Outcome, b: Outcome): MutantOutcome['killedOn'] | undefined {
  return a.passed !== b.passed ? 'passed' : a.score !== b.score ? 'score' : a.rest !== b.rest ? 'metrics' : undefined;
}

/** A concrete answer as people read it: its first element that differs from the expected answer, and each verdict. */
function describe(
  bundle: Bundle,
  p: BatteryPoint,
  answer: string,
  i: number,
  tensors: Tensor[],
  verifier: Outcome,
  mutant: Outcome,
  d: MutantEvidence['differs'],
  elementValue: (type: Binding['type'], bytes: Uint8Array) => number | string,
): MutantEvidence {
  let result = bundle.results[0]!.name;
  let element = 0;
  let expected: number | string = '';
  let value: number | string = '';
  for (const [r, b] of bundle.results.entries()) {
    const e = p.cases[i]!.expected[r]!;
    const a = tensors[r]!;
    const w = e.BYTES_PER_ELEMENT;
    const x = new Uint8Array(e.buffer, e.byteOffset, e.byteLength);
    const y = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    let k = -1;
    for (let o = 0; o < x.length; o++) {
      if (x[o] !== y[o]) {
        k = Math.floor(o / w);
        break;
      }
    }
    if (k < 0) continue;
    result = b.name;
    element = k;
    expected = elementValue(b.type, x.slice(k * w, (k + 1) * w));
    value = elementValue(b.type, y.slice(k * w, (k + 1) * w));
    break;
  }
  return {
    answer,
    case: i,
    result,
    element,
    expected,
    value,
    verifier: verifier.passed ? 'accepts' : 'rejects',
    mutant: mutant.passed ? 'accepts' : 'rejects',
    ...(verifier.score !== null ? {verifierScore: verifier.score, mutantScore: mutant.score} : {}),
    differs: d,
  };
}

/** The one line a source mutant changes: its number, and the line before and after (trimmed). */
function changedLine(before: string, after: string): Partial<MutantOutcome> {
  let k = 0;
  while (k < before.length && before[k] === after[k]) k++;
  const start = before.lastIndexOf('\n', k - 1) + 1;
  const line = before.slice(0, start).split('\n').length;
  const endOf = (text: string) => {
    const e = text.indexOf('\n', start);
    return e < 0 ? text.length : e;
  };
  return {line, before: before.slice(start, endOf(before)).trim(), after: after.slice(start, endOf(after)).trim()};
}
