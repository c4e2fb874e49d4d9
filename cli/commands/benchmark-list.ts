/** `arbor benchmark list [zoo]`: index a zoo with each entry's verify status. */
import type {CommandModule} from 'yargs';
import {jsonOption} from '../options.js';

interface ListArgs {
  zoo?: string;
  json: boolean;
  cache: boolean;
}

/** `arbor benchmark list`: print the index of a zoo. */
export const listCommand: CommandModule<object, ListArgs> = {
  command: 'list [zoo]',
  describe: 'Index the benchmarks of a zoo (default ./arbor-zoo, else ./zoo, else the current folder when it holds benchmarks) with verify status',
  builder: (yargs) =>
    yargs
      .positional('zoo', {type: 'string', describe: 'Zoo folder (default: ./arbor-zoo, else ./zoo, else the current folder when it holds benchmarks)'})
      .option('json', jsonOption)
      .option('cache', {
        type: 'boolean',
        default: true,
        describe:
          'Reuse verify results of unchanged folders (--no-cache to verify everything; cache in $ARBOR_CACHE_DIR, $XDG_CACHE_HOME/arbor or ~/.cache/arbor)',
      })
      .example('$0 benchmark list zoo', 'one row per benchmark: name, verify status, first prose line of its README'),
  handler: async (args) => {
    const [{listZooInThread}, report] = await Promise.all([import('../../lib/zoo/list-thread.js'), import('../../lib/zoo/report.js')]);
    // The ledger (SQLite) is opened for --json alone: the table has no column for the ceiling.
    const zooCeilings = args.json ? (await import('../../lib/ledger/floor.js')).zooCeilings : undefined;
    // Rows go out as they are decided, in name order, through one buffered writer.
    const out = bufferedStdout();
    const width = process.stdout.columns || 100;
    let nameWidth = 0;
    let rows = 0;
    let ceilings: ReturnType<NonNullable<typeof zooCeilings>> | undefined;
    const summary = await listZooInThread(
      {zoo: args.zoo, cache: args.cache},
      {
        start(info) {
          nameWidth = info.nameWidth;
          ceilings = zooCeilings?.(info.zoo);
          if (args.json) out.write(report.listJsonText.head(info.zoo));
        },
        entry(entry) {
          // The harness ceiling its newest measuring run recorded (JSON only: the table has no room for a column).
          const row = args.json ? {...entry, harnessCeiling: ceilings?.of(entry.path) ?? null} : entry;
          out.write(args.json ? report.listJsonText.row(row, rows === 0) : `${report.formatListRow(entry, nameWidth, width)}\n`);
          rows++;
        },
      },
    );
    ceilings?.close();
    out.write(args.json ? report.listJsonText.tail(rows, summary.skipped) : `${report.formatListEnd(summary)}\n`);
    await out.end();
  },
};

/** Collects small writes into 64 KiB chunks for stdout; `end` flushes and waits for the pipe to drain. */
function bufferedStdout(): {write(text: string): void; end(): Promise<void>} {
  let pending = '';
  let draining: Promise<void> | undefined;
  const flush = () => {
    if (!pending) return;
    if (!process.stdout.write(pending)) draining ??= new Promise((resolve) => process.stdout.once('drain', () => ((draining = undefined), resolve())));
    pending = '';
  };
  return {
    write(text) {
      pending += text;
      if (pending.length >= 1 << 16) flush();
    },
    async end() {
      flush();
      if (draining) await draining;
    },
  };
}
