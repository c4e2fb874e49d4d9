/**
 * The script the report page runs: it reads the embedded chart data and draws
 * one uPlot chart per entry, its runs evenly spaced in ledger order. Plain
 * browser JavaScript kept as text, so the page needs nothing but itself. When
 * it is done, `<html data-charts="N">` tells how many charts it drew (the
 * browser test waits for it).
 */
export const pageScript = String.raw`
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const splitColours = {dev: '#1f6fb4', test: '#c2410c'};
  const splitFills = {dev: 'rgba(31, 111, 180, 0.16)', test: 'rgba(194, 65, 12, 0.16)'};
  const baselineFill = 'rgba(100, 116, 139, 0.22)';
  const colour = (split) => splitColours[split] || '#6b21a8';
  const fill = (split) => splitFills[split] || 'rgba(107, 33, 168, 0.16)';
  const hidden = new Set(['interval-lo', 'interval-hi', 'baseline-lo', 'baseline-hi']);
  const number = (v) => (v == null ? '-' : String(Number(v.toPrecision(4))));

  function seriesOptions(s) {
    switch (s.role) {
      case 'score':
        return {label: s.label, stroke: colour(s.split), width: 2, spanGaps: true, points: {show: true, size: 7, fill: colour(s.split)}, value: (u, v) => number(v)};
      case 'calibrate':
        return {label: s.label, stroke: '#334155', width: 1, paths: () => null, points: {show: true, size: 8, width: 2, fill: '#ffffff'}, value: (u, v) => number(v)};
      case 'interval-lo':
      case 'interval-hi':
        return {label: s.label, stroke: fill(s.split), width: 1, spanGaps: true, points: {show: false}};
      default:
        return {label: s.label, stroke: 'rgba(100, 116, 139, 0.7)', width: 1, dash: [5, 4], points: {show: false}};
    }
  }

  function draw(entry) {
    const element = document.getElementById('chart-' + entry.index);
    const chart = entry.chart;
    const runLabel = (k) => (Number.isInteger(k) && k >= 0 && k < chart.runs.length ? '#' + chart.runs[k] : '');
    const options = {
      width: Math.max(320, element.clientWidth || 760),
      height: 260,
      scales: {x: {time: false, range: (u, min, max) => [min - 0.5, max + 0.5]}},
      axes: [
        {label: 'run', incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000], values: (u, ticks) => ticks.map(runLabel)},
        {label: entry.metric || 'score', size: 60},
      ],
      legend: {live: true},
      series: [{label: 'run', value: (u, v) => (v == null ? '-' : runLabel(v))}].concat(chart.series.map(seriesOptions)),
      bands: chart.bands.map((b) => ({series: [b.upper + 1, b.lower + 1], fill: b.role === 'baseline' ? baselineFill : fill(b.split)})),
    };
    // Runs are evenly spaced by their order; the axis names each by its ledger id.
    const columns = [chart.runs.map((id, k) => k)].concat(chart.series.map((s) => s.values));
    const plot = new uPlot(options, columns, element);
    // Band edges are drawn but need no legend row of their own.
    const rows = plot.root.querySelectorAll('.u-legend .u-series');
    chart.series.forEach((s, k) => {
      if (hidden.has(s.role) && rows[k + 1]) rows[k + 1].style.display = 'none';
    });
    window.addEventListener('resize', () => plot.setSize({width: Math.max(320, element.clientWidth || 760), height: 260}));
  }

  let drawn = 0;
  for (const entry of data.entries) {
    if (!entry.chart) continue;
    try {
      draw(entry);
      drawn++;
    } catch (error) {
      const element = document.getElementById('chart-' + entry.index);
      element.textContent = 'The chart could not be drawn: ' + (error && error.message ? error.message : String(error));
      element.className += ' chart-error';
    }
  }
  document.documentElement.setAttribute('data-charts', String(drawn));
})();
`;
