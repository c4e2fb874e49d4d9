/** The source mutants of a verifier: one edit each, in code only (comments and strings are masked). */
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot} from '../helpers/cli.js';

const {sourceMutants, maskCode} = (await import(path.join(repoRoot, 'dist/lib/probe/source.js'))) as typeof import('../../lib/probe/source.js');

const js = `// passed: never < edited here
export default function verify(point, args, expected, actual, accept) {
  const tolerance = Number(accept?.tolerance ?? 1e-9);
  let wrong = 0;
  for (let i = 0; i < actual.y.length; i++) if (Math.abs(actual.y[i] - expected.y[i]) > 0.5 && i >= 0) wrong++;
  return {passed: wrong === 0, metrics: {wrong, note: "a < b"}};
}
`;

const py = `# a comment: if x < 1 and passed
def verify(point, args, expected, actual, accept):
    tolerance = accept.get("tolerance", 1e-9)
    wrong = 0
    for i in range(len(actual["y"])):
        if abs(actual["y"][i] - expected["y"][i]) > 0.5 or i < 0:
            wrong += 1
    return {"passed": wrong == 0, "metrics": {"wrong": wrong, "note": "x >= y"}}
`;

describe('source mutants', () => {
  it('JavaScript: each operator once per place, named by line, never in a comment or a string', () => {
    const mutants = sourceMutants(js, 'js');
    expect(mutants.map((m) => m.name)).toEqual([
      'comparison-flipped@5',
      'loop-stride-2@5',
      'condition-dropped@5',
      'comparison-flipped@5.2',
      'literal-scaled@5',
      'boolean-swapped@5',
      'comparison-flipped@5.3',
      'passed-true@6',
      'comparison-flipped@6',
    ]);
    const byName = Object.fromEntries(mutants.map((m) => [m.name, m]));
    expect(byName['passed-true@6']!.text).toContain('return {passed: true, metrics');
    expect(byName['passed-true@6']!.changes).toBe('line 6: `passed: wrong === 0` -> true');
    expect(byName['loop-stride-2@5']!.text).toContain('for (let i = 0; i < actual.y.length; i += 2)');
    expect(byName['literal-scaled@5']!.text).toContain('> (0.5 * 1000) &&');
    // The ?? default is [accept]'s to override: not a mutant.
    expect(mutants.some((m) => m.text.includes('1e-9 * 1000'))).toBe(false);
    for (const m of mutants) expect(m.text.split('\n')[0]).toBe('// passed: never < edited here');
  });

  it('Python: if, comparisons, and/or, range, the "passed" key', () => {
    const mutants = sourceMutants(py, 'py');
    expect(mutants.map((m) => m.name)).toEqual([
      'loop-stride-2@5',
      'condition-dropped@6',
      'comparison-flipped@6',
      'literal-scaled@6',
      'boolean-swapped@6',
      'comparison-flipped@6.2',
      'passed-true@8',
      'comparison-flipped@8',
    ]);
    const byName = Object.fromEntries(mutants.map((m) => [m.name, m]));
    expect(byName['passed-true@8']!.text).toContain('return {"passed": True, "metrics"');
    expect(byName['condition-dropped@6']!.text).toContain('        if False:\n');
    expect(byName['loop-stride-2@5']!.text).toContain('for i in range(0, len(actual["y"]), 2):');
    expect(byName['boolean-swapped@6']!.text).toContain('> 0.5 and i < 0:');
    expect(mutants.some((m) => m.text.includes('1e-9 * 1000'))).toBe(false);
  });

  it('masking keeps the length and the quotes, blanks comments and string contents', () => {
    expect(maskCode('a = "x<y" # c<d\nb', 'py')).toBe('a = "   "      \nb');
    expect(maskCode('f(`a${1}`) /* < */ // <', 'js')).toBe('f(`     `)             ');
  });
});
