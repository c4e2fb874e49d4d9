import {readdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {copyFixture, lib, zooFixtures} from './helpers/zoo.js';

/** Each scenario folder and the rule ids it must trigger (errors, then warnings). */
const scenarios: Record<string, {errors: string[]; warnings?: string[]}> = {
  'minimal-ok': {errors: []},
  'eval-py-ok': {errors: []},
  'provenance-heading-variants-ok': {errors: []},
  'readme-missing': {errors: ['readme-present']},
  'readme-is-folder': {errors: ['readme-present']},
  'readme-whitespace-only': {errors: ['readme-content']},
  'readme-warnings-only': {errors: [], warnings: ['readme-metric-direction', 'readme-split']},
  'readme-topics-missing': {errors: [], warnings: ['readme-task', 'readme-metric-direction', 'readme-editable', 'readme-split']},
  'provenance-missing': {errors: ['provenance-present']},
  'provenance-missing-caveats': {errors: ['provenance-sections']},
  'provenance-heading-in-code': {errors: ['provenance-sections']},
  'provenance-heading-in-blockquote': {errors: ['provenance-sections']},
  'provenance-heading-in-html': {errors: ['provenance-sections']},
  'provenance-bold-not-heading': {errors: ['provenance-sections']},
  'provenance-section-empty': {errors: ['provenance-section-empty']},
  'eval-missing': {errors: ['eval-entrypoint']},
  'eval-is-folder': {errors: ['eval-entrypoint']},
  'placeholder-left': {errors: ['placeholder', 'placeholder', 'placeholder']},
};

describe('lint rules over scenario folders', () => {
  it('has an expectation for every scenario folder', () => {
    expect(readdirSync(zooFixtures).sort()).toEqual(Object.keys(scenarios).sort());
  });

  for (const [name, expected] of Object.entries(scenarios)) {
    it(`${name}: ${expected.errors.join(', ') || 'clean'}`, async () => {
      const report = await lib.verifyBenchmark(path.join(zooFixtures, name));
      const ids = (severity: string) => report.findings.filter((f) => f.severity === severity).map((f) => f.ruleId);
      expect(ids('error')).toEqual(expected.errors);
      expect(ids('warning')).toEqual(expected.warnings ?? []);
      for (const finding of report.findings) expect(finding.message).toMatch(/expected/);
    });
  }

  it('names the missing section and says where the nested heading was', async () => {
    const report = await lib.verifyBenchmark(path.join(zooFixtures, 'provenance-heading-in-blockquote'));
    expect(report.findings[0]!.message).toBe(
      'Missing section `Caveats` in `PROVENANCE.md`, expected a top-level heading such as `## Caveats` (the heading inside a blockquote does not count)',
    );
  });

  it('places an empty section at its heading', async () => {
    const report = await lib.verifyBenchmark(path.join(zooFixtures, 'provenance-section-empty'));
    expect(report.findings[0]).toMatchObject({line: 11, column: 1, file: expect.stringMatching(/PROVENANCE\.md$/)});
  });

  it('reports one finding per placeholder with its line', async () => {
    const report = await lib.verifyBenchmark(path.join(zooFixtures, 'placeholder-left'));
    expect(report.findings.map((f) => [path.basename(f.file), f.line, f.column])).toEqual([
      ['README.md', 3, 1],
      ['PROVENANCE.md', 9, 14],
      ['solution.py', 1, 3],
    ]);
  });

  it('reads CRLF line endings and a BOM as fine', async () => {
    const dir = copyFixture('minimal-ok', 'crlf-bom');
    for (const file of ['README.md', 'PROVENANCE.md']) {
      const text = (await import('node:fs')).readFileSync(path.join(dir, file), 'utf8');
      writeFileSync(path.join(dir, file), `\uFEFF${text.replace(/\n/g, '\r\n')}`);
    }
    const report = await lib.verifyBenchmark(dir);
    expect(report.findings).toEqual([]);
  });

  it('reports a file that is not UTF-8, naming the file and the place of the first bad byte', async () => {
    const dir = copyFixture('minimal-ok', 'latin1');
    writeFileSync(path.join(dir, 'PROVENANCE.md'), Buffer.concat([Buffer.from('# Provenance\n\n## Source\n\nCaf'), Buffer.from([0xe9]), Buffer.from('\n')]));
    const report = await lib.verifyBenchmark(dir);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({ruleId: 'file-readable', line: 5, column: 4});
    expect(report.findings[0]!.message).toMatch(/`PROVENANCE.md` is not valid UTF-8/);
  });
});

describe('heading normalisation', () => {
  it.each([
    ['Setup & environment', 'setup and environment'],
    ['  SETUP   AND\tEnvironment :', 'setup and environment'],
    ['Setup&Environment', 'setup and environment'],
    ['Caveats:', 'caveats'],
    ['Contamination  assessment', 'contamination assessment'],
  ])('%j -> %j', (input, output) => {
    expect(lib.normalizeHeading(input)).toBe(output);
  });
});

describe('placeholders', () => {
  it('finds every TODO(arbor) with its text, trimmed of comment closers', () => {
    expect(lib.findPlaceholders('a\n<!-- TODO(arbor): fill me -->\nTODO(arbor): and me\n')).toEqual([
      {offset: 7, text: 'TODO(arbor): fill me'},
      {offset: 32, text: 'TODO(arbor): and me'},
    ]);
  });
});

describe('readme-metric-direction', () => {
  const warns = async (sentence: string) => {
    const dir = copyFixture('minimal-ok', 'direction');
    writeFileSync(
      path.join(dir, 'README.md'),
      `# direction\n\nSort a list of integers.\n\nThe score is the speedup. ${sentence}\n\nOnly \`solution.py\` may be edited; dev seeds 0-3, test seeds 100-107.\n`,
    );
    const report = await lib.verifyBenchmark(dir);
    return report.findings.some((f) => f.ruleId === 'readme-metric-direction');
  };
  it.each([
    'Higher score is better.',
    'Higher scores are better.',
    'higher is better',
    'Lower times are better.',
    'A higher score means a better solution.',
    'Higher-is-better.',
    'The higher the score, the better.',
    'Larger speedup values are better.',
    'Better when higher.',
    'Smaller is better.',
    'Solutions should minimise the time.',
    'We want to maximize the speedup.',
    'Higher = better.',
    'Lower is preferred.',
  ])('reads %j as a direction', async (sentence) => {
    expect(await warns(sentence)).toBe(false);
  });
  it.each(['The score is printed once.', 'Higher precision floats are used.', 'More cases run in the test split; see the better-known paper.'])(
    'warns on %j, which states none',
    async (sentence) => {
      expect(await warns(sentence)).toBe(true);
    },
  );
});

describe('the rule registry', () => {
  it('has unique kebab-case ids and one-line descriptions', () => {
    const ids = lib.lintRules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of lib.lintRules) {
      expect(rule.id).toMatch(/^[a-z]+(-[a-z0-9]+)*$/);
      expect(rule.description).not.toContain('\n');
    }
  });
});
