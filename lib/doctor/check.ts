/**
 * The shape of what `arbor doctor` finds, and the pure checks that turn a
 * probe's answer into a line: what works, what it disables, what to install.
 */

/** One feature of the machine, checked. */
export interface Check {
  /** Stable id, e.g. `bubblewrap`, `numpy`. */
  id: string;
  /** What the feature is for, in a few words. */
  feature: string;
  ok: boolean;
  /** What was found (a path, a version) or why it is not there. */
  detail: string;
  /** When not ok: what does not work without it. */
  disables?: string;
  /** When not ok: the fix, a command where there is one. */
  fix?: string;
  /** The Debian package that fixes it, when one does (gathered into one apt-get line). */
  apt?: string;
  /** Whether the main job, a sandboxed eval, needs it. */
  main: boolean;
}

/** A folder or file arbor keeps outside the zoo. */
export interface StateEntry {
  what: string;
  path: string;
  /** Bytes in it now (0 when absent). */
  bytes: number;
  exists: boolean;
  /** How to remove it, and what that costs. */
  remove: string;
}

/** Everything `arbor doctor` says. */
export interface DoctorReport {
  /** Whether the main job, a sandboxed eval, can run here. */
  ok: boolean;
  checks: Check[];
  state: StateEntry[];
  /** One `apt-get install` line for every missing package, or undefined when none is missing. */
  install?: string;
}

/** A found program: ok with its path; else missing with what it disables and its package. */
export function programCheck(
  spec: {id: string; feature: string; program: string; disables: string; apt: string; fix?: string; main: boolean},
  found: string | undefined,
): Check {
  const {id, feature, program, disables, apt, main} = spec;
  if (found) return {id, feature, ok: true, detail: found, main};
  return {id, feature, ok: false, detail: `${program} is not on the PATH`, disables, fix: spec.fix ?? `apt-get install ${apt}`, apt, main};
}

/**
 * Unprivileged user namespaces, from /proc/sys (undefined: the file is absent,
 * which means no such switch on this kernel). Root needs none: bwrap runs as root.
 */
export function userNamespacesCheck(sysctl: {maxUserNamespaces?: string; unprivilegedClone?: string; apparmorRestrict?: string}, root: boolean): Check {
  const base = {id: 'user-namespaces', feature: 'user namespaces (the sandbox is built in them)', main: true};
  const off: string[] = [];
  if (sysctl.maxUserNamespaces !== undefined && Number(sysctl.maxUserNamespaces) === 0) off.push('user.max_user_namespaces is 0');
  if (!root && sysctl.unprivilegedClone !== undefined && sysctl.unprivilegedClone.trim() === '0') off.push('kernel.unprivileged_userns_clone is 0');
  if (!root && sysctl.apparmorRestrict !== undefined && sysctl.apparmorRestrict.trim() === '1') off.push('kernel.apparmor_restrict_unprivileged_userns is 1');
  if (!off.length) return {...base, ok: true, detail: root ? 'running as root: bwrap makes them itself' : 'unprivileged user namespaces are on'};
  return {
    ...base,
    ok: false,
    detail: off.join('; '),
    disables: 'bwrap cannot build a sandbox, so dev evals run WITHOUT one and test evals refuse',
    fix: 'enable them (e.g. sysctl -w kernel.unprivileged_userns_clone=1, user.max_user_namespaces=15000), or run arbor as root',
  };
}

/** The install line for every missing package, once each, in check order. */
export function installLine(checks: readonly Check[]): string | undefined {
  const packages = [...new Set(checks.filter((check) => !check.ok && check.apt).map((check) => check.apt!))];
  return packages.length ? `apt-get install -y ${packages.join(' ')}` : undefined;
}

/** A byte count for people: `0 B`, `12.3 kB`, `4.5 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
