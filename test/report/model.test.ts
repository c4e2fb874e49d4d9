import {describe, expect, it} from 'vitest';
import type {LedgerRun, RunRecord} from '../../lib/ledger/index.js';
import {
  baselineSpreads,
  buildReport,
  chartData,
  entryHealth,
  escapeHtml,
  inlineScript,
  jsonForScript,
  renderReport,
  scoreHistory,
  splitScores,
  type ChartLibrary,
} from '../../lib/report/index.js';
import {sampleRecord, sha} from '../ledger/helpers.js';

/** A stored run: the record with an id (and its time from the id, so the order is the id's). */
function run(id: number, overrides: Partial<RunRecord> = {}): LedgerRun {
  return {...sampleRecord(overrides), id, time: new Date(Date.UTC(2026, 2, 1, 0, id)).toISOString(), compare: overrides.compare ?? null};
}

const library: ChartLibrary = {name: 'uPlot test', license: 'MIT', script: 'window.uPlot = function () {};', style: '.u-legend {}'};

describe('embedding text in the page', () => {
  it('embeds JSON that no string inside can end early, and reads back unchanged', () => {
    const value = {name: '</script><script>alert(1)</script>', comment: '<!-- x -->', amp: 'a & b', separators: '\u2028\u2029'};
    const text = jsonForScript(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('escapes </script and <!-- in inlined scripts without changing what they mean', () => {
    const js = 'return ["</script>", "</SCRIPT >", "<!-- not a comment"].join("|");';
    const escaped = inlineScript(js);
    expect(escaped).not.toMatch(/<\/script|<!--/i);
    expect(new Function(escaped)()).toBe(new Function(js)());
  });

  it('escapes text for HTML', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;');
  });

  it('keeps exactly its three script elements when the library and the data hold </script>', () => {
    const hostile: ChartLibrary = {...library, script: 'var s = "</script><script>alert(1)</script>";'};
    const model = buildReport({
      zoo: 'zoo</script>',
      generated: '2026-03-01T00:00:00.000Z',
      arborVersion: '0.0.0',
      ledger: {path: '/tmp/runs.db', exists: true},
      entries: [{folder: '<b>x</b>', name: '</script>', verify: {problem: 'gone'}, exposure: {count: 0, budget: 5}}],
      runs: [run(1, {benchmark: {path: '/zoo/x', name: '</script>'}})],
    });
    const html = renderReport(model, hostile);
    expect(html.match(/<\/script>/gi)).toHaveLength(3);
    expect(html).toContain('&#60;b&#62;x&#60;/b&#62;');
    expect(html).not.toContain('<b>x</b>');
  });
});

describe('the model', () => {
  it('takes the first error as the finding, before an earlier warning; a broken folder says why', () => {
    const warning = {file: 'zoo/a/README.md', severity: 'warning' as const, ruleId: 'w', message: 'a warning'};
    const error = {file: 'zoo/a/eval.sh', line: 3, column: 1, severity: 'error' as const, ruleId: 'e', message: 'an error'};
    expect(entryHealth({dir: 'zoo/a', errors: 1, warnings: 1, findings: [warning, error]})).toEqual({
      status: 'failing',
      errors: 1,
      warnings: 1,
      firstFinding: 'zoo/a/eval.sh:3:1: error: an error (e)',
    });
    expect(entryHealth({dir: 'zoo/a', errors: 0, warnings: 1, findings: [warning]}).firstFinding).toBe('zoo/a/README.md: warning: a warning (w)');
    expect(entryHealth({dir: 'zoo/a', errors: 0, warnings: 0, findings: []})).toEqual({status: 'ok', errors: 0, warnings: 0, firstFinding: null});
    expect(entryHealth({problem: 'is a dangling symlink'})).toMatchObject({status: 'broken', firstFinding: 'is a dangling symlink'});
  });

  it('gives latest and best eval per split, dev and test always, compare and calibrate runs aside', () => {
    const runs = [
      run(1, {score: 1.2}),
      run(2, {score: 1.5, interval: [1.4, 1.6]}),
      run(3, {score: 1.1}),
      run(4, {kind: 'calibrate', score: 9}),
      run(5, {kind: 'compare', score: 8, compare: {verdict: 'better', ratio: 1.2, interval: null, baselineSha256: null, baselineRun: null}}),
    ];
    const [dev, test] = splitScores(runs);
    expect(dev).toMatchObject({split: 'dev', evals: 3, latest: {id: 3, score: 1.1}, best: {id: 2, score: 1.5, interval: [1.4, 1.6]}});
    expect(test).toEqual({split: 'test', evals: 0, latest: null, best: null});
  });

  it("draws the baseline band from the calibrate runs of the solution calibrated last, per split", () => {
    const runs = [
      run(1, {kind: 'calibrate', score: 5, solutionSha256: sha(1)}),
      run(2, {kind: 'calibrate', score: 1.0, solutionSha256: sha(2)}),
      run(3, {kind: 'calibrate', score: 1.2, solutionSha256: sha(2)}),
      run(4, {kind: 'calibrate', score: 0.9, solutionSha256: sha(2)}),
      run(5, {kind: 'calibrate', split: 'test', score: 2, solutionSha256: sha(2)}),
      run(6, {kind: 'calibrate', status: 'error', score: null, solutionSha256: sha(3)}),
    ];
    const spreads = baselineSpreads(runs);
    expect(spreads.map((s) => [s.split, s.runs, s.lo, s.hi])).toEqual([
      ['dev', 3, 0.9, 1.2],
      ['test', 1, 2, 2],
    ]);
    expect(spreads[0]!.mean).toBeCloseTo(31 / 30, 12);
    expect(spreads[0]!.solutionSha256).toBe(sha(2));
  });

  it('charts one aligned column per series, bands naming their upper and lower edge', () => {
    const runs = [run(7, {kind: 'calibrate', score: 1}), run(3, {score: 1.3, interval: [1.2, 1.4]}), run(5, {split: 'test', score: 1.1, interval: null}), run(9, {status: 'error', score: null})];
    const chart = chartData({history: scoreHistory(runs), baselines: baselineSpreads(runs)})!;
    expect(chart.runs).toEqual([3, 5, 7]);
    expect(chart.series.map((s) => `${s.role}:${s.split}`)).toEqual(['baseline-hi:dev', 'baseline-lo:dev', 'interval-hi:dev', 'interval-lo:dev', 'score:dev', 'score:test', 'calibrate:dev']);
    for (const s of chart.series) expect(s.values).toHaveLength(3);
    const column = (role: string, split = 'dev') => chart.series.find((s) => s.role === role && s.split === split)!.values;
    expect(column('score')).toEqual([1.3, null, null]);
    expect(column('score', 'test')).toEqual([null, 1.1, null]);
    expect(column('interval-hi')).toEqual([1.4, null, null]);
    expect(column('calibrate')).toEqual([null, null, 1]);
    expect(column('baseline-lo')).toEqual([1, 1, 1]);
    expect(chart.bands.map((b) => [chart.series[b.upper]!.role, chart.series[b.lower]!.role, b.role])).toEqual([
      ['baseline-hi', 'baseline-lo', 'baseline'],
      ['interval-hi', 'interval-lo', 'interval'],
    ]);
    expect(chartData({history: [], baselines: []})).toBeNull();
  });

  it("gives each entry the runs recorded under its name and counts the rest as other runs", () => {
    const model = buildReport({
      zoo: 'zoo',
      generated: '2026-03-01T00:00:00.000Z',
      arborVersion: '0.0.0',
      ledger: {path: '/tmp/runs.db', exists: true},
      entries: [
        {folder: 'a', name: 'a', verify: {dir: 'zoo/a', errors: 0, warnings: 0, findings: []}, exposure: {count: 1, budget: 5}},
        {folder: 'b', name: 'b', verify: {dir: 'zoo/b', errors: 0, warnings: 0, findings: []}, exposure: {count: 0, budget: null}},
      ],
      runs: [
        run(1, {benchmark: {path: '/zoo/a', name: 'a'}, metric: 'speedup'}),
        run(2, {benchmark: {path: '/zoo/a', name: 'a'}, kind: 'compare', compare: {verdict: 'worse', ratio: 0.8, interval: [0.7, 0.9], baselineSha256: sha(1), baselineRun: 1}}),
        run(3, {benchmark: {path: '/elsewhere/c', name: 'c'}}),
      ],
    });
    expect(model.ledger).toEqual({path: '/tmp/runs.db', exists: true, runs: 2, otherRuns: 1});
    expect(model.entries.map((e) => [e.folder, e.history.length, e.compares.length, e.metric])).toEqual([
      ['a', 1, 1, 'speedup'],
      ['b', 0, 0, null],
    ]);
    expect(model.entries[0]!.compares[0]).toMatchObject({id: 2, verdict: 'worse', ratio: 0.8, interval: [0.7, 0.9], baselineRun: 1});
  });
});
