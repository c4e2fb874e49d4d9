/**
 * The battery's work directory: every trivial answer of every dev case as one
 * case of a single work directory (cases/ and expected/ hard-linked from the
 * made one), so one `verifyWorkDir` scores the whole battery, and a mutant
 * costs one verify (one Python process for a Python verifier).
 */
import {copyFileSync, linkSync, mkdirSync, rmSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {bindingLength, bindingShape, type Binding, type Bundle} from '../bundle/bundle.js';
import {readTensor, writeTensor, type Tensor} from '../bundle/codec.js';
import type {Point} from '../bundle/point.js';
import {caseName, readManifest, spacedJson} from '../bundle/workdir.js';
import {sameTensor, trivialAnswers, type AnswerInput, type TrivialAnswer} from './answers.js';
import type {ViewInput, ViewMutant} from './views.js';

/** One dev case as read from its made work directory. */
export interface DevCase {
  args: Tensor[];
  expected: Tensor[];
}

/** One answer of the battery at one point: its tensors per case and result, and the cases where it is the expected answer. */
export interface PointAnswer {
  answer: TrivialAnswer;
  out: Tensor[][];
  right: boolean[];
}

/** The battery at one dev point. */
export interface BatteryPoint {
  point: Point;
  /** The made work directory of the dev cases, and the battery's. */
  made: string;
  dir: string;
  cases: DevCase[];
  answers: PointAnswer[];
  shapes: number[][];
}

/** Read a made work directory's cases and expected answers. */
export function readDevCases(bundle: Bundle, dir: string): {point: Point; cases: DevCase[]} {
  const {point, cases} = readManifest(bundle, dir);
  const read = (group: string, b: Binding, i: number) => readTensor(path.join(dir, group, caseName(i), `${b.name}.bin`), b.type, Number(bindingLength(b, point)));
  return {
    point,
    cases: Array.from({length: cases}, (_x, i) => ({args: bundle.args.map((b) => read('cases', b, i)), expected: bundle.results.map((b) => read('expected', b, i))})),
  };
}

/** Every applicable trivial answer at one point; a wrong answer that equals the expected one on every case is left out. */
export function buildAnswers(bundle: Bundle, point: Point, cases: DevCase[]): PointAnswer[] {
  const shapes = bundle.results.map((b) => bindingShape(b, point).map(Number));
  const built: PointAnswer[] = [];
  for (const answer of trivialAnswers) {
    let applies = false;
    const out = cases.map((c, i) =>
      bundle.results.map((b, r) => {
        const input: AnswerInput = {
          binding: b,
          shape: shapes[r]!,
          expected: c.expected[r]!,
          args: bundle.args.map((binding, k) => ({binding, tensor: c.args[k]!})),
          ...(cases.length > 1 ? {nextExpected: cases[(i + 1) % cases.length]!.expected[r]!} : {}),
        };
        const made = answer.make(input);
        if (made !== undefined) applies = true;
        return made ?? c.expected[r]!;
      }),
    );
    const right = out.map((tensors, i) => tensors.every((t, r) => sameTensor(t, cases[i]!.expected[r]!)));
    if (!applies || (answer.kind === 'wrong' && right.every(Boolean))) continue;
    built.push({answer, out, right});
  }
  return built;
}

/** Lay out the battery directory: case k = answer ⌊k / cases⌋ on dev case k mod cases. */
export function layOutBattery(bundle: Bundle, made: string, dir: string, point: Point, cases: number, answers: number): void {
  mkdirSync(dir, {recursive: true});
  for (let a = 0; a < answers; a++) {
    for (let i = 0; i < cases; i++) {
      const k = a * cases + i;
      for (const [group, bindings] of [['cases', bundle.args], ['expected', bundle.results]] as const) {
        const to = path.join(dir, group, caseName(k));
        mkdirSync(to, {recursive: true});
        for (const b of bindings) link(path.join(made, group, caseName(i), `${b.name}.bin`), path.join(to, `${b.name}.bin`));
      }
    }
  }
  writeFileSync(path.join(dir, 'manifest.json'), `${spacedJson({point, cases: cases * answers})}\n`);
}

function link(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

/** Write every answer into out/ as it is. */
export function writeAnswers(bundle: Bundle, battery: BatteryPoint): void {
  const outDir = path.join(battery.dir, 'out');
  rmSync(outDir, {recursive: true, force: true});
  const n = battery.cases.length;
  battery.answers.forEach((answer, a) => {
    answer.out.forEach((tensors, i) => {
      const to = path.join(outDir, caseName(a * n + i));
      mkdirSync(to, {recursive: true});
      bundle.results.forEach((b, r) => writeTensor(path.join(to, `${b.name}.bin`), b.type, tensors[r]!, {atomic: false}));
    });
  });
}

/** One battery case as a wrapper mutant's verifier sees it: answer `a` on dev case `i`. */
export interface ViewedCase {
  a: number;
  i: number;
  tensors: Tensor[];
}

/**
 * The battery cases a wrapper mutant shows its verifier differently from the answer itself.
 * Only these can change a verdict (the verifier sees the same bytes elsewhere), so only these are verified.
 */
export function viewedCases(bundle: Bundle, battery: BatteryPoint, view: ViewMutant): ViewedCase[] {
  const n = battery.cases.length;
  const changed: ViewedCase[] = [];
  battery.answers.forEach((answer, a) => {
    answer.out.forEach((tensors, i) => {
      let differs = false;
      const seen = bundle.results.map((b, r) => {
        const expected = battery.cases[i]!.expected[r]!;
        if (!view.applies(b, battery.shapes[r]!, battery.cases[0]!.expected[r]!)) return tensors[r]!;
        const input: ViewInput = {binding: b, shape: battery.shapes[r]!, actual: tensors[r]!, expected, args: battery.cases[i]!.args, caseIndex: i, cases: n};
        const t = view.see(input);
        if (!sameTensor(t, tensors[r]!)) differs = true;
        return t;
      });
      if (differs) changed.push({a, i, tensors: seen});
    });
  });
  return changed;
}

/** A work directory of just these viewed cases (case j = the j-th of them), for one verify. */
export function layOutViewed(bundle: Bundle, battery: BatteryPoint, dir: string, viewed: ViewedCase[]): void {
  rmSync(dir, {recursive: true, force: true});
  viewed.forEach(({i, tensors}, j) => {
    for (const [group, bindings] of [['cases', bundle.args], ['expected', bundle.results]] as const) {
      const to = path.join(dir, group, caseName(j));
      mkdirSync(to, {recursive: true});
      for (const b of bindings) link(path.join(battery.made, group, caseName(i), `${b.name}.bin`), path.join(to, `${b.name}.bin`));
    }
    const out = path.join(dir, 'out', caseName(j));
    mkdirSync(out, {recursive: true});
    bundle.results.forEach((b, r) => writeTensor(path.join(out, `${b.name}.bin`), b.type, tensors[r]!, {atomic: false}));
  });
  writeFileSync(path.join(dir, 'manifest.json'), `${spacedJson({point: battery.point, cases: viewed.length})}\n`);
}

/** Whether any result of the bundle at this point fits the view (else the mutant does not exist for it). */
export function viewApplies(bundle: Bundle, battery: BatteryPoint, view: ViewMutant): boolean {
  return bundle.results.some((b, r) => view.applies(b, battery.shapes[r]!, battery.cases[0]!.expected[r]!));
}
