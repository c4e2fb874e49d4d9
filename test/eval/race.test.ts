// Racing against a recorded run (`eval --against`): the interval's error at every look, and how soon it decides.
import {describe, expect, it} from 'vitest';
import {betweenEvalSpread, generator, raceDecision, raceFirstLook, raceInterval, type PointRatios, type RaceDecision} from '../../lib/stats/index.js';

/** A seeded standard normal. */
function normals(seed: number): () => number {
  const random = generator(seed);
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/**
 * One eval's [rep][case] speedups: log speedup `level` + the eval's own shift (between-eval spread)
 * + per-case noise of sd `sigma` in log.
 */
function evalOf(normal: () => number, reps: number, cases: number, level: number, sigma: number): PointRatios {
  const shift = Math.log1p(betweenEvalSpread) * normal();
  return Array.from({length: reps}, () => Array.from({length: cases}, () => Math.exp(level + shift + sigma * normal())));
}

/** Race a candidate at `level` (log, against 0) looking after each repetition from raceFirstLook to `budget`: the decision and the repetitions it took. */
function race(seed: number, level: number, sigma: number, budget = 30): {decision: RaceDecision; repetitions: number} {
  const normal = normals(seed);
  const recorded = evalOf(normal, 10, 3, 0, sigma);
  const candidate = evalOf(normal, budget, 3, level, sigma);
  for (let t = raceFirstLook; t <= budget; t++) {
    const decision = raceDecision(raceInterval([candidate.slice(0, t)], [recorded]), 0.02);
    if (decision !== 'undecided' || t === budget) return {decision, repetitions: t};
  }
  throw new Error('unreachable');
}

describe('raceInterval', () => {
  it('calls two evals of one solution better or worse at most 5% of the time over 28 looks, on quiet and noisy machines', () => {
    for (const sigma of [0.01, 0.03, 0.1]) {
      const races = Array.from({length: 1000}, (_, k) => race(k + 1, 0, sigma));
      const wrong = races.filter((each) => each.decision === 'better' || each.decision === 'worse').length;
      expect(wrong / races.length, `sigma ${sigma}`).toBeLessThanOrEqual(0.05);
    }
  });

  it('decides a 3x slower candidate worse at its first look, and a 30% faster one better well within the budget', () => {
    const slow = Array.from({length: 200}, (_, k) => race(k + 1, -Math.log(3), 0.05));
    expect(slow.every((each) => each.decision === 'worse' && each.repetitions === raceFirstLook)).toBe(true);
    const faster = Array.from({length: 200}, (_, k) => race(k + 1, Math.log(1.3), 0.03));
    expect(faster.filter((each) => each.decision === 'better').length / faster.length).toBeGreaterThanOrEqual(0.95);
    expect(Math.max(...faster.map((each) => each.repetitions))).toBeLessThan(30);
  });

  it('takes the points together, each at its share of the error; undefined before two repetitions of each side', () => {
    const normal = normals(7);
    const recorded = [evalOf(normal, 6, 3, 0, 0.02), evalOf(normal, 6, 3, 0, 0.02)];
    const candidate = [evalOf(normal, 6, 3, -Math.log(2), 0.02), evalOf(normal, 6, 3, -Math.log(2), 0.02)];
    const interval = raceInterval(candidate, recorded)!;
    expect(interval[1]).toBeLessThan(1);
    expect(interval[0]).toBeGreaterThan(0.3);
    expect(raceInterval([candidate[0]!.slice(0, 1)], [recorded[0]!])).toBeUndefined();
    expect(raceInterval([candidate[0]!], [recorded[0]!.slice(0, 1)])).toBeUndefined();
    expect(raceDecision(undefined, 0.02)).toBe('undecided');
  });
});
