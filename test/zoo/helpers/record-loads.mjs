// `node --import ./record-loads.mjs`: records every module URL the process loads
// into the file named by $ARBOR_LOAD_LOG (used to prove `--help` stays light).
// ES modules go through the loader hooks; CommonJS `require` (a native addon such
// as better-sqlite3 is loaded that way) does not, so Module._load is wrapped too.
import {appendFileSync} from 'node:fs';
import Module, {register} from 'node:module';

const log = process.env.ARBOR_LOAD_LOG;
register('./record-loads-hooks.mjs', import.meta.url, {data: {log}});

const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (log) appendFileSync(log, `require ${request} from ${parent?.filename ?? '?'}\n`);
  return load.call(this, request, parent, isMain);
};
