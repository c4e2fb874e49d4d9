/**
 * One eval in a process of its own, started by a queue worker (fork, with an
 * IPC channel): the worker's own event loop stays free to renew its job locks
 * however long the eval's synchronous steps take, and an eval that brings its
 * process down takes no worker with it. The worker sends the eval's options;
 * this process sends back progress, then the report or the error.
 */
import type {EvalReport} from '../eval/types.js';
import {describeFailure} from './result.js';

/** What the worker asks for. */
export interface EvalChildRequest {
  benchmark: string;
  split: string;
  solution?: string;
  unsandboxed?: boolean;
}

/** What this process answers. */
export type EvalChildMessage =
  | {type: 'progress'; kind: 'line' | 'status'; text: string}
  | {type: 'report'; report: EvalReport}
  | {type: 'error'; message: string};

const send = (message: EvalChildMessage): Promise<void> =>
  new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });

if (process.send) {
  // As in `arbor benchmark eval`: Node opens its inspector on SIGUSR1; a listener keeps it closed to anything that can signal this process.
  process.on('SIGUSR1', () => {});
  // The worker is gone (killed): stop the eval the way an interrupt does, runs killed and work folder removed.
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  process.once('message', (request: EvalChildRequest) => {
    void (async () => {
      try {
        const {runEval} = await import('../eval/pipeline.js');
        const report = await runEval({...request, onProgress: (kind, text) => void send({type: 'progress', kind, text})});
        await send({type: 'report', report});
      } catch (error) {
        await send({type: 'error', message: describeFailure(error)});
      }
      process.removeAllListeners('disconnect');
      process.disconnect();
    })();
  });
}
