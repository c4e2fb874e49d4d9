/** `arbor benchmark report [zoo]`: one self-contained HTML page of a zoo's health and score history. */
import type {CommandModule} from 'yargs';

interface ReportArgs {
  zoo?: string;
  out: string;
  ledger?: string;
}

/** `arbor benchmark report`: collect, render, write atomically; print where it went. */
export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report [zoo]',
  describe: "Write one self-contained HTML page of a zoo: each entry's verify status, latest and best scores, score over runs, compare verdicts, test exposure",
  builder: (yargs) =>
    yargs
      .positional('zoo', {type: 'string', describe: 'The zoo folder (default: ./zoo)'})
      .option('out', {type: 'string', default: 'report.html', requiresArg: true, describe: 'The HTML file to write (replaced whole, never half-written)'})
      .option('ledger', {type: 'string', requiresArg: true, describe: "The ledger file (default $ARBOR_LEDGER, else .arbor/runs.db at the zoo's git root, else in the zoo)"})
      .example('$0 benchmark report zoo --out report.html', 'open report.html in any browser: it loads nothing from the network')
      .epilogue('Exit 0 when the report was written (an empty or missing ledger and entries that fail verify included), 1 when the ledger is corrupt or unreadable or the file cannot be written, 2 for bad usage (missing zoo, --out in a missing folder).') as never,
  handler: async (args) => {
    const {checkOutput, collectReport, loadChartLibrary, renderReport, writeReport} = await import('../../lib/report/index.js');
    checkOutput(args.out); // a bad --out fails before the zoo is verified
    const library = loadChartLibrary();
    const model = await collectReport({zoo: args.zoo, ledger: args.ledger});
    const file = writeReport(args.out, renderReport(model, library));
    const runs = model.ledger.runs === 0 ? 'no runs recorded yet' : `${model.ledger.runs} run(s)`;
    process.stdout.write(`Wrote ${file}: ${model.entries.length} entries, ${runs} (ledger ${model.ledger.path}).\n`);
  },
};
