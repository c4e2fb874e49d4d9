/**
 * One run of `arbor mcp` (evaluate, compare, submit_test) in a process of its
 * own, started detached (runs.ts), so it outlives the server that started it:
 * a client that starts one server per call, or reconnects, finds its result
 * in the zoo's MCP store (store.ts). The process waits for its turn
 * (isolation.ts), runs the eval (SIGTERM stops it the way an interrupt stops
 * `arbor benchmark eval`: runs killed, work folder removed), records it in the
 * ledger as the CLI does, and stores the tool's result.
 *
 * Like lib/run/eval-child.ts, this process never holds the test salt (its
 * environment is the server's less its secrets): the server derives a sealed
 * run's salted seeds and hands them over on the IPC channel, never on the
 * command line, which every user of the machine can read.
 */
import {rmSync} from 'node:fs';
import type {CompareReport} from '../compare/index.js';
import type {Plan} from '../benchmark/plan.js';
import type {EvalReport} from '../eval/index.js';
import {type RunnerSpec, runRequest, sealedFailure, unaliased} from './run-request.js';
import type {McpStore, RunStatus} from './store.js';

/** When this process's dev eval got its turn: its session is charged the seconds from here to its end (session.ts). */
let evalStarted: number | undefined;

/** The dev run: its turn, its eval, its record in the ledger, the tool's result. */
async function devRun(spec: RunnerSpec, store: McpStore): Promise<Record<string, unknown>> {
  const [{takeTurn}, {finishEval, finishCompare, finishRace}] = await Promise.all([import('./isolation.js'), import('./run-results.js')]);
  const request = spec.request!;
  const leave = await takeTurn(store, spec.run, false, {
    onWait: () => store.progress(spec.run, 'waiting for its turn: a sealed test eval runs alone on this machine'),
  });
  evalStarted = Date.now();
  let report: EvalReport | CompareReport;
  let plan: Plan;
  try {
    const planned = await runRequest(request, (_kind, text) => store.progress(spec.run, unaliased(text, spec.aliases ?? [])));
    report = unaliased(planned.report, spec.aliases ?? []);
    plan = planned.plan;
  } finally {
    leave();
  }
  const ctx = {zoo: spec.zoo, workspaces: spec.workspaces, env: process.env};
  const result =
    request.kind === 'compare'
      ? await finishCompare(ctx, spec.id, spec.name, report as CompareReport, plan)
      : request.against !== undefined
        ? await finishRace(ctx, spec.id, spec.name, report as CompareReport, plan, request.label)
        : await finishEval(ctx, spec.id, spec.name, report as EvalReport, plan, request.label);
  // Before the run ends: list_runs shows the record to this run's client alone (jobs.ts, othersLedgerRuns).
  if (typeof result.runId === 'number') store.ownLedgerRun(spec.run, result.runId);
  return result;
}

/** The sealed run (sealed.ts): its answer at its release time. */
async function sealedRun(spec: RunnerSpec, store: McpStore): Promise<Record<string, unknown>> {
  const {sealedResult} = await import('./sealed-run.js');
  const ctx = {zoo: spec.zoo, workspaces: spec.workspaces, env: process.env};
  try {
    return await sealedResult(ctx, store, {
      run: spec.run,
      id: spec.id,
      name: spec.name,
      request: spec.request,
      sealed: spec.sealed!,
      aliases: spec.aliases ?? [],
    });
  } catch (error) {
    // Whatever failed, and when: the failure too is answered at a release time.
    const {nextRelease} = await import('./store.js');
    const wait = nextRelease({from: spec.sealed!.startedMs, every: spec.sealed!.releaseMs}, Date.now()) - Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, wait)));
    throw error;
  }
}

/** Store how the run ended (a run the server cancelled meanwhile stays cancelled). */
async function main(spec: RunnerSpec): Promise<void> {
  const {McpStore, processStart} = await import('./store.js');
  const store = await McpStore.open(spec.store);
  store.setRunner(spec.run, process.pid, processStart(process.pid));
  let status: Exclude<RunStatus, 'running'> = 'done';
  let outcome: {result?: Record<string, unknown>; error?: string};
  try {
    outcome = {result: spec.tool === 'submit_test' ? await sealedRun(spec, store) : await devRun(spec, store)};
  } catch (error) {
    const {describeFailure} = await import('../run/result.js');
    status = 'failed';
    // A sealed run fails with one fixed text (its reason is on this process's log, written by sealed.ts, blanked of its seeds).
    outcome = {error: spec.tool === 'submit_test' ? sealedFailure(spec.name) : describeFailure(error)};
    if (spec.tool !== 'submit_test') process.stderr.write(`arbor mcp: ${spec.id} (${spec.tool} of ${spec.name}) failed: ${outcome.error}\n`);
  }
  // The call's copies go first: nothing of the agent's files outlives the run.
  for (const folder of spec.scratch ?? []) rmSync(folder, {recursive: true, force: true});
  // A dev run's eval seconds go to its session before it shows as ended, so the answer's `remaining` has them (failed or cancelled too).
  if (!spec.sealed && evalStarted !== undefined) {
    const {addSeconds} = await import('./session.js');
    addSeconds(store, spec.workspaces, (Date.now() - evalStarted) / 1000);
  }
  // A sealed run ends at its release time, to the millisecond: the work after it (the record, the answer kept) shows in no timestamp.
  const {lastRelease} = await import('./store.js');
  const at = spec.sealed ? lastRelease({from: spec.sealed.startedMs, every: spec.sealed.releaseMs}, Date.now()) : Date.now();
  store.finish(spec.run, status, outcome, at);
  // A run that ended well leaves no log (one that failed keeps it, for the owner, until the run is swept).
  if (status === 'done') rmSync(store.logFile({id: spec.run, publicId: spec.id}), {force: true});
  store.close();
}

if (process.send) {
  // Node opens its inspector on SIGUSR1; a listener keeps it closed to anything that can signal this process.
  process.on('SIGUSR1', () => {});
  process.once('message', (spec: RunnerSpec) => {
    // The spec is all it needs: told so, the server lets it go (and may exit); the channel closes, and this process outlives the server.
    if (process.connected) process.send!({type: 'started'}, undefined, {}, () => process.connected && process.disconnect());
    main(spec).catch((error: Error) => {
      // Its log, for the owner; the run reads as failed to whoever looks next (its process is gone).
      process.stderr.write(`arbor mcp: ${spec.id}: ${error.stack ?? error.message}\n`);
    });
  });
}
