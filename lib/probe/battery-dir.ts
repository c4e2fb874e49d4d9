/**
 * The battery: every trivial answer of every dev case of one dev point, built in memory from the
 * made work directory's cases and expected answers, and judged there by the verifier (mutants.ts,
 * `makeScorer`) as verifyWorkDir would judge it from files: no battery is written to disk.
 */
import path from 'node:path';
import {bindingLength, bindingShape, type Binding, type Bundle} from '../bundle/bundle.js';
import {readTensor, type Tensor} from '../bundle/codec.js';
import type {Point} from '../bundle/point.js';
import {caseName, readManifest} from '../bundle/workdir.js';
import {sameTensor, trivialAnswers, type AnswerInput, type TrivialAnswer} from './answers.js';

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
  /** The made work directory of the dev cases. */
  made: string;
  cases: DevCase[];
  answers: PointAnswer[];
  shapes: number[][];
}

/** Read a made work directory's cases and expected answers. */
export function readDevCases(bundle: Bundle, dir: string): {point: Point; cases: DevCase[]} {
  const {point, cases} = readManifest(bundle, dir);
  const read = (group: string, b: Binding, i: number) =>
    readTensor(path.join(dir, group, caseName(i), `${b.name}.bin`), b.type, Number(bindingLength(b, point)));
  return {
    point,
    cases: Array.from({length: cases}, (_x, i) => ({
      args: bundle.args.map((b) => read('cases', b, i)),
      expected: bundle.results.map((b) => read('expected', b, i)),
    })),
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
