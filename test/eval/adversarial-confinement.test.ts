// What a run may use and who it is: no privilege (as root, a uid of its own with no capabilities),
// the seccomp filter, and the plan's limits (helpers in ./adversaries.ts).
import {spawnSync} from 'node:child_process';
import {closeSync, cpSync, mkdirSync, openSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {cgroupsWork, createGroup} from '../../lib/sandbox/cgroup.js';
import {implausibleCpu} from '../../lib/sandbox/run-serve.js';
import {findPython} from '../../lib/sandbox/python.js';
import {confinementFor, findBwrap, launchRun, resolvePython, runsAsRoot} from '../../lib/sandbox/sandbox.js';
import {deniedSyscalls, enosysSyscalls} from '../../lib/sandbox/seccomp.js';
import {fixtures, repoRoot, runCli, tempDir} from '../helpers/cli.js';
import {canRunAsUser, evaluate, evaluateAsNobody, sandboxed} from './adversaries.js';

const EPERM = 1;
const ENOSYS = 38;
const limits = {memoryBytes: 4096 * 2 ** 20, processes: 256, tmpfsBytes: 512 * 2 ** 20};

describe.skipIf(!sandboxed)('confinement: what a run may use and who it is', () => {
  it('every way out is closed: sysctls, mounts, keyrings, namespaces, privilege, /etc, and the limits on processes and tmpfs', () => {
    const {score, report} = evaluate('prefix-speed', 'escape.py', {plan: {'metric = "speedup"': 'metric = "speedup"\nprocesses = 32\ntmpfs_mb = 16'}});
    expect(score).toBe(0);
    expect(report.failure).toMatch(/escape: 26 tried, open: \[\]/);
    expect(report.runUser).toBe(runsAsRoot() ? 'own-uid' : 'caller');
    expect(report.limits).toMatchObject({memoryMb: 4096, processes: 32, tmpfsMb: 16});
  });

  it('a run past its memory limit is killed and its case says so; the eval goes on', () => {
    // A wide time limit: on a loaded machine the kernel's reclaim before the kill can take longer than the 1 s a case gets
    // by default, and the case must fail for its memory, not its time.
    const {score, report} = evaluate('prefix-speed', 'memory-hog.py', {plan: {'metric = "speedup"': 'metric = "speedup"\nmemory_mb = 256\nmin_timeout = 30'}});
    expect(score).toBe(0);
    if (report.limits.enforcedBy.memory === 'cgroup') {
      expect(report.points[0].cases[0].note).toMatch(/^the run went over its memory limit of 256 MiB \(plan.toml memory_mb\) and was killed/);
    } else {
      expect(report.points[0].cases[0].note).toMatch(/MemoryError|Unable to allocate/);
    }
  });

  // Both are about the CPU clock, which needs a cgroup per run (root, or a delegated cgroup).
  it.skipIf(!cgroupsWork())('resetting its own CPU counter is out of reach: a Python loop scores what it is worth', () => {
    const {score, report} = evaluate('prefix-speed', 'cpu-reset.py');
    expect(report.clock).toBe('cpu');
    expect(report.points[0].cases.every((c: {passed: boolean}) => c.passed)).toBe(true);
    expect(score).toBeGreaterThan(0);
    expect(score).toBeLessThan(3);
  });

  it.skipIf(!cgroupsWork())('a case that sleeps instead of computing is tampered on the CPU clock, with the reason', () => {
    // A case limit well above the nap, so the case ends answered, not killed.
    const {score, report} = evaluate('prefix-speed', 'nap.py', {plan: {'metric = "speedup"': 'metric = "speedup"\nmin_timeout = 10'}});
    expect(score).toBe(0);
    expect(report.points[0].cases[0]).toMatchObject({
      status: 'tampered',
      note: expect.stringMatching(/ms of CPU time in .* ms of wall time, too little to be its work/),
    });
  });

  it('the seccomp filter denies every syscall on its list, in the chain a run starts through', () => {
    const python = resolvePython(findPython());
    const bwrap = findBwrap(process.env)!;
    const dir = tempDir();
    for (const sub of ['solution', 'scratch']) mkdirSync(path.join(dir, sub));
    const names = [...deniedSyscalls, ...enosysSyscalls];
    writeFileSync(path.join(dir, 'solution/names.txt'), names.join('\n'));
    const confinement = confinementFor(python, limits, false);
    // call-each.py stands in for runner.py: it calls each syscall with every argument -1.
    const script = path.join(fixtures, 'eval/seccomp/call-each.py');
    const launch = launchRun(
      'bwrap',
      bwrap,
      python,
      {runner: script, solutionDir: path.join(dir, 'solution'), entry: 'names.txt', scratch: path.join(dir, 'scratch')},
      confinement,
    );
    const program = path.join(dir, 'filter.bpf');
    writeFileSync(program, launch.input!.bytes);
    const fd = openSync(program, 'r');
    let result;
    try {
      result = spawnSync(launch.command, launch.args, {
        cwd: launch.cwd,
        env: launch.env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe', 'ignore', 'ignore', fd],
      });
    } finally {
      closeSync(fd);
    }
    expect(result.stderr).toBe('');
    const filtered: Record<string, number> = JSON.parse(result.stdout);
    expect(Object.keys(filtered).length).toBeGreaterThan(40);
    for (const [name, errno] of Object.entries(filtered)) expect([name, errno]).toEqual([name, enosysSyscalls.includes(name) ? ENOSYS : EPERM]);

    // The same calls outside the filter mostly fail otherwise (bad arguments): EPERM above is the filter's.
    const open = spawnSync('setsid', [python.executable, '-I', script, '--solution', path.join(dir, 'solution/names.txt')], {encoding: 'utf8'});
    const unfiltered: Record<string, number> = JSON.parse(open.stdout);
    const otherwise = Object.entries(unfiltered).filter(([, errno]) => errno !== EPERM).length;
    expect(otherwise).toBeGreaterThan(Object.keys(unfiltered).length / 2);
  });

  it('a run of its own uid owns nothing of the harness: its counter folder is the only host folder it may write', () => {
    if (!runsAsRoot()) return;
    const python = resolvePython(findPython());
    const dir = tempDir();
    for (const sub of ['solution', 'scratch', 'counter']) mkdirSync(path.join(dir, sub));
    const confinement = confinementFor(python, limits, true);
    const launch = launchRun(
      'bwrap',
      findBwrap(process.env)!,
      python,
      {runner: path.join(repoRoot, 'lib/eval/runner.py'), solutionDir: path.join(dir, 'solution'), entry: 'solution.py', scratch: path.join(dir, 'scratch')},
      confinement,
    );
    const uid = Number(/--reuid=(\d+)/.exec(launch.args.join(' '))?.[1]);
    expect(uid).toBeGreaterThanOrEqual(0x60000000);
    // Two runs never share a uid (the process limit is per uid).
    const other = launchRun(
      'bwrap',
      findBwrap(process.env)!,
      python,
      {runner: path.join(repoRoot, 'lib/eval/runner.py'), solutionDir: path.join(dir, 'solution'), entry: 'solution.py', scratch: path.join(dir, 'scratch')},
      confinement,
    );
    expect(/--reuid=(\d+)/.exec(other.args.join(' '))?.[1]).not.toBe(String(uid));
    expect(launch.args).toEqual(expect.arrayContaining(['--bounding-set=-all', '--inh-caps=-all', '--clear-groups', '--core=0']));
    expect(launch.args).not.toContain('--unshare-user');
  });
});

describe.skipIf(!canRunAsUser)('confinement when an ordinary user runs arbor', () => {
  it('every way out is closed as well, and the report says the run is the caller in a user namespace', () => {
    const dir = tempDir();
    const entry = path.join(dir, 'entry');
    cpSync(path.join(fixtures, 'eval/prefix-speed'), entry, {recursive: true});
    const plan = path.join(entry, 'plan.toml');
    writeFileSync(plan, readFileSync(plan, 'utf8').replace('metric = "speedup"', 'metric = "speedup"\nprocesses = 32\ntmpfs_mb = 16'));
    expect(runCli(['benchmark', 'lock', entry]).code).toBe(0);
    cpSync(path.join(fixtures, 'eval/solutions/escape.py'), path.join(entry, 'candidate.py'));
    const {stdout, stderr, report} = evaluateAsNobody(dir, entry);
    expect(stdout, stderr).toBe('score: 0.0\n');
    expect(report).toMatchObject({sandbox: 'bwrap', runUser: 'caller'});
    // Without a delegated cgroup, processes are bounded by RLIMIT_NPROC, counted per user namespace (Linux 5.14+).
    const open = report.limits.enforcedBy.processes === 'none' ? "\\['fork 64 processes'\\]" : '\\[\\]';
    expect(report.failure).toMatch(new RegExp(`escape: 26 tried, open: ${open}`));
  });
});

describe('the CPU clock checks itself', () => {
  it('a case whose CPU counter went backwards, or missed the work of a long case, is tampered', () => {
    expect(implausibleCpu(-0.5, 0.01)).toMatch(/went backwards .*tampered with/);
    expect(implausibleCpu(-1e-6, 0.0004)).toMatch(/went backwards/);
    expect(implausibleCpu(0, 0.6)).toMatch(/too little to be its work/);
    expect(implausibleCpu(0.003, 1.01)).toMatch(/too little to be its work/);
    // A case shorter than the kernel's tick may read 0; a loaded machine keeps an honest run waiting tens of ms.
    expect(implausibleCpu(0, 0.002)).toBeUndefined();
    expect(implausibleCpu(0.0001, 0.2)).toBeUndefined();
    expect(implausibleCpu(0.01, 0.6)).toBeUndefined();
  });

  it.skipIf(!cgroupsWork())('a run over the process limit of its cgroup is told apart from a crash', () => {
    const group = createGroup({...limits, processes: 8})!;
    try {
      expect(group.limits).toEqual({...limits, processes: 8});
      expect(group.overProcesses()).toBe(false);
      if (!group.bounds.processes) return;
      const joins = group.procs.map((_, k) => `echo $$ > "\${${k}}"`).join(' && ');
      const forks = spawnSync('/bin/sh', ['-c', `${joins} && for i in $(seq 20); do sleep 1 & done 2>/dev/null; wait`, ...group.procs], {encoding: 'utf8'});
      expect(forks.status).not.toBe(null);
      expect(group.overProcesses()).toBe(true);
      expect(group.overMemory()).toBe(false);
    } finally {
      group.destroy();
    }
  });
});
