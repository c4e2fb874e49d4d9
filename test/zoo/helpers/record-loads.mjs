// `node --import ./record-loads.mjs`: records every module URL the process loads
// into the file named by $ARBOR_LOAD_LOG (used to prove `--help` stays light).
import {register} from 'node:module';

register('./record-loads-hooks.mjs', import.meta.url, {data: {log: process.env.ARBOR_LOAD_LOG}});
