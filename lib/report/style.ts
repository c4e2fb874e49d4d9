/**
 * The report page's own styles (uPlot's come first). The entries table keeps
 * one line per entry (a first screen shows every entry and the first chart):
 * fixed columns, each cell clipped with an ellipsis, a failing verify's whole
 * text behind its <details> toggle. Below 640 px each entry is a card instead,
 * its cells labelled from `data-label`, and nothing is wider than the screen.
 */
export const pageStyle = `
:root { color-scheme: light; --ink: #1e293b; --muted: #64748b; --line: #e2e8f0; --ok: #15803d; --bad: #b91c1c; --warn: #b45309; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f8fafc; }
header, main { max-width: 1240px; margin: 0 auto; padding: 0 20px; }
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
.aka, .none, .run, .ci, .ceiling { color: var(--muted); }
.score { font-weight: 600; font-variant-numeric: tabular-nums; }
.score-cell { min-width: 6.5rem; }
.scroll { overflow-x: auto; }
.health.ok .status { color: var(--ok); font-weight: 600; }
.health.failing .status, .health.broken .status { color: var(--bad); font-weight: 600; }
.failed, .verdict.worse { color: var(--bad); font-weight: 600; }
.verdict.better { color: var(--ok); font-weight: 600; }
.verdict.same { color: var(--muted); font-weight: 600; }
.exposure.over { color: var(--bad); }
.split-runs { margin-right: 1em; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(440px, 100%), 1fr)); gap: 12px; margin: 8px 0; }
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
#entries { table-layout: fixed; font-size: 0.85rem; }
#entries th, #entries td { padding: 6px; }
#entries thead th { white-space: normal; }
#entries col.entry { width: 14.5%; }
#entries col.verify { width: 19%; }
#entries col.metric { width: 6.5%; }
#entries col.score { width: 13%; }
#entries col.exposure { width: 8%; }
#entries tbody th, #entries tbody td { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#entries tbody th .aka { font-weight: 400; }
.health details { min-width: 0; }
.health summary { display: block; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; list-style: none; }
.health summary::-webkit-details-marker { display: none; }
.health summary::before { content: "\\25B8"; display: inline-block; width: 1em; color: var(--muted); }
.health details[open] summary::before { content: "\\25BE"; }
.health .reason { color: var(--muted); margin-left: 0.4em; }
/* Open, the whole verify text lies over the rows below in a wide box instead of stretching a narrow cell down. */
.health .findings { position: absolute; z-index: 2; width: min(46rem, calc(100vw - 2rem)); margin: 4px 0 0; padding: 8px 12px 8px 28px; background: #fff; border: 1px solid var(--line); border-radius: 6px; box-shadow: 0 4px 16px rgba(15, 23, 42, 0.15); white-space: normal; }
.findings { color: var(--ink); font: 0.8rem/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: anywhere; }
@media (max-width: 640px) {
  header, main { padding: 0 10px; }
  section { padding: 10px 12px; }
  table.cards, table.cards tbody { display: block; }
  table.cards colgroup, table.cards thead { display: none; }
  table.cards tbody tr { display: grid; grid-template-columns: minmax(0, 1fr); border: 1px solid var(--line); border-radius: 6px; margin: 0 0 10px; padding: 6px 10px; }
  /* flow-root: a cell is as tall as its label when the label wraps. */
  table.cards tbody th, table.cards tbody td { display: flow-root; min-width: 0; padding: 2px 0 2px 6.6rem; border: 0; white-space: normal; overflow-wrap: anywhere; }
  table.cards tbody [data-label]::before { content: attr(data-label); float: left; width: 6.4rem; margin-left: -6.6rem; color: var(--muted); font-weight: 400; }
  /* The entry's name heads its card, unlabelled. */
  #entries tbody th { font-size: 1rem; padding: 2px 0 4px; white-space: normal; }
  #entries tbody td { padding: 2px 0 2px 6.6rem; white-space: normal; overflow: visible; }
  #entries tbody td.blank { display: none; }
  .health summary { white-space: normal; }
  .health .findings { position: static; width: auto; box-shadow: none; }
}
`;
