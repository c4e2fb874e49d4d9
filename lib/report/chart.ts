/**
 * An entry's score-over-runs chart as aligned columns (the shape uPlot draws):
 * one x value per run, one column per series, null where a series has no point.
 */
import type {EntryReport} from './model.js';

/** What a series shows; the page picks its colour and style from this and the split. */
export type SeriesRole = 'score' | 'interval-lo' | 'interval-hi' | 'calibrate' | 'baseline-lo' | 'baseline-hi';

/** One column of the chart. */
export interface ChartSeries {
  label: string;
  role: SeriesRole;
  split: string;
  values: (number | null)[];
}

/** A shaded area between two series (indexes into `series`). */
export interface ChartBand {
  upper: number;
  lower: number;
  role: 'interval' | 'baseline';
  split: string;
}

/** The chart of one entry. */
export interface ChartData {
  /** Ledger run ids, ascending: the x axis (the page spaces them evenly and labels each by its id). */
  runs: number[];
  /** Baseline bands first (drawn beneath), then score intervals, scores, calibrate points. */
  series: ChartSeries[];
  bands: ChartBand[];
}

/** The chart of an entry's history, or null when it has no scored run. */
export function chartData(entry: Pick<EntryReport, 'history' | 'baselines'>): ChartData | null {
  if (entry.history.length === 0) return null;
  const runs = entry.history.map((point) => point.id);
  const series: ChartSeries[] = [];
  const bands: ChartBand[] = [];
  const band = (role: ChartBand['role'], split: string, lo: ChartSeries, hi: ChartSeries) => {
    series.push(hi, lo);
    bands.push({upper: series.length - 2, lower: series.length - 1, role, split});
  };
  for (const spread of entry.baselines) {
    const constant = (value: number) => runs.map(() => value);
    band(
      'baseline',
      spread.split,
      {label: `baseline ${spread.split} low`, role: 'baseline-lo', split: spread.split, values: constant(spread.lo)},
      {label: `baseline ${spread.split} high`, role: 'baseline-hi', split: spread.split, values: constant(spread.hi)},
    );
  }
  const evals = entry.history.filter((point) => point.kind === 'eval');
  const splits = [...new Set(evals.map((point) => point.split))];
  const column = (pick: (point: EntryReport['history'][number]) => number | null | undefined) =>
    entry.history.map((point) => pick(point) ?? null);
  for (const split of splits) {
    const own = (point: EntryReport['history'][number]) => point.kind === 'eval' && point.split === split;
    if (evals.some((point) => point.split === split && point.interval)) {
      band(
        'interval',
        split,
        {label: `${split} interval low`, role: 'interval-lo', split, values: column((p) => (own(p) ? p.interval?.[0] : null))},
        {label: `${split} interval high`, role: 'interval-hi', split, values: column((p) => (own(p) ? p.interval?.[1] : null))},
      );
    }
  }
  for (const split of splits) series.push({label: split, role: 'score', split, values: column((p) => (p.kind === 'eval' && p.split === split ? p.score : null))});
  for (const split of [...new Set(entry.history.filter((p) => p.kind === 'calibrate').map((p) => p.split))]) {
    series.push({label: `calibrate ${split}`, role: 'calibrate', split, values: column((p) => (p.kind === 'calibrate' && p.split === split ? p.score : null))});
  }
  return {runs, series, bands};
}
