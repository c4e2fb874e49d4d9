/** The chart library the report inlines, read from this install's node_modules at report time. */
import {readFileSync} from 'node:fs';
import {createRequire} from 'node:module';
import path from 'node:path';
import {ReportError} from './errors.js';

/** uPlot's browser build and stylesheet, to inline into the page. */
export interface ChartLibrary {
  /** e.g. `uPlot 1.6.32`. */
  name: string;
  license: string;
  /** The minified script; it defines the global `uPlot`. */
  script: string;
  style: string;
}

/** Read uPlot (a runtime dependency) from wherever Node resolves it. Throws ReportError when it is missing. */
export function loadChartLibrary(): ChartLibrary {
  try {
    const manifest = createRequire(import.meta.url).resolve('uplot/package.json');
    const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as {version?: string; license?: string};
    const dist = path.join(path.dirname(manifest), 'dist');
    return {
      name: `uPlot ${pkg.version ?? ''}`.trim(),
      license: pkg.license ?? 'MIT',
      script: readFileSync(path.join(dist, 'uPlot.iife.min.js'), 'utf8'),
      style: readFileSync(path.join(dist, 'uPlot.min.css'), 'utf8'),
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n', 1)[0] : String(error);
    throw new ReportError(`cannot read the chart library uplot from this install (${reason}): run \`npm install\` in arbor's folder`, 'report-assets', {
      cause: error,
    });
  }
}
