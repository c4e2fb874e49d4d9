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
import {HarnessError} from '../errors.js';

/** Syscalls that fail with EPERM in every run (names this architecture lacks are skipped). */
export const deniedSyscalls: readonly string[] = [
  // Keyrings: shared by every process of a session or user, so a place to leave answers for a later run.
  'add_key',
  'keyctl',
  'request_key',
  // Mounts and namespaces: a run's view of the machine is the sandbox's, and stays so.
  'mount',
  'umount2',
  'pivot_root',
  'chroot',
  'unshare',
  'setns',
  'fsopen',
  'fsconfig',
  'fsmount',
  'fspick',
  'move_mount',
  'open_tree',
  'mount_setattr',
  // Other processes' memory, and the kernel's tracing and counting machinery.
  'ptrace',
  'process_vm_readv',
  'process_vm_writev',
  'kcmp',
  'pidfd_getfd',
  'bpf',
  'perf_event_open',
  'userfaultfd',
  'fanotify_init',
  'lookup_dcookie',
  'io_uring_setup',
  'io_uring_enter',
  'io_uring_register',
  // Kernel code, the machine's state and its clocks.
  'kexec_load',
  'kexec_file_load',
  'init_module',
  'finit_module',
  'delete_module',
  'reboot',
  'swapon',
  'swapoff',
  'acct',
  'syslog',
  'quotactl',
  'quotactl_fd',
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'sethostname',
  'setdomainname',
  'iopl',
  'ioperm',
  'uselib',
  'vhangup',
  'open_by_handle_at',
  'name_to_handle_at',
  'nfsservctl',
  '_sysctl',
  // The page cache is the machine's, shared by every run: dropping or loading a page of a /usr file and asking
  // later whether it is cached carries bits from one run to the next. These drop, load or ask without reading.
  'fadvise64',
  'fadvise64_64',
  'readahead',
  'mincore',
  'cachestat',
  // process_madvise takes madvise's COLD and PAGEOUT for the caller's own pidfd; Linux AIO carries RWF_NOWAIT in
  // an iocb in memory, where a filter cannot read it (io_submit's read of an uncached page then fails with EAGAIN).
  'process_madvise',
  'io_setup',
  'io_submit',
  // move_pages without target nodes says which pages of a mapping are mapped: after a fault has mapped the cached
  // pages around it (fault-around), which pages of a file are cached. Python and numpy never call it.
  'move_pages',
];

/**
 * A syscall that fails with EPERM when its argument `arg` (from 0) compares so:
 * `eq` when the argument is `value`, `masked_eq` when `argument & mask` is
 * `value`. libseccomp compares all 64 bits, while the kernel reads an `int`
 * argument's low 32 only: an int is compared through `mask: 0xffffffff`, or a
 * value with high bits set would pass the filter and still mean `value`.
 */
interface ArgumentRule {
  syscall: string;
  arg: number;
  op: 'eq' | 'masked_eq';
  value: number;
  mask?: number;
}

const MADV_COLD = 20;
const MADV_PAGEOUT = 21;
const RWF_NOWAIT = 0x8;

/**
 * The rest of the page cache's residency primitives, which only some arguments
 * make so: `madvise` that deactivates or evicts the pages of a mapping (an
 * int, so masked to its 32 bits), and `preadv2`/`pwritev2` with `RWF_NOWAIT`
 * (fails with EAGAIN when a page is not cached: a read that asks). Allowed
 * stays `MADV_DONTNEED`, which allocators call on anonymous memory: on a file
 * mapping it drops only this process's page table entries, never the cached
 * pages, so it says and changes nothing another run can see.
 */
const argumentRules: readonly ArgumentRule[] = [
  {syscall: 'madvise', arg: 2, op: 'masked_eq', mask: 0xffffffff, value: MADV_COLD},
  {syscall: 'madvise', arg: 2, op: 'masked_eq', mask: 0xffffffff, value: MADV_PAGEOUT},
  // The flags are the sixth argument (fd, iov, iovcnt, pos_l, pos_h, flags) on every architecture.
  {syscall: 'preadv2', arg: 5, op: 'masked_eq', mask: RWF_NOWAIT, value: RWF_NOWAIT},
  {syscall: 'pwritev2', arg: 5, op: 'masked_eq', mask: RWF_NOWAIT, value: RWF_NOWAIT},
];

/**
 * The numbers of syscalls newer than some libseccomp releases, which cannot
 * resolve their names: used on x86_64 and arm64 (one table of numbers for new
 * syscalls since Linux 5.1) where libseccomp does not know the name.
 */
const syscallNumbers: Readonly<Record<string, number>> = {cachestat: 451};

/** Syscalls that fail with ENOSYS: clone3's flags are in memory a filter cannot read, and libc falls back to clone. */
export const enosysSyscalls: readonly string[] = ['clone3'];

/** clone fails with EPERM when it asks for any of these: a new mount, cgroup, UTS, IPC, user, PID, network or time namespace. */
const namespaceCloneFlags = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000 | 0x00000080;

const here = path.dirname(fileURLToPath(import.meta.url));

/** seccomp.py beside this module, in the source tree or the package. */
function scriptPath(): string {
  const candidates = [path.resolve(here, '../../../lib/sandbox/seccomp.py'), path.resolve(here, 'seccomp.py')];
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
  const spec = JSON.stringify({
    deny: deniedSyscalls,
    enosys: enosysSyscalls,
    clone_flags: namespaceCloneFlags,
    deny_when: argumentRules,
    numbers: syscallNumbers,
  });
  // -S: the script needs the standard library only, and site's imports are most of a start's CPU.
  const built = spawnSync(python, ['-I', '-S', '-B', scriptPath(), spec], {timeout: 60_000, maxBuffer: 1 << 20});
  const program = built.stdout;
  // A BPF program is whole 8-byte instructions, and libseccomp's is never empty.
  if (built.status !== 0 || !program || program.length === 0 || program.length % 8 !== 0) {
    const why = `${built.stderr ?? ''}`.trim().split('\n').pop() || built.error?.message || `exit code ${built.status}`;
    throw new HarnessError(
      `cannot build the sandbox's seccomp filter: ${why.slice(0, 200)}; install libseccomp (e.g. apt-get install libseccomp2; arbor doctor says what this machine lacks)`,
      'no-sandbox',
    );
  }
  programs.set(python, program);
  return program;
}
