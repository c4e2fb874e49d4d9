import path from 'node:path';
import {describe, expect, it} from 'vitest';
import type {LedgerRun, RunRecord} from '../../lib/ledger/index.js';
import {
  axisFor,
  baselineSpreads,
  buildReport,
  chartData,
  compareRows,
  entryHealth,
  entryReport,
  ledgerShown,
  linearTicks,
  logTicks,
  solutionCatalogue,
  zooName,
  escapeHtml,
  inlineScript,
  jsonForScript,
  renderReport,
  splitScores,
  type ChartLibrary,
} from '../../lib/report/index.js';
import {sampleRecord, sha} from '../ledger/helpers.js';

/** A stored run: the record with an id (and its time from the id, so the order is the id's). */
function run(id: number, overrides: Partial<RunRecord> = {}): LedgerRun {
  const compare = overrides.compare ? {...overrides.compare, baselineLabel: overrides.compare.baselineLabel ?? null} : null;
  return {
    ...sampleRecord(overrides),
    id,
    time: new Date(Date.UTC(2026, 2, 1, 0, id)).toISOString(),
    solutionLabel: overrides.solutionLabel ?? null,
    labelKind: overrides.labelKind ?? null,
    compare,
    importedFrom: null,
  };
}

/** An entry's report from runs alone (a clean verify, no budget). */
function entryOf(runs: LedgerRun[]) {
  return entryReport({folder: 'knn', name: 'knn', verify: {dir: 'zoo/knn', errors: 0, warnings: 0, findings: []}, exposure: {count: 0, budget: null}}, runs);
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
      reason: 'an error',
      findings: ['zoo/a/eval.sh:3:1: error: an error (e)', 'zoo/a/README.md: warning: a warning (w)'],
    });
    expect(entryHealth({dir: 'zoo/a', errors: 0, warnings: 1, findings: [warning]}).firstFinding).toBe('zoo/a/README.md: warning: a warning (w)');
    expect(entryHealth({dir: 'zoo/a', errors: 0, warnings: 0, findings: []})).toEqual({
      status: 'ok',
      errors: 0,
      warnings: 0,
      firstFinding: null,
      reason: null,
      findings: [],
    });
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
    expect(test).toEqual({split: 'test', evals: 0, latest: null, best: null, ceiling: null});
  });

  it('under direction = "minimize" the best eval is the lowest score, for the entry and for each solution', () => {
    const runs = [run(1, {score: 0.3}), run(2, {score: 0.1}), run(3, {score: 0.2})];
    expect(splitScores(runs, true)[0]).toMatchObject({best: {id: 2, score: 0.1}, latest: {id: 3}});
    const entry = entryReport(
      {folder: 'approx', name: 'knn', verify: {dir: 'zoo/approx', errors: 0, warnings: 0, findings: []}, exposure: {count: 0, budget: null}, minimize: true},
      runs,
    );
    expect(entry.splits[0]).toMatchObject({best: {id: 2, score: 0.1}});
    expect(entry.solutions[0]!.splits[0]).toMatchObject({best: {id: 2, score: 0.1}});
    expect(entryOf(runs).splits[0]).toMatchObject({best: {id: 1, score: 0.3}});
  });

  it('draws the baseline band from the calibrate runs of the solution calibrated last, per split', () => {
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

  it('charts each split in its own panel, one aligned column per solution, bands naming their upper and lower edge', () => {
    // No labels and no git state: each solution is named by its digest.
    const runs = [
      run(7, {kind: 'calibrate', score: 1, solutionSha256: sha(9), git: null}),
      run(3, {score: 1.3, interval: [1.2, 1.4], solutionSha256: sha(1), git: null}),
      run(4, {score: 1.1, interval: null, solutionSha256: sha(9), git: null}),
      run(5, {split: 'test', score: 1.1, interval: null, solutionSha256: sha(1), git: null}),
      run(9, {status: 'error', score: null, git: null}),
    ];
    const chart = chartData(entryOf(runs))!;
    expect(chart.panels.map((p) => [p.split, p.runs])).toEqual([
      ['dev', [3, 4, 7]],
      ['test', [5]],
    ]);
    const [dev, test] = chart.panels;
    expect(dev!.series.map((s) => `${s.role}:${s.label}`)).toEqual([
      'baseline-hi:baseline spread high (999999999999)',
      'baseline-lo:baseline spread low (999999999999)',
      'interval-hi:111111111111 interval high',
      'interval-lo:111111111111 interval low',
      'score:111111111111',
      'score:999999999999',
      'calibrate:calibrate: 999999999999',
    ]);
    for (const s of dev!.series) expect(s.values).toHaveLength(3);
    const column = (role: string, label: string) => dev!.series.find((s) => s.role === role && s.label === label)!.values;
    expect(column('score', '111111111111')).toEqual([1.3, null, null]);
    expect(column('score', '999999999999')).toEqual([null, 1.1, null]);
    expect(column('interval-hi', '111111111111 interval high')).toEqual([1.4, null, null]);
    expect(column('calibrate', 'calibrate: 999999999999')).toEqual([null, null, 1]);
    expect(column('baseline-lo', 'baseline spread low (999999999999)')).toEqual([1, 1, 1]);
    expect(dev!.bands.map((b) => [dev!.series[b.upper]!.role, dev!.series[b.lower]!.role, b.role])).toEqual([
      ['baseline-hi', 'baseline-lo', 'baseline'],
      ['interval-hi', 'interval-lo', 'interval'],
    ]);
    // The test panel has its own runs and axis, and the solution keeps its colour (its index in the entry).
    expect(test!.series.map((s) => [s.role, s.label, s.solution, s.values])).toEqual([['score', '111111111111', 0, [1.1]]]);
    expect(dev!.series.filter((s) => s.role === 'score').map((s) => s.solution)).toEqual([0, 1]);
    expect(chartData(entryOf([]))).toBeNull();
  });

  it('does not join two solutions in one line: re-running the baseline after a 39x solution is a point of the baseline', () => {
    const runs = [
      run(1, {score: 1.0, solutionSha256: sha(9), solutionLabel: 'solution.py'}),
      run(2, {score: 39.2, interval: [37.5, 41], solutionSha256: sha(3), solutionLabel: '../fast.py'}),
      run(3, {score: 0, interval: null, status: 'failed', solutionSha256: sha(2), solutionLabel: '../broken.py'}),
      run(4, {score: 0.99, interval: [0.96, 1.02], solutionSha256: sha(9), solutionLabel: 'solution.py'}),
    ];
    const [dev] = chartData(entryOf(runs))!.panels;
    const scores = dev!.series.filter((s) => s.role === 'score');
    expect(scores.map((s) => [s.label, s.values, s.summary, s.last])).toEqual([
      ['solution.py', [1, null, null, 0.99], '0.99 [0.96, 1.02] #4', {index: 3, value: 0.99}],
      ['../fast.py', [null, 39.2, null, null], '39.2 [37.5, 41] #2', {index: 1, value: 39.2}],
      ['../broken.py', [null, null, null, null], '0 failed #3', null],
    ]);
    // A speedup's axis is logarithmic; a failed eval's 0 cannot sit on it and is named instead.
    expect(dev!.axis.scale).toBe('log');
    expect(dev!.axisLabel).toBe('speedup (log scale)');
    expect(dev!.notDrawn).toEqual([{id: 3, score: 0, solution: '../broken.py'}]);
    expect(dev!.axis.min).toBeLessThan(0.96);
    expect(dev!.axis.max).toBeGreaterThan(41);
    expect(dev!.axis.ticks).toEqual([1, 2, 5, 10, 20, 50]);
  });

  it('keeps a linear axis for accuracy, failed evals drawn at 0', () => {
    const runs = [
      run(1, {metric: 'accuracy', score: 0.633, interval: null}),
      run(2, {metric: 'accuracy', score: 0, status: 'failed', interval: null, solutionSha256: sha(2)}),
    ];
    const [dev] = chartData(entryOf(runs))!.panels;
    expect(dev!.axis).toMatchObject({scale: 'linear', min: 0});
    expect(dev!.axisLabel).toBe('accuracy');
    expect(dev!.notDrawn).toEqual([]);
    expect(dev!.series.filter((s) => s.role === 'score').map((s) => s.values)).toEqual([
      [0.633, null],
      [null, 0],
    ]);
  });

  it('puts log ticks at round numbers: decades over a wide range, finer steps over a narrow one, linear ones within a few percent', () => {
    expect(logTicks(0.9, 45)).toEqual([1, 2, 5, 10, 20]);
    expect(logTicks(0.5, 2000)).toEqual([1, 10, 100, 1000]);
    expect(logTicks(0.8, 3)).toEqual([1, 1.5, 2, 3]);
    expect(logTicks(0.95, 1.6)).toEqual([1, 1.2, 1.4, 1.6]);
    expect(logTicks(1.0, 1.06)).toEqual(linearTicks(1.0, 1.06));
    expect(logTicks(1e-3, 1e9).length).toBeLessThanOrEqual(8);
    expect(linearTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(linearTicks(0.62, 0.72)).toEqual([0.62, 0.64, 0.66, 0.68, 0.7, 0.72]);
    const narrow = axisFor('log', [1.0, 1.01]);
    expect(narrow.ticks.length).toBeGreaterThanOrEqual(3);
    expect(narrow.ticks.every((t) => t >= narrow.min && t <= narrow.max)).toBe(true);
  });

  it('names each solution by its label, else the commit its runs share, else its digest; a shared name gets the digest', () => {
    const runs = [
      run(1, {solutionSha256: sha(9), solutionLabel: 'solution.py'}),
      run(2, {solutionSha256: sha(2), solutionLabel: 'solution.py', git: {commit: 'c'.repeat(40), dirty: true}}),
      run(10, {solutionSha256: sha(2), solutionLabel: 'solution.py', git: null}),
      run(3, {solutionSha256: sha(4), git: {commit: 'd'.repeat(40), dirty: false}}),
      run(4, {solutionSha256: sha(5), git: {commit: 'd'.repeat(40), dirty: false}}),
      run(5, {solutionSha256: sha(5), git: {commit: 'e'.repeat(40), dirty: false}}),
      run(6, {solutionSha256: sha(6), git: {commit: 'f'.repeat(40), dirty: true}}),
      run(7, {
        kind: 'compare',
        solutionSha256: sha(6),
        git: {commit: 'f'.repeat(40), dirty: false},
        compare: {verdict: 'better', ratio: 2, interval: null, baselineSha256: sha(7), baselineRun: null, baselineLabel: '../old.py'},
      }),
      run(8, {
        kind: 'compare',
        solutionSha256: sha(6),
        git: {commit: 'f'.repeat(40), dirty: false},
        compare: {verdict: 'same', ratio: 1, interval: null, baselineSha256: sha(8), baselineRun: 5, baselineLabel: 'ledger run #5'},
      }),
      run(9, {solutionSha256: null, git: null}),
    ];
    expect(solutionCatalogue(runs).map((s) => [s.sha256?.slice(0, 1) ?? null, s.name, s.runs, s.firstRun])).toEqual([
      ['9', 'solution.py · 99999999', 1, 1],
      ['2', 'solution.py · 22222222', 2, 2],
      ['4', 'commit dddddddddddd', 1, 3],
      ['5', '555555555555', 2, 4],
      ['6', 'commit ffffffffffff (dirty)', 3, 6],
      ['7', '../old.py', 0, 7],
      ['8', '888888888888', 0, 8],
      [null, 'unknown solution', 1, 9],
    ]);
    // The same bytes under two names: the newest name wins.
    expect(solutionCatalogue([run(1, {solutionLabel: 'a.py'}), run(2, {solutionLabel: 'b.py'}), run(3, {solutionLabel: null})]).map((s) => s.name)).toEqual([
      'b.py',
    ]);
  });

  it('names both sides of a compare: its recorded labels, else the solution names; a reused run with its solution', () => {
    const runs = [
      run(1, {solutionSha256: sha(1), solutionLabel: 'solution.py'}),
      run(2, {
        kind: 'compare',
        solutionSha256: sha(3),
        solutionLabel: 'commit 1a2b3c4d5e6f (HEAD~1)',
        compare: {verdict: 'better', ratio: 2, interval: null, baselineSha256: sha(1), baselineRun: null, baselineLabel: 'solution.py'},
      }),
      run(3, {
        kind: 'compare',
        solutionSha256: sha(3),
        compare: {verdict: 'worse', ratio: 0.5, interval: null, baselineSha256: sha(1), baselineRun: 1, baselineLabel: 'ledger run #1'},
      }),
      run(4, {kind: 'compare', solutionSha256: sha(4), compare: {verdict: 'same', ratio: 1, interval: null, baselineSha256: sha(1), baselineRun: 1}}),
    ];
    expect(compareRows(runs).map((c) => [c.id, c.candidateName, c.baselineName])).toEqual([
      [4, 'commit 111111111111', 'ledger run #1 (solution.py)'],
      [3, 'commit 1a2b3c4d5e6f (HEAD~1)', 'ledger run #1 (solution.py)'],
      [2, 'commit 1a2b3c4d5e6f (HEAD~1)', 'solution.py'],
    ]);
  });

  it('gives each entry the runs recorded under its name and counts the rest as other runs', () => {
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
        run(2, {
          benchmark: {path: '/zoo/a', name: 'a'},
          kind: 'compare',
          compare: {verdict: 'worse', ratio: 0.8, interval: [0.7, 0.9], baselineSha256: sha(1), baselineRun: 1},
        }),
        run(3, {benchmark: {path: '/elsewhere/c', name: 'c'}}),
      ],
    });
    expect(model.ledger).toEqual({path: '/tmp/runs.db', shown: '/tmp/runs.db', exists: true, runs: 2, otherRuns: 1});
    expect(model.name).toBe('zoo');
    expect(model.entries.map((e) => [e.folder, e.history.length, e.compares.length, e.metric])).toEqual([
      ['a', 1, 1, 'speedup'],
      ['b', 0, 0, null],
    ]);
    expect(model.entries[0]!.compares[0]).toMatchObject({id: 2, verdict: 'worse', ratio: 0.8, interval: [0.7, 0.9], baselineRun: 1});
  });
});

describe('the title', () => {
  it("is the zoo's name: the one given, else the zoo folder's, never `.`", () => {
    const base = {zoo: '.', generated: '2026-03-01T00:00:00.000Z', arborVersion: '0.0.0', ledger: {path: '/tmp/runs.db', exists: false}, entries: [], runs: []};
    expect(buildReport({...base, name: 'my-zoo'}).name).toBe('my-zoo');
    expect(buildReport(base).name).toBe(path.basename(process.cwd()));
    expect(zooName('zoo')).toBe('zoo');
    expect(zooName('/srv/benchmarks/my-zoo/')).toBe('my-zoo');
    expect(zooName('..')).toBe(path.basename(path.resolve('..')));
    const html = renderReport(buildReport({...base, name: 'my-zoo'}), library);
    expect(html).toContain('<title>my-zoo: benchmark report</title>');
    expect(html).toContain('<h1>my-zoo</h1>');
  });
});

describe('the ledger as the page names it', () => {
  it('is relative to the zoo folder, unless that climbs more than two folders', () => {
    expect(ledgerShown('/srv/lab/zoo/.arbor/runs.db', '/srv/lab/zoo')).toBe(path.join('.arbor', 'runs.db'));
    expect(ledgerShown('/srv/lab/.arbor/runs.db', '/srv/lab/zoo')).toBe(path.join('..', '.arbor', 'runs.db'));
    expect(ledgerShown('/srv/runs.db', '/srv/lab/zoo')).toBe(path.join('..', '..', 'runs.db'));
    expect(ledgerShown('/home/me/.local/share/arbor/runs.db', '/srv/lab/zoo')).toBe('/home/me/.local/share/arbor/runs.db');
  });
});
