/**
 * evaluate's `against`: which recorded dev eval a call races against (lib/compare/against.ts races
 * it). Resolved here, in the server, among the runs this client may see (runs.ts devHistory: its
 * own and the owner's, never another client's), so that no id or label can name a run the client
 * could not list; the run gets the id alone. Dev only: evaluate runs no other split, and a race
 * against a test run could not even be named (devHistory holds dev runs only).
 */
import type {Plan} from '../benchmark/plan.js';
import {UsageError} from '../errors.js';
import type {ServerContext} from './context.js';

/** evaluate's `against` argument in words (its schema's description). */
export const againstText =
  "Race the solution against a recorded dev eval of this entry and plan: a run id from list_runs, a label you gave, or 'best' (your best); 'none' for a plain score. Default: your session's best dev eval of this entry, when there is one (speedup benchmarks). A race stops as soon as better, worse or 'same within X%' is decided at 95% confidence, so a large difference costs a few repetitions; its answer is that verdict (race), not a precise score.";

/**
 * The ledger run a call races against, or undefined for a plain eval: `against` as given (checked
 * among the runs this client sees), else by default this session's own best dev eval of the entry
 * under its current plan, if any (a speed entry only: an accuracy score is exact). `plan` is the one the
 * call's run will be scored under (read once, by the caller).
 */
export async function raceTarget(ctx: ServerContext, against: string | undefined, benchmark: string, name: string, plan: Plan): Promise<number | undefined> {
  if (against === 'none') return undefined;
  if (plan.metric !== 'speedup') {
    if (against === undefined) return undefined;
    throw new UsageError(`against: races speed scores; ${name} is an accuracy benchmark, whose score is exact: evaluate it without against`, 'usage');
  }
  const [{devHistory}, {pickAgainst}] = await Promise.all([import('./runs.js'), import('../compare/index.js')]);
  const {runs} = await devHistory(ctx, name);
  if (against === undefined) {
    const owners = ctx.store.ledgerOwners();
    const own = runs.filter((run) => owners.get(run.id) === ctx.runs.owner);
    let best: number;
    try {
      best = pickAgainst('best', own, plan, 'dev', 'your session', 'against');
    } catch {
      return undefined; // no best of this session yet: a plain eval
    }
    return (await raceable(ctx, benchmark, best, plan)) ? best : undefined;
  }
  const id = pickAgainst(against, runs, plan, 'dev', 'the runs list_runs shows you', 'against');
  // An id of a run this client cannot list is no run of its own: said as unknown, whatever it is.
  if (!runs.some((run) => run.id === id)) throw new UsageError(`against ${against}: no such dev run among the runs list_runs shows you`, 'not-found');
  return id;
}

/** Whether the default's run can be raced against (an explicit one is checked by the race, which says why not): a clean eval with 2 repetitions or more. */
async function raceable(ctx: ServerContext, benchmark: string, id: number, plan: Plan): Promise<boolean> {
  const [{openLedger, ledgerPathFor}, {againstProblem}] = await Promise.all([import('../ledger/index.js'), import('../compare/index.js')]);
  const ledger = openLedger(ledgerPathFor(benchmark, ctx.env, ctx.zoo), {readonly: true});
  try {
    const run = ledger.getRun(id);
    const repetitions = Math.max(0, ...(run?.cases ?? []).map((c) => (Array.isArray(c.repetitions) ? c.repetitions.length : 0)));
    return run !== null && againstProblem(run, plan, 'dev') === undefined && repetitions >= 2;
  } finally {
    ledger.close();
  }
}
