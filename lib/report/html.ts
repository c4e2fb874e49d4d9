/**
 * The report as one self-contained HTML page: tables rendered here (readable
 * without scripts), the charts drawn in the page by the inlined chart library
 * from embedded JSON. Pure: the model and the library's text in, a string out.
 */
import type {Change} from '../ledger/changes.js';
import type {HarnessCeiling} from '../ledger/floor.js';
import type {ChartLibrary} from './assets.js';
import {chartData, solutionColour, type ChartPanel} from './chart.js';
import type {BaselineSpread, CompareRow, EntryReport, ReportModel, ScoredRun, SolutionInfo, SplitScores, TestExposure} from './model.js';
import {pageScript} from './page-script.js';
import {pageStyle} from './style.js';

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
function inlineStyle(css: string): string {
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
function formatNumber(value: number): string {
  return Number(value.toPrecision(4)).toString();
}

/** What the page script reads: each entry's panels by its index in the page, and the solutions' colours. */
interface PageData {
  entries: {index: number; name: string; metric: string | null; colours: string[]; chart: ReturnType<typeof chartData>}[];
}

/** The data the page script reads: each entry's charts, by its index in the page. */
function pageData(model: ReportModel): PageData {
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
  return `<p class="meta">Benchmark report of the zoo <code>${escapeHtml(model.name)}</code>. ${plural(model.entries.length, 'entry', 'entries')}: ${counts}. ${plural(model.ledger.runs, 'run')} from the ledger <code title="${escapeHtml(model.ledger.path)}">${escapeHtml(model.ledger.shown)}</code>. Made ${escapeHtml(timeText(model.generated))} by arbor ${escapeHtml(model.arborVersion)}; charts by ${escapeHtml(library.name)} (${escapeHtml(library.license)}).</p>`;
}

function renderNotices(model: ReportModel): string {
  const notices: string[] = [];
  if (model.ledger.runs === 0) {
    const where = model.ledger.exists ? '' : ' (no ledger there yet)';
    notices.push(
      `<p class="notice" id="no-runs">No runs recorded yet in <code title="${escapeHtml(model.ledger.path)}">${escapeHtml(model.ledger.shown)}</code>${where}. Every entry is listed with its verify status; scores and charts appear after <code>arbor benchmark eval</code> runs.</p>`,
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

/** The entries table's columns: each cell carries its header as `data-label`, which labels it on a narrow screen's card. */
const summaryColumns = [
  ['entry', 'entry'],
  ['verify', 'verify'],
  ['metric', 'metric'],
  ['dev latest', 'score'],
  ['dev best', 'score'],
  ['test latest', 'score'],
  ['test best', 'score'],
  ['test exposure', 'exposure'],
] as const;

function renderSummary(model: ReportModel): string {
  const head = summaryColumns.map(([h]) => `<th scope="col">${h}</th>`).join('');
  const cols = summaryColumns.map(([, kind]) => `<col class="${kind}">`).join('');
  const rows = model.entries.map((entry, index) => {
    const split = (name: string) => entry.splits.find((s) => s.split === name);
    const aka = entry.name === entry.folder ? '' : ` (${entry.name})`;
    const cells = [
      `<th scope="row" title="${escapeHtml(entry.folder + aka)}"><a href="#entry-${index}">${escapeHtml(entry.folder)}</a>${aka ? ` <span class="aka">${escapeHtml(aka.trim())}</span>` : ''}</th>`,
      renderHealthCell(entry),
      entry.metric ? `<td data-label="metric">${escapeHtml(entry.metric)}</td>` : '<td class="blank" data-label="metric"><span class="none">-</span></td>',
      renderScoreCell(split('dev')?.latest ?? null, entry.solutions, 'dev latest', split('dev')?.ceiling),
      renderScoreCell(split('dev')?.best ?? null, entry.solutions, 'dev best'),
      renderScoreCell(split('test')?.latest ?? null, entry.solutions, 'test latest', split('test')?.ceiling),
      renderScoreCell(split('test')?.best ?? null, entry.solutions, 'test best'),
      renderExposureCell(entry.exposure),
    ];
    return `<tr data-entry="${escapeHtml(entry.folder)}">${cells.join('')}</tr>`;
  });
  return `<section id="summary">
<h2>Entries</h2>
<div class="scroll"><table id="entries" class="cards">
<colgroup>${cols}</colgroup>
<thead><tr>${head}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>
<p class="note">A score reads <span class="score">score</span> <span class="ci">[low, high]</span> (its interval) <span class="run">#run</span> <span class="solution">solution</span>; a clipped one shows whole on hover. Dev and test score different cases: their columns and charts are kept apart. Test exposure counts the distinct solutions scored on test against the plan's <code>test_budget</code>; it covers only the runs this ledger recorded.</p>
</section>`;
}

/**
 * The verify cell on one line: the status and, when verify found anything,
 * its first finding's message; the toggle (a <details>, no script) opens every
 * finding as verify prints it.
 */
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
  const open = `<td class="health ${h.status}" data-label="verify">`;
  if (!h.reason) return `${open}<span class="status">${escapeHtml(status)}</span></td>`;
  const findings = h.findings.map((f) => `<li>${escapeHtml(f)}</li>`).join('');
  return `${open}<details><summary title="${escapeHtml(h.firstFinding ?? h.reason)}"><span class="status">${escapeHtml(status)}</span><span class="reason">${escapeHtml(h.reason)}</span></summary><ul class="findings">${findings}</ul></details></td>`;
}

/** A score cell; `label` (the entries table's) also names it on a narrow screen and gives its whole text on hover. */
function renderScoreCell(run: ScoredRun | null, solutions?: readonly SolutionInfo[], label?: string, ceiling?: HarnessCeiling | null): string {
  const attrs = (text: string) => (label ? ` data-label="${label}" title="${escapeHtml(text)}"` : '');
  // `blank`: a narrow screen's card leaves the cell out.
  if (!run) return `<td class="score-cell blank"${label ? ` data-label="${label}"` : ''}><span class="none">-</span></td>`;
  const name = solutions ? solutionName(solutions, run.solutionSha256) : '';
  const solution = solutions ? ` <span class="solution">${escapeHtml(name)}</span>` : '';
  if (run.score === null)
    return `<td class="score-cell"${attrs(`error #${run.id} ${name}`)}><span class="failed">error</span> <span class="run">#${run.id}</span>${solution}</td>`;
  const failed = run.status === 'failed' ? ' <span class="failed">failed</span>' : '';
  const interval = run.interval ? ` [${formatNumber(run.interval[0])}, ${formatNumber(run.interval[1])}]` : '';
  // The harness's ceiling beside a latest speedup: a score near it is capped by the harness, not the solution.
  const cap = ceiling ? ` max ${formatNumber(ceiling.maxSpeedup)}` : '';
  const capHtml = ceiling
    ? ` <span class="ceiling" title="${escapeHtml(`the largest speedup this split can show: ${formatNumber(ceiling.floorSeconds * 1e6)} µs of each case is the harness's (run #${ceiling.runId})`)}">max ${formatNumber(ceiling.maxSpeedup)}</span>`
    : '';
  const text = `${formatNumber(run.score)}${interval} #${run.id}${failed ? ' failed' : ''}${cap} ${name}`.trim();
  return `<td class="score-cell"${attrs(text)}><span class="score">${formatNumber(run.score)}</span>${intervalHtml(run.interval)} <span class="run">#${run.id}</span>${failed}${capHtml}${solution}</td>`;
}

/** A solution's name in its entry's catalogue (a digest's first 12 hex digits when it is not there). */
function solutionName(solutions: readonly SolutionInfo[], sha: string | null): string {
  return solutions.find((s) => s.sha256 === sha)?.name ?? (sha ? sha.slice(0, 12) : 'unknown solution');
}

function renderExposureCell(exposure: TestExposure): string {
  if (exposure.budget === null) return `<td class="exposure" data-label="test exposure">${exposure.count}</td>`;
  const over = exposure.count > exposure.budget;
  return `<td class="exposure${over ? ' over' : ''}" data-label="test exposure">${exposure.count} of ${exposure.budget}${over ? ' <span class="failed">over budget</span>' : ''}</td>`;
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
${charts}
${renderSolutions(entry)}
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
  const heads = ['solution', 'digest', 'commit', ...splits.flatMap((s) => [`${s} latest`, `${s} best`])];
  const head = heads.map((h) => `<th scope="col">${h}</th>`).join('');
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
    return labelRow(`<tr data-solution="${escapeHtml(solution.name)}">${cells.join('')}</tr>`, heads);
  });
  return `<div class="scroll"><table class="solutions cards">
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
  const heads = ['run', 'time', 'split', 'verdict', 'candidate / baseline', 'candidate', 'baseline'];
  const rows = compares.map((c) =>
    labelRow(
      `<tr><td>#${c.id}</td><td>${escapeHtml(timeText(c.time))}</td><td>${escapeHtml(c.split)}</td><td class="verdict ${knownVerdicts.has(c.verdict) ? c.verdict : 'unknown'}">${escapeHtml(c.verdict)}</td>` +
        `<td>${c.ratio === null ? '-' : `x${formatNumber(c.ratio)}`}${intervalHtml(c.interval)}</td>` +
        `<td class="side candidate"><span class="solution">${escapeHtml(c.candidateName)}</span> <code class="sha">${shaText(c.candidateSha256)}</code></td>` +
        `<td class="side baseline"><span class="solution">${escapeHtml(c.baselineName)}</span> <code class="sha">${shaText(c.baselineSha256)}</code></td></tr>`,
      heads,
    ),
  );
  return `<h3>Compare verdicts</h3>
<div class="scroll"><table class="compares cards">
<thead><tr>${heads.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead>
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
  const heads = ['split', 'series', 'step', 'after / before', 'last run before', 'first run after'];
  const rows = changes.map((c) =>
    labelRow(
      `<tr><td>${escapeHtml(c.split)}</td><td>${lineage(c)}</td><td class="verdict ${c.direction === 'regression' ? 'worse' : 'better'}">${c.direction}</td>` +
        `<td>x${formatNumber(c.ratio)}${intervalHtml(c.interval)}</td><td>${side(c.before.run)} (${c.before.runs} at ${formatNumber(c.before.level)})</td>` +
        `<td>${side(c.after.run)} (${c.after.runs} at ${formatNumber(c.after.level)})${c.environmentChanged ? ' <span class="ci">environment changed</span>' : ''}</td></tr>`,
      heads,
    ),
  );
  return `<h3>Regressions and improvements</h3>
<div class="scroll"><table class="changes cards">
<thead><tr>${heads.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table></div>`;
}

/**
 * A table row with each cell labelled by its column's header (`data-label`),
 * which names the cell on a narrow screen's card. Cells are the row's own
 * `<td` and `<th` tags: cell text is escaped, so none hides inside another.
 */
function labelRow(row: string, heads: readonly string[]): string {
  let k = 0;
  return row.replace(/<t[dh](?=[\s>])[^>]*/g, (tag) => (k < heads.length ? `${tag} data-label="${escapeHtml(heads[k++]!)}"` : tag));
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
