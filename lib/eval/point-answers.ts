/**
 * What a run's answers say once it is over: each case as a repetition report
 * (a timeout past its limit), a crash's frames placed in the solution's files,
 * the instructions clock's counts against the reference's, tamper evidence
 * without a sandbox, and the answers written out for verification.
 */
import {mkdir, rm, writeFile} from 'node:fs/promises';
import path from 'node:path';
import {crossCheck, type CaseOutcome} from '../sandbox/index.js';
import type {EvalContext, RunFiles} from './context.js';
import {sourceFrames} from './failure.js';
import type {MadePoint} from './point-make.js';
import type {Timing} from './point-verify.js';
import type {PointSignature} from './signature.js';
import {median} from '../stats/index.js';
import {firstDifference, hashTree} from './tamper.js';
import type {RepetitionReport} from './types.js';

/**
 * Instructions clock: every counted case of a solution run against the
 * reference's median count and CPU time so far (lib/sandbox/instructions.ts crossCheck); a
 * case whose count is far lower than its CPU time allows fails as tampered.
 */
export function crossCheckCounts(statuses: RepetitionReport[], reference: Timing[][]): void {
  for (const [i, status] of statuses.entries()) {
    const times = reference[i] ?? [];
    const cpus = times.flatMap((t) => (t.cpu === null ? [] : [t.cpu]));
    if (status.status !== 'ok' || !status.instructions || status.cpuSeconds == null || !times.length || cpus.length < times.length) continue;
    const problem = crossCheck(
      {instructions: median(times.map((t) => t.clock)), cpuSeconds: median(cpus)},
      {instructions: status.instructions, cpuSeconds: status.cpuSeconds},
    );
    if (problem) Object.assign(status, {status: 'tampered', note: problem});
  }
}

/** A case as a repetition report (before verification): a case over its limit is a timeout. */
export function statusOf(c: CaseOutcome, limit: number): RepetitionReport {
  const counted = c.instructions === undefined ? {} : {instructions: c.instructions};
  const report: RepetitionReport = {seconds: c.seconds, cpuSeconds: c.cpuSeconds, ...counted, status: c.status, passed: false};
  if (c.note) report.note = c.note;
  if (c.status === 'ok' && c.seconds !== null && c.seconds > limit) {
    Object.assign(report, {status: 'timeout', note: `took ${c.seconds.toFixed(3)} s, limit ${limit.toFixed(3)} s`});
  }
  return report;
}

/**
 * Each crash's frames as the report's: those that name a line of the solution's
 * files as evaluated (its snapshot), with that line's text read from there.
 */
export async function placeCrashes(files: RunFiles, cases: CaseOutcome[], statuses: RepetitionReport[]): Promise<void> {
  const folder = path.join(files.dir, path.dirname(files.entry));
  const sources = new Map<string, string[] | null>();
  for (const [k, c] of cases.entries()) {
    if (!c.where?.length || statuses[k]?.status !== 'crashed') continue;
    const where = await sourceFrames(folder, c.where, sources);
    if (where.length) statuses[k]!.where = where;
  }
}

/** Without a sandbox the solution could reach the work folder: check that nothing protected changed. */
export async function markTampered(ctx: EvalContext, made: MadePoint, statuses: RepetitionReport[]): Promise<void> {
  const before = (ctx.pointHashes ??= new Map()).get(made.dir) ?? (await ctx.timed('check', () => hashTree([made.dir])));
  ctx.pointHashes.set(made.dir, before);
  const changed =
    firstDifference(ctx.protectedHash!, await ctx.timed('check', () => hashTree([ctx.protectedDir]))) ??
    firstDifference(before, await ctx.timed('check', () => hashTree([made.dir])));
  if (!changed) return;
  const note = `the solution changed a protected file (${path.relative(ctx.tmp, changed)})`;
  for (const status of statuses) Object.assign(status, {status: 'tampered', note});
}

/** The answers the harness received, as a bundle out/ folder (NNNNNN/<result>.bin) plus results.json. */
export async function writeAnswers(out: string, cases: CaseOutcome[], signature: PointSignature): Promise<void> {
  await rm(out, {recursive: true, force: true});
  await mkdir(out, {recursive: true});
  for (const c of cases) {
    if (!c.answer) continue;
    const caseDir = path.join(out, String(c.i).padStart(6, '0'));
    await mkdir(caseDir);
    for (const [k, result] of signature.results.entries()) {
      const bytes = c.answer[k];
      if (bytes) await writeFile(path.join(caseDir, `${result.name}.bin`), bytes);
    }
  }
  const records = cases.map(({i, seconds, cpuSeconds, instructions, status, note}) => ({
    i,
    seconds,
    cpuSeconds,
    ...(instructions === undefined ? {} : {instructions}),
    status,
    note: note ?? null,
  }));
  await writeFile(path.join(out, 'results.json'), JSON.stringify({cases: records}));
}
