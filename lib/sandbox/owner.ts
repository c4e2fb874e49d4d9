/**
 * Ownership tags for what an eval leaves on the machine while it runs (its
 * work folder, its cgroups): `<pid>.<start time>`, so that the next eval can
 * tell the leftovers of a killed eval (owner gone, or its pid reused by another
 * process) from those of an eval still running, and remove them.
 */
import {readFileSync} from 'node:fs';

/** The start time of a process in clock ticks since boot (field 22 of /proc/<pid>/stat), or undefined. */
function startTime(pid: number | 'self'): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

let own: string | undefined;

/** This process's tag. */
export function ownerTag(): string {
  own ??= `${process.pid}.${startTime('self') ?? '0'}`;
  return own;
}

/** Whether the process a tag names is still the one running under that pid. */
export function ownerAlive(tag: string): boolean {
  const match = /^(\d+)\.(\d+)$/.exec(tag);
  if (!match) return true; // Not ours to judge: leave it alone.
  const pid = Number(match[1]);
  if (pid === process.pid) return tag === ownerTag();
  if (process.platform !== 'linux') {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  }
  const started = startTime(pid);
  return started !== undefined && (match[2] === '0' || started === match[2]);
}
