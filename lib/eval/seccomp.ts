/**
 * The seccomp filter every sandboxed run is started under (bubblewrap's
 * `--seccomp FD`): the syscalls that reach past the run's own processes and
 * files (the kernel's keyrings, mounts and namespaces, tracing other
 * processes, loading kernel code, the clocks of the machine) fail with EPERM.
 * The list follows Docker's default profile, less what Docker allows only with
 * a capability (a run has none). The BPF program is built by libseccomp
 * (seccomp.py, through the eval's own Python), once per interpreter.
 */
import {spawnSync} from 'node:child_process';
import {existsSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {HarnessError} from './errors.js';

/** Syscalls that fail with EPERM in every run (names this architecture lacks are skipped). */
export const deniedSyscalls: readonly string[] = [
  // Keyrings: shared by every process of a session or user, so a place to leave answers for a later run.
  'add_key', 'keyctl', 'request_key',
  // Mounts and namespaces: a run's view of the machine is the sandbox's, and stays so.
  'mount', 'umount2', 'pivot_root', 'chroot', 'unshare', 'setns',
  'fsopen', 'fsconfig', 'fsmount', 'fspick', 'move_mount', 'open_tree', 'mount_setattr',
  // Other processes' memory, and the kernel's tracing and counting machinery.
  'ptrace', 'process_vm_readv', 'process_vm_writev', 'kcmp', 'pidfd_getfd',
  'bpf', 'perf_event_open', 'userfaultfd', 'fanotify_init', 'lookup_dcookie',
  'io_uring_setup', 'io_uring_enter', 'io_uring_register',
  // Kernel code, the machine's state and its clocks.
  'kexec_load', 'kexec_file_load', 'init_module', 'finit_module', 'delete_module',
  'reboot', 'swapon', 'swapoff', 'acct', 'syslog', 'quotactl', 'quotactl_fd',
  'settimeofday', 'clock_settime', 'clock_adjtime', 'adjtimex',
  'sethostname', 'setdomainname', 'iopl', 'ioperm', 'uselib', 'vhangup',
  'open_by_handle_at', 'name_to_handle_at', 'nfsservctl', '_sysctl',
];

/** Syscalls that fail with ENOSYS: clone3's flags are in memory a filter cannot read, and libc falls back to clone. */
export const enosysSyscalls: readonly string[] = ['clone3'];

/** clone fails with EPERM when it asks for any of these: a new mount, cgroup, UTS, IPC, user, PID, network or time namespace. */
export const namespaceCloneFlags = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;

const here = path.dirname(fileURLToPath(import.meta.url));

/** seccomp.py beside this module, in the source tree or the package. */
function scriptPath(): string {
  const candidates = [path.resolve(here, '../../../lib/eval/seccomp.py'), path.resolve(here, 'seccomp.py')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new HarnessError(`arbor's seccomp.py is missing (looked in ${candidates.join(', ')}); reinstall arbor`, 'no-runner');
  return found;
}

const programs = new Map<string, Buffer>();

/**
 * The filter's BPF program (an array of `struct sock_filter`), built with
 * libseccomp by `python` (the eval's interpreter). A HarnessError with the fix
 * when libseccomp is missing: a sandbox without the filter is not started.
 */
export function seccompProgram(python: string): Buffer {
  const cached = programs.get(python);
  if (cached) return cached;
  const spec = JSON.stringify({deny: deniedSyscalls, enosys: enosysSyscalls, clone_flags: namespaceCloneFlags});
  // -S: the script needs the standard library only, and site's imports are most of a start's CPU.
  const built = spawnSync(python, ['-I', '-S', '-B', scriptPath(), spec], {timeout: 60_000, maxBuffer: 1 << 20});
  const program = built.stdout;
  // A BPF program is whole 8-byte instructions, and libseccomp's is never empty.
  if (built.status !== 0 || !program || program.length === 0 || program.length % 8 !== 0) {
    const why = `${built.stderr ?? ''}`.trim().split('\n').pop() || built.error?.message || `exit code ${built.status}`;
    throw new HarnessError(`cannot build the sandbox's seccomp filter: ${why.slice(0, 200)}; install libseccomp (e.g. apt-get install libseccomp2)`, 'no-sandbox');
  }
  programs.set(python, program);
  return program;
}
