/**
 * `arbor doctor`: what this machine can run, feature by feature, what to
 * install for the rest, and the state arbor keeps outside the zoo.
 */
import {type Check, type DoctorReport, formatBytes, installLine} from './check.js';
import {clockChecks, pythonChecks, sandboxChecks, serviceChecks} from './probes.js';
import {stateEntries} from './state.js';

export type {DoctorReport} from './check.js';

/** Check the machine (about a second: a python, a seccomp build, a sandbox started once). */
export function runDoctor(env: NodeJS.ProcessEnv = process.env): DoctorReport {
  const python = pythonChecks(env);
  const checks = [...python.checks, ...sandboxChecks(env, python.python), ...clockChecks(env), ...serviceChecks(env)];
  return {ok: checks.every((check) => check.ok || !check.main), checks, state: stateEntries(env), install: installLine(checks)};
}

function checkLines(check: Check): string[] {
  const head = `${check.ok ? 'ok     ' : check.main ? 'MISSING' : 'missing'}  ${check.feature}: ${check.detail}`;
  if (check.ok) return [head];
  return [head, `         without it: ${check.disables ?? 'see above'}`, `         fix: ${check.fix ?? 'see above'}`];
}

/** The report for people: one line per feature (and what a missing one disables, and its fix), the state, the verdict. */
export function formatDoctor(report: DoctorReport): string {
  const lines = report.checks.flatMap(checkLines);
  lines.push('', 'state arbor keeps outside the zoo:');
  for (const entry of report.state) {
    lines.push(`  ${entry.exists ? formatBytes(entry.bytes).padStart(8) : '  absent'}  ${entry.path}: ${entry.what}`);
    if (entry.exists) lines.push(`            remove: ${entry.remove}`);
  }
  lines.push('');
  if (report.install) lines.push(`install what is missing (as root): ${report.install}`);
  lines.push(
    report.ok ? 'the main job, a sandboxed eval, can run here' : 'the main job, a sandboxed eval, cannot run here: fix the MISSING lines above (exit 1)',
  );
  return `${lines.join('\n')}\n`;
}
