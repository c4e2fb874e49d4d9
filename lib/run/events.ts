/** What a zoo-wide run tells its display while it goes, the same whether evals run here or on queue workers. */
import type {RunResult} from './result.js';
import type {RunItem} from './targets.js';

/** `start`: an eval began (on `worker`, through a queue); `progress`: the eval's own progress; `finish`: its result, with warnings to show. */
export type RunEvent =
  | {type: 'start'; item: RunItem; worker?: string}
  | {type: 'progress'; item: RunItem; kind: 'line' | 'status'; text: string}
  | {type: 'finish'; item: RunItem; result: RunResult; warnings: string[]};

/** Where a runner sends its events. */
export type RunEventSink = (event: RunEvent) => void;
