/**
 * The script the report page runs: it reads the embedded chart data and draws
 * one uPlot chart per panel (an entry's split), each solution in its colour,
 * runs evenly spaced in ledger order, the y axis as chart.ts computed it (log
 * for speedups). The legend shows each series' newest value until a run is
 * hovered, and the same value is written beside the line's last point. Plain
 * browser JavaScript kept as text, so the page needs nothing but itself. When
 * it is done, `<html data-charts="N">` tells how many charts it drew (the
 * browser test waits for it) and `window.arborReport.plots` holds them.
 */
export const pageScript = String.raw`
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const hidden = new Set(['interval-lo', 'interval-hi', 'baseline-lo', 'baseline-hi']);
  const number = (v) => (v == null ? '-' : String(Number(v.toPrecision(4))));
  const baselineFill = 'rgba(100, 116, 139, 0.22)';
  const plots = [];

  /** '#1f6fb4' and an alpha as an rgba() colour. */
  function tint(hex, alpha) {
    const n = parseInt(hex.slice(1), 16);
    return 'rgba(' + (n >> 16) + ', ' + ((n >> 8) & 255) + ', ' + (n & 255) + ', ' + alpha + ')';
  }

  function draw(entry, panel, element) {
    const colour = (s) => (s.solution == null ? '#64748b' : entry.colours[s.solution] || '#6b21a8');
    // While no run is hovered (idx null) a series shows its summary: its newest run, not a dash.
    const valueOf = (s) => (u, v, sidx, idx) => (idx == null ? s.summary || '' : v == null ? '-' : number(v));
    const runLabel = (k) => (Number.isInteger(k) && k >= 0 && k < panel.runs.length ? '#' + panel.runs[k] : '');
    function seriesOptions(s) {
      switch (s.role) {
        case 'score':
          return {label: s.label, stroke: colour(s), width: 2, spanGaps: true, points: {show: true, size: 7, fill: colour(s)}, value: valueOf(s)};
        case 'calibrate':
          return {label: s.label, stroke: colour(s), width: 1, paths: () => null, points: {show: true, size: 8, width: 2, fill: '#ffffff'}, value: valueOf(s)};
        case 'interval-lo':
        case 'interval-hi':
          return {label: s.label, stroke: tint(colour(s), 0.3), width: 1, spanGaps: true, points: {show: false}};
        default:
          return {label: s.label, stroke: 'rgba(100, 116, 139, 0.7)', width: 1, dash: [5, 4], points: {show: false}};
      }
    }
    const axis = panel.axis;
    const log = axis.scale === 'log';
    // The newest value of each solution, written beside its last point.
    function labelLastPoints(u) {
      const ctx = u.ctx;
      ctx.save();
      ctx.font = 'bold ' + Math.round(12 * devicePixelRatio) + 'px system-ui, sans-serif';
      ctx.textBaseline = 'middle';
      panel.series.forEach((s, k) => {
        if (s.role !== 'score' || !s.last || !u.series[k + 1].show) return;
        const x = u.valToPos(s.last.index, 'x', true);
        const y = u.valToPos(s.last.value, 'y', true);
        const text = number(s.last.value);
        const right = x + ctx.measureText(text).width + 10 * devicePixelRatio > u.bbox.left + u.bbox.width;
        ctx.textAlign = right ? 'right' : 'left';
        ctx.fillStyle = colour(s);
        ctx.fillText(text, x + (right ? -7 : 7) * devicePixelRatio, y - (right ? 10 * devicePixelRatio : 0));
      });
      ctx.restore();
    }
    const options = {
      width: Math.max(320, element.clientWidth || 560),
      height: 300,
      scales: {
        x: {time: false, range: (u, min, max) => [min - 0.5, max + 0.5]},
        y: log ? {distr: 3, log: 10, range: () => [axis.min, axis.max]} : {range: () => [axis.min, axis.max]},
      },
      axes: [
        {label: 'run', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000], values: (u, ticks) => ticks.map(runLabel)},
        {label: panel.axisLabel, size: 60, splits: () => axis.ticks, filter: (u, splits) => splits, values: (u, ticks) => ticks.map(number)},
      ],
      legend: {live: true},
      series: [{label: 'run', value: (u, v, sidx, idx) => (idx == null ? 'newest' : runLabel(v))}].concat(panel.series.map(seriesOptions)),
      bands: panel.bands.map((b) => ({series: [b.upper + 1, b.lower + 1], fill: b.role === 'baseline' ? baselineFill : tint(colour(b), 0.16)})),
      hooks: {draw: [labelLastPoints]},
    };
    // Runs are evenly spaced by their order; the axis names each by its ledger id.
    const columns = [panel.runs.map((id, k) => k)].concat(panel.series.map((s) => s.values));
    const plot = new uPlot(options, columns, element);
    // Band edges are drawn but need no legend row of their own.
    const rows = plot.root.querySelectorAll('.u-legend .u-series');
    panel.series.forEach((s, k) => {
      if (hidden.has(s.role) && rows[k + 1]) rows[k + 1].style.display = 'none';
    });
    window.addEventListener('resize', () => plot.setSize({width: Math.max(320, element.clientWidth || 560), height: 300}));
    return plot;
  }

  let drawn = 0;
  for (const entry of data.entries) {
    if (!entry.chart) continue;
    entry.chart.panels.forEach((panel, k) => {
      const element = document.getElementById('chart-' + entry.index + '-' + k);
      try {
        plots.push({entry: entry.index, split: panel.split, plot: draw(entry, panel, element)});
        drawn++;
      } catch (error) {
        element.textContent = 'The chart could not be drawn: ' + (error && error.message ? error.message : String(error));
        element.className += ' chart-error';
      }
    });
  }
  window.arborReport = {plots};
  document.documentElement.setAttribute('data-charts', String(drawn));
})();
`;
