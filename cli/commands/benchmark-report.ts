/** `arbor benchmark report [zoo]`: one self-contained HTML page of a zoo's health and score history. */
import type {CommandModule} from 'yargs';
import {jsonOption, printJson} from '../options.js';

interface ReportArgs {
  zoo?: string;
  out: string;
  ledger?: string;
  json: boolean;
}

/** `arbor benchmark report`: collect, render, write atomically; print where it went. */
export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report [zoo]',
  describe: "Write one self-contained HTML page of a zoo: each entry's verify status, latest and best scores, score over runs, compare verdicts, test exposure",
  builder: (yargs) =>
    yargs
      .positional('zoo', {type: 'string', describe: 'The zoo folder (default: ./arbor-zoo, else ./zoo, else the current folder when it holds benchmarks)'})
      .option('out', {type: 'string', default: 'report.html', requiresArg: true, describe: 'The HTML file to write (replaced whole, never half-written)'})
      .option('ledger', {
        type: 'string',
        requiresArg: true,
        describe: "The ledger file (default $ARBOR_LEDGER, else .arbor/runs.db at the zoo's git root, else in the zoo folder)",
      })
      .option('json', {
        ...jsonOption,
        describe: "Also print the report's data (entries, scores, series, compare rows) as JSON on stdout; the line saying where the page went goes to stderr",
      })
      .example('$0 benchmark report zoo --out report.html', 'open report.html in any browser: it loads nothing from the network')
      .epilogue(
        'Exit 0 when the report was written (an empty or missing ledger and entries that fail verify included), 1 when the ledger is corrupt or unreadable or the file cannot be written, 2 for bad usage (missing zoo, --out in a missing folder).',
      ),
  handler: async (args) => {
    const {checkOutput, collectReport, loadChartLibrary, renderReport, writeReport} = await import('../../lib/report/index.js');
    checkOutput(args.out); // a bad --out fails before the zoo is verified
    const library = loadChartLibrary();
    const {strayNotes} = await import('../../lib/ledger/merge.js');
    const onStrays = (strays: string[], ledger: string) => {
      for (const note of strayNotes(strays, ledger)) process.stderr.write(`arbor: ${note}\n`);
    };
    const model = await collectReport({zoo: args.zoo, ledger: args.ledger, onStrays});
    const file = writeReport(args.out, renderReport(model, library));
    const runs = model.ledger.runs === 0 ? 'no runs recorded yet' : `${model.ledger.runs} run(s)`;
    if (args.json) printJson(model);
    (args.json ? process.stderr : process.stdout).write(`Wrote ${file}: ${model.entries.length} entries, ${runs} (ledger ${model.ledger.path}).\n`);
  },
};
