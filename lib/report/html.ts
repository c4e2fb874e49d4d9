/**
 * The report as one self-contained HTML page: tables rendered here (readable
 * without scripts), the charts drawn in the page by the inlined chart library
 * from embedded JSON. Pure: the model and the library's text in, a string out.
 */
import type {Change} from '../ledger/changes.js';
import type {ChartLibrary} from './assets.js';
import {chartData, solutionColour, type ChartPanel} from './chart.js';
import type {BaselineSpread, CompareRow, EntryReport, ReportModel, ScoredRun, SolutionInfo, SplitScores, TestExposure} from './model.js';
import {pageScript} from './page-script.js';

/** Text as HTML (element content and quoted attribute values). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Script text that cannot end its `<script>` element early: `</script` and
 * `<!--` (which would switch the parser into its escaped state) get a backslash,
 * which leaves string, regex and comment contents meaning the same.
 */
export function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** Style text that cannot end its `<style>` element early. */
export function inlineStyle(css: string): string {
  return css.replace(/<\/(style)/gi, '\\3c/$1');
}

/**
 * JSON to embed in `<script type="application/json">`: `<`, `>` and `&` as
 * \u escapes (so no `</script>` or `<!--` can appear), and the two line
 * separators JavaScript once rejected in strings. JSON.parse reads it back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A score as the report and `benchmark runs` print it: four significant digits. */
export function formatNumber(value: number): string {
  return Number(value.toPrecision(4)).toString();
}

/** What the page script reads: each entry's panels by its index in the page, and the solutions' colours. */
export interface PageData {
  entries: {index: number; name: string; metric: string | null; colours: string[]; chart: ReturnType<typeof chartData>}[];
}

/** The data the page script reads: each entry's charts, by its index in the page. */
export function pageData(model: ReportModel): PageData {
  return {
    entries: model.entries.map((entry, index) => ({
      index,
      name: entry.name,
      metric: entry.metric,
      colours: entry.solutions.map((_, k) => solutionColour(k)),
      chart: chartData(entry),
    })),
  };
}

/** The whole page. */
export function renderReport(model: ReportModel, library: ChartLibrary): string {
  const title = `${model.name}: benchmark report`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="arbor ${escapeHtml(model.arborVersion)}">
<title>${escapeHtml(title)}</title>
<style>${inlineStyle(library.style)}</style>
<style>${inlineStyle(pageStyle)}</style>
</head>
<body>
<header>
<h1>${escapeHtml(model.name)}</h1>
${renderMeta(model, library)}
${renderNotices(model)}
</header>
<main>
${renderSummary(model)}
${model.entries
  .map((entry, index) => (entry.runs > 0 ? renderEntry(entry, index) : ''))
  .filter(Boolean)
  .join('\n')}
${renderEntriesWithoutRuns(model.entries)}
</main>
<script type="application/json" id="report-data">${jsonForScript(pageData(model))}</script>
<script>${inlineScript(library.script)}</script>
<script>${inlineScript(pageScript)}</script>
</body>
</html>
`;
}

function renderMeta(model: ReportModel, library: ChartLibrary): string {
  const counts = healthCounts(model.entries);
  return `<p class="meta">Benchmark report of the zoo <code>${escapeHtml(model.zoo)}</code>. ${plural(model.entries.length, 'entry', 'entries')}: ${counts}. ${plural(model.ledger.runs, 'run')} from the ledger <code>${escapeHtml(model.ledger.path)}</code>. Made ${escapeHtml(timeText(model.generated))} by arbor ${escapeHtml(model.arborVersion)}; charts by ${escapeHtml(library.name)} (${escapeHtml(library.license)}).</p>`;
}

function renderNotices(model: ReportModel): string {
  const notices: string[] = [];
  if (model.ledger.runs === 0) {
    const where = model.ledger.exists ? '' : ' (no ledger there yet)';
    notices.push(
      `<p class="notice" id="no-runs">No runs recorded yet in <code>${escapeHtml(model.ledger.path)}</code>${where}. Every entry is listed with its verify status; scores and charts appear after <code>arbor benchmark eval</code> runs.</p>`,
    );
  }
  if (model.ledger.otherRuns > 0) {
    const runs =
      model.ledger.otherRuns === 1 ? '1 run in this ledger belongs to a benchmark' : `${model.ledger.otherRuns} runs in this ledger belong to benchmarks`;
    notices.push(`<p class="notice">${runs} not in this zoo; they are not shown.</p>`);
  }
  if (model.entries.length === 0) notices.push('<p class="notice">This zoo has no entries.</p>');
  return notices.join('\n');
}

function renderSummary(model: ReportModel): string {
  const head = ['entry', 'verify', 'metric', 'dev latest', 'dev best', 'test latest', 'test best', 'test exposure']
    .map((h) => `<th scope="col">${h}</th>`)
    .join('');
  const rows = model.entries.map((entry, index) => {
    const split = (name: string) => entry.splits.find((s) => s.split === name);
    const cells = [
      `<th scope="row"><a href="#entry-${index}">${escapeHtml(entry.folder)}</a>${entry.name === entry.folder ? '' : ` <span class="aka">(${escapeHtml(entry.name)})</span>`}</th>`,
      renderHealthCell(entry),
      `<td>${entry.metric ? escapeHtml(entry.metric) : '<span class="none">-</span>'}</td>`,
      renderScoreCell(split('dev')?.latest ?? null, entry.solutions),
      renderScoreCell(split('dev')?.best ?? null, entry.solutions),
      renderScoreCell(split('test')?.latest ?? null, entry.solutions),
      renderScoreCell(split('test')?.best ?? null, entry.solutions),
      renderExposureCell(entry.exposure),
    ];
    return `<tr data-entry="${escapeHtml(entry.folder)}">${cells.join('')}</tr>`;
  });
  return `<section id="summary">
<h2>Entries</h2>
<div class="scroll"><table id="entries">
<thead><tr>${head}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>
<p class="note">A score reads <span class="score">score</span> <span class="ci">[low, high]</span> (its interval) <span class="run">#run</span> <span class="solution">solution</span>. Dev and test score different cases: their columns and charts are kept apart. Test exposure counts the distinct solutions scored on test against the plan's <code>test_budget</code>; it covers only the runs this ledger recorded.</p>
</section>`;
}

function renderHealthCell(entry: EntryReport): string {
  const h = entry.health;
  const status =
    h.status === 'broken'
      ? 'broken'
      : h.status === 'failing'
        ? `${plural(h.errors, 'error')}${h.warnings ? `, ${plural(h.warnings, 'warning')}` : ''}`
        : h.warnings
          ? `ok, ${plural(h.warnings, 'warning')}`
          : 'ok';
  const finding = h.firstFinding ? `<div class="finding">${escapeHtml(h.firstFinding)}</div>` : '';
  return `<td class="health ${h.status}"><span class="status">${escapeHtml(status)}</span>${finding}</td>`;
}

function renderScoreCell(run: ScoredRun | null, solutions?: readonly SolutionInfo[]): string {
  if (!run) return '<td class="score-cell"><span class="none">-</span></td>';
  const solution = solutions ? ` <span class="solution">${escapeHtml(solutionName(solutions, run.solutionSha256))}</span>` : '';
  if (run.score === null) return `<td class="score-cell"><span class="failed">error</span> <span class="run">#${run.id}</span>${solution}</td>`;
  const failed = run.status === 'failed' ? ' <span class="failed">failed</span>' : '';
  return `<td class="score-cell"><span class="score">${formatNumber(run.score)}</span>${intervalHtml(run.interval)} <span class="run">#${run.id}</span>${failed}${solution}</td>`;
}

/** A solution's name in its entry's catalogue (a digest's first 12 hex digits when it is not there). */
function solutionName(solutions: readonly SolutionInfo[], sha: string | null): string {
  return solutions.find((s) => s.sha256 === sha)?.name ?? (sha ? sha.slice(0, 12) : 'unknown solution');
}

function renderExposureCell(exposure: TestExposure): string {
  if (exposure.budget === null) return `<td class="exposure">${exposure.count}</td>`;
  const over = exposure.count > exposure.budget;
  return `<td class="exposure${over ? ' over' : ''}">${exposure.count} of ${exposure.budget}${over ? ' <span class="failed">over budget</span>' : ''}</td>`;
}

/**
 * The entries no run was recorded for, on one line (each name keeps its
 * `entry-N` anchor, so the table's links land on it) instead of a card each.
 */
function renderEntriesWithoutRuns(entries: readonly EntryReport[]): string {
  const none = entries.flatMap((entry, index) => (entry.runs > 0 ? [] : [`<span class="entry-name" id="entry-${index}">${escapeHtml(entry.folder)}</span>`]));
  if (none.length === 0) return '';
  const which = none.length === entries.length ? 'any entry' : plural(none.length, 'entry', 'entries');
  return `<section id="entries-without-runs">
<p class="empty">No runs recorded yet for ${which}: ${none.join(', ')}.</p>
</section>`;
}

function renderEntry(entry: EntryReport, index: number): string {
  const chart = chartData(entry);
  const charts = chart
    ? `<div class="panels">
${chart.panels.map((panel, k) => renderPanel(entry, panel, index, k)).join('\n')}
</div>
<p class="band-note">Score of each eval by ledger run, one line per solution (its colour in every panel), its interval shaded in that colour${entry.history.some((p) => p.kind === 'calibrate') ? '; open circles: calibrate runs' : ''}. The value beside a line and in the legend is its newest run; hover a run for the others.</p>`
    : `<p class="empty">No runs recorded yet for this entry.</p>`;
  const runs = entry.splits.map((s) => splitLine(s)).join(' ');
  return `<section class="entry" id="entry-${index}">
<h2>${escapeHtml(entry.folder)}</h2>
<p class="entry-meta">${runs}</p>
${renderSolutions(entry)}
${charts}
${entry.baselines.map((spread) => baselineNote(spread, entry.solutions)).join('\n')}
${renderCompares(entry.compares)}
${renderChanges(entry.changes, entry.solutions)}
</section>`;
}

/** One split's chart in its own figure: dev and test never share an axis. */
function renderPanel(entry: EntryReport, panel: ChartPanel, index: number, k: number): string {
  const caption =
    panel.split === 'test'
      ? `<strong>test</strong>: held-out cases, on an axis of its own; not comparable with dev's scores`
      : panel.split === 'dev'
        ? `<strong>dev</strong>: the published cases`
        : `<strong>${escapeHtml(panel.split)}</strong>`;
  const scale = panel.axis.scale === 'log' ? ' on a log axis (equal steps are equal ratios)' : '';
  const notDrawn = panel.notDrawn.length
    ? `<p class="band-note not-drawn">Not drawn on the log axis: ${panel.notDrawn.map((p) => `#${p.id} (${escapeHtml(p.solution)}, score ${formatNumber(p.score)})`).join(', ')}.</p>`
    : '';
  return `<figure class="panel" data-split="${escapeHtml(panel.split)}">
<figcaption>${caption}; ${escapeHtml(entry.metric ?? 'score')}${scale}</figcaption>
<div class="chart" id="chart-${index}-${k}" data-split="${escapeHtml(panel.split)}" data-scale="${panel.axis.scale}" role="img" aria-label="${escapeHtml(`${panel.split} scores over runs of ${entry.folder}`)}"></div>
${notDrawn}</figure>`;
}

/** Every solution of the entry: its name, digest and commit, and its latest and best eval on each split. */
function renderSolutions(entry: EntryReport): string {
  if (entry.solutions.length === 0) return '';
  const splits = ['dev', 'test'];
  const head = ['solution', 'digest', 'commit', ...splits.flatMap((s) => [`${s} latest`, `${s} best`])].map((h) => `<th scope="col">${h}</th>`).join('');
  const rows = entry.solutions.map((solution, k) => {
    const scores = (split: string) => solution.splits.find((s) => s.split === split);
    const calibrated = solution.calibrations ? ` <span class="aka">(${plural(solution.calibrations, 'calibrate run')})</span>` : '';
    const commit = solution.git
      ? `<code>${escapeHtml(solution.git.commit.slice(0, 12))}</code>${solution.git.dirty ? ' <span class="aka">dirty</span>' : ''}`
      : '<span class="none">-</span>';
    const cells = [
      `<th scope="row"><span class="swatch" style="background:${solutionColour(k)}"></span>${escapeHtml(solution.name)}${calibrated}</th>`,
      `<td><code class="sha">${shaText(solution.sha256)}</code></td>`,
      `<td>${commit}</td>`,
      ...splits.flatMap((split) => [renderScoreCell(scores(split)?.latest ?? null), renderScoreCell(scores(split)?.best ?? null)]),
    ];
    return `<tr data-solution="${escapeHtml(solution.name)}">${cells.join('')}</tr>`;
  });
  return `<div class="scroll"><table class="solutions">
<thead><tr>${head}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>`;
}

function splitLine(s: SplitScores): string {
  return `<span class="split-runs">${escapeHtml(s.split)}: ${plural(s.evals, 'eval')}</span>`;
}

function baselineNote(spread: BaselineSpread, solutions: readonly SolutionInfo[]): string {
  const sha = ` of <span class="solution">${escapeHtml(solutionName(solutions, spread.solutionSha256))}</span>`;
  return `<p class="band-note">Grey band: the baseline's spread on ${escapeHtml(spread.split)}, from the lowest to the highest score of ${plural(spread.runs, 'calibrate run')}${sha} (${formatNumber(spread.lo)} to ${formatNumber(spread.hi)}, mean ${formatNumber(spread.mean)}).</p>`;
}

/** Verdicts a ledger holds; anything else (a hand-edited database) is shown escaped, never as a class name. */
const knownVerdicts = new Set(['better', 'worse', 'same']);

function renderCompares(compares: readonly CompareRow[]): string {
  if (compares.length === 0) return '';
  const rows = compares.map(
    (c) =>
      `<tr><td>#${c.id}</td><td>${escapeHtml(timeText(c.time))}</td><td>${escapeHtml(c.split)}</td><td class="verdict ${knownVerdicts.has(c.verdict) ? c.verdict : 'unknown'}">${escapeHtml(c.verdict)}</td>` +
      `<td>${c.ratio === null ? '-' : `x${formatNumber(c.ratio)}`}${intervalHtml(c.interval)}</td>` +
      `<td class="side candidate"><span class="solution">${escapeHtml(c.candidateName)}</span> <code class="sha">${shaText(c.candidateSha256)}</code></td>` +
      `<td class="side baseline"><span class="solution">${escapeHtml(c.baselineName)}</span> <code class="sha">${shaText(c.baselineSha256)}</code></td></tr>`,
  );
  return `<h3>Compare verdicts</h3>
<div class="scroll"><table class="compares">
<thead><tr><th scope="col">run</th><th scope="col">time</th><th scope="col">split</th><th scope="col">verdict</th><th scope="col">candidate / baseline</th><th scope="col">candidate</th><th scope="col">baseline</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>`;
}

/** The steps `runs --changes` finds, each with the runs on either side. */
function renderChanges(changes: readonly Change[], solutions: EntryReport['solutions']): string {
  if (changes.length === 0) return '';
  const lineage = (c: Change) =>
    c.lineage === 'commits' ? 'clean commits' : escapeHtml(solutions.find((s) => s.sha256 === c.solutionSha256)?.name ?? shaText(c.solutionSha256));
  const side = (run: Change['before']['run']) =>
    `#${run.id} <span class="ci">${escapeHtml(timeText(run.time))}${run.git ? ` ${escapeHtml(run.git.commit.slice(0, 10))}${run.git.dirty ? '+dirty' : ''}` : ''}</span>`;
  const rows = changes.map(
    (c) =>
      `<tr><td>${escapeHtml(c.split)}</td><td>${lineage(c)}</td><td class="verdict ${c.direction === 'regression' ? 'worse' : 'better'}">${c.direction}</td>` +
      `<td>x${formatNumber(c.ratio)}${intervalHtml(c.interval)}</td><td>${side(c.before.run)} (${c.before.runs} at ${formatNumber(c.before.level)})</td>` +
      `<td>${side(c.after.run)} (${c.after.runs} at ${formatNumber(c.after.level)})${c.environmentChanged ? ' <span class="ci">environment changed</span>' : ''}</td></tr>`,
  );
  return `<h3>Regressions and improvements</h3>
<div class="scroll"><table class="changes">
<thead><tr><th scope="col">split</th><th scope="col">series</th><th scope="col">step</th><th scope="col">after / before</th><th scope="col">last run before</th><th scope="col">first run after</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>`;
}

function intervalHtml(interval: [number, number] | null): string {
  return interval ? ` <span class="ci">[${formatNumber(interval[0])}, ${formatNumber(interval[1])}]</span>` : '';
}

function healthCounts(entries: readonly EntryReport[]): string {
  const count = (status: EntryReport['health']['status']) => entries.filter((e) => e.health.status === status).length;
  const parts = [`${count('ok')} ok`];
  if (count('failing')) parts.push(`${count('failing')} failing verify`);
  if (count('broken')) parts.push(`${count('broken')} broken`);
  return parts.join(', ');
}

function shaText(sha: string | null): string {
  return sha ? escapeHtml(sha.slice(0, 12)) : '-';
}

function timeText(iso: string): string {
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** The page's own styles (uPlot's come first). */
const pageStyle = `
:root { color-scheme: light; --ink: #1e293b; --muted: #64748b; --line: #e2e8f0; --ok: #15803d; --bad: #b91c1c; --warn: #b45309; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f8fafc; }
header, main { max-width: 1240px; margin: 0 auto; padding: 0 20px; }
#entries thead th { white-space: normal; }
#entries tbody th .aka { display: block; font-weight: 400; }
#entries .finding { max-width: 18rem; }
.solutions tbody th { white-space: normal; overflow-wrap: anywhere; min-width: 12rem; }
header { padding-top: 20px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.25rem; margin: 0 0 6px; }
h3 { font-size: 1rem; margin: 14px 0 6px; }
code { font: 0.9em ui-monospace, SFMono-Regular, Menlo, monospace; }
.meta, .note, .entry-meta, .band-note { color: var(--muted); font-size: 0.9rem; }
.notice { background: #fff7ed; border: 1px solid #fed7aa; padding: 8px 12px; border-radius: 6px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 14px 16px; margin: 16px 0; }
table { border-collapse: collapse; width: 100%; font-size: 0.9rem; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
thead th { color: var(--muted); font-weight: 600; white-space: nowrap; }
tbody th { font-weight: 600; white-space: nowrap; }
a { color: #1d4ed8; text-decoration: none; }
a:hover { text-decoration: underline; }
.aka, .none, .run, .ci { color: var(--muted); }
.score { font-weight: 600; font-variant-numeric: tabular-nums; }
.score-cell { min-width: 6.5rem; }
.scroll { overflow-x: auto; }
.health.ok .status { color: var(--ok); font-weight: 600; }
.health.failing .status, .health.broken .status { color: var(--bad); font-weight: 600; }
.finding { color: var(--muted); font: 0.8rem ui-monospace, SFMono-Regular, Menlo, monospace; max-width: 26rem; overflow-wrap: anywhere; }
.failed, .verdict.worse { color: var(--bad); font-weight: 600; }
.verdict.better { color: var(--ok); font-weight: 600; }
.verdict.same { color: var(--muted); font-weight: 600; }
.exposure.over { color: var(--bad); }
.split-runs { margin-right: 1em; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(440px, 1fr)); gap: 12px; margin: 8px 0; }
.panel { margin: 0; min-width: 0; border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
.panel figcaption { font-size: 0.9rem; color: var(--muted); }
.panel figcaption strong { color: var(--ink); }
.chart { min-height: 300px; margin: 4px 0; }
.solution { font-weight: 600; }
.score-cell .solution { font-weight: 400; color: var(--muted); margin-left: 0.3em; overflow-wrap: anywhere; }
.sha { color: var(--muted); font-size: 0.8em; }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; border-radius: 2px; margin-right: 0.45em; vertical-align: -0.05em; }
.u-legend .u-value { font-variant-numeric: tabular-nums; }
.panel .uplot, .panel .u-legend { max-width: 100%; }
.panel .u-legend th { white-space: normal; }
.panel .u-legend .u-label { overflow-wrap: anywhere; }
.chart-error { color: var(--bad); }
.empty { color: var(--muted); font-style: italic; }
.empty .entry-name { font-style: normal; font-weight: 600; color: var(--ink); }
`;
