// One CPU per eval, machine-wide (every eval leases one, timed or not): the lock files, their release when an eval ends however it ends,
// and two evals started at once; as root, a lease folder or lock file another user could plant or change is not used, and
// another user's process holding every CPU stalls an eval only for a bound.
import {spawn, spawnSync, type ChildProcess} from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import {describe, expect, it, onTestFinished} from 'vitest';
import {CpusHeldByOthers, leaseFolder, leaseOneOf, LeaseUntrusted, tryLease, type CpuLease} from '../../lib/sandbox/cpu-lease.js';
import {leaseOrder} from '../../lib/sandbox/pin.js';
import {cliPath, fixtures, repoRoot, tempDir} from '../helpers/cli.js';

const linux = process.platform === 'linux' && spawnSync('flock', ['--version']).status === 0;

describe('the order CPUs are leased in', () => {
  it('puts the idlest first, and among CPUs about as idle the highest-numbered, so evals one after another share a CPU', () => {
    const ticks = (values: number[]) => (cpu: number) => values[cpu]!;
    expect(leaseOrder([0, 1], ticks([5, 5]), 5)).toEqual([1, 0]);
    expect(leaseOrder([0, 1], ticks([0, 0]), 5)).toEqual([1, 0]);
    expect(leaseOrder([0, 1], ticks([5, 0]), 5)).toEqual([0, 1]);
    expect(leaseOrder([0, 1, 2, 3], ticks([5, 1, 4, 0]), 5)).toEqual([2, 0, 1, 3]);
    expect(leaseOrder([3], ticks([0, 0, 0, 0]), 5)).toEqual([3]);
  });
});

describe.runIf(linux)('CPU leases', () => {
  it('holds a CPU for one holder at a time, and frees it on release', async () => {
    const folder = tempDir('arbor-leases-');
    const first = await tryLease(folder, 0);
    expect(first).toMatchObject({cpu: 0, file: path.join(folder, 'cpu0.lock')});
    expect(await tryLease(folder, 0)).toBeUndefined();
    const other = await tryLease(folder, 1);
    expect(other?.cpu).toBe(1);
    first!.release();
    // The holder ends asynchronously: the lock is free once it has.
    const again = await leaseOneOf(folder, [0], {pollMs: 20});
    expect(again.cpu).toBe(0);
    again.release();
    other!.release();
  });

  it('is released by the kernel when the eval holding it is killed', async () => {
    const folder = tempDir('arbor-leases-');
    const module = path.join(repoRoot, 'dist/lib/sandbox/cpu-lease.js');
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import {tryLease} from ${JSON.stringify(module)}; const lease = await tryLease(process.argv[1], 0); console.log(lease ? 'held' : 'busy'); setInterval(() => {}, 1000);`,
        folder,
      ],
      {stdio: ['ignore', 'pipe', 'inherit']},
    );
    const said = await new Promise<string>((resolve) => holder.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim())));
    expect(said).toBe('held');
    expect(await tryLease(folder, 0)).toBeUndefined();
    holder.kill('SIGKILL');
    const lease = await leaseOneOf(folder, [0], {pollMs: 20});
    expect(lease.cpu).toBe(0);
    lease.release();
  });

  it('waits, saying so, while every CPU is leased', async () => {
    const folder = tempDir('arbor-leases-');
    const held = await tryLease(folder, 0);
    const waits: number[] = [];
    setTimeout(() => held!.release(), 300);
    const lease = await leaseOneOf(folder, [0], {pollMs: 20, onWait: (waited) => waits.push(waited)});
    expect(waits.length).toBeGreaterThanOrEqual(1);
    // Said at once, before the first poll.
    expect(waits[0]).toBeLessThan(0.2);
    lease.release();
  });

  it('gives evals started at once different CPUs; one more than there are CPUs waits for one', async () => {
    const folder = tempDir('arbor-leases-');
    const cpus = Number(spawnSync('nproc', {encoding: 'utf8'}).stdout.trim());
    const reports = tempDir('arbor-leased-evals-');
    const evals = Array.from(
      {length: cpus + 1},
      (_, k) =>
        new Promise<{k: number; stderr: string; code: number | null}>((resolve) => {
          const child = spawn(
            process.execPath,
            [cliPath, 'benchmark', 'eval', path.join(fixtures, 'eval/accuracy-abs'), 'dev', '--json-file', path.join(reports, `${k}.json`)],
            {
              env: {...process.env, ARBOR_CPU_LEASES: folder, NO_COLOR: '1'},
              stdio: ['ignore', 'ignore', 'pipe'],
            },
          );
          let stderr = '';
          child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
          child.on('exit', (code) => resolve({k, stderr, code}));
        }),
    );
    const done = await Promise.all(evals);
    expect(done.map((each) => each.code)).toEqual(done.map(() => 0));
    const runs = done.map(({k, stderr}) => {
      const report = JSON.parse(readFileSync(path.join(reports, `${k}.json`), 'utf8'));
      return {cpu: report.cpu as string, waited: /waiting for a CPU: every allowed CPU/.test(stderr)};
    });
    expect(runs.every((run) => run.cpu !== undefined)).toBe(true);
    // At most one eval per CPU ran without waiting; the one over the count waited for a lease.
    const unwaited = runs.filter((run) => !run.waited);
    expect(new Set(unwaited.map((run) => run.cpu)).size).toBe(unwaited.length);
    expect(runs.filter((run) => run.waited).length).toBeGreaterThanOrEqual(1);
  }, 180_000);
});

// Another user: nobody (65534), through setpriv (util-linux), where this suite runs as root.
const nobody = 65534;
const asNobody = ['setpriv', `--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups'];
const rootWithNobody = linux && process.getuid?.() === 0 && spawnSync(asNobody[0]!, [...asNobody.slice(1), 'true']).status === 0;
const machineCpus = () => Number(spawnSync('nproc', ['--all'], {encoding: 'utf8'}).stdout.trim());
const cpuModule = path.join(repoRoot, 'dist/lib/sandbox/cpu-lease.js');

/** A folder other users can reach, in a fresh one of `mode` (1777: like /tmp). */
function reachableFolder(mode = 0o755): string {
  const parent = tempDir('arbor-leases-');
  chmodSync(parent, mode);
  return path.join(parent, 'leases');
}

/** Start `command` as nobody in a process group of its own, killed when the test ends. */
function spawnAsNobody(command: string[]): ChildProcess {
  const child = spawn(asNobody[0]!, [...asNobody.slice(1), ...command], {detached: true, stdio: ['ignore', 'pipe', 'inherit']});
  onTestFinished(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Ended already.
    }
  });
  return child;
}

/** Until every CPU's lock file in `folder` is held by someone else (who waits for a lock: this probe holds each for a moment). */
async function untilAllHeld(folder: string, cpus: number[]): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    const leases = await Promise.all(cpus.map((cpu) => tryLease(folder, cpu)));
    leases.forEach((lease) => lease?.release());
    if (leases.every((lease) => lease === undefined)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`the lock files in ${folder} were never all held`);
}

describe.runIf(linux)('the lease descriptor', () => {
  it("is not inherited by the eval's children", async () => {
    const folder = tempDir('arbor-leases-');
    const lease = await tryLease(folder, 0);
    const fds = spawnSync('sh', ['-c', 'ls -l /proc/$$/fd'], {encoding: 'utf8'}).stdout;
    expect(fds).not.toContain('cpu0.lock');
    lease!.release();
  });
});

describe.runIf(rootWithNobody)('CPU leases as root, with another user on the host', () => {
  const ownFolder = (folder: string) => `${folder}-${process.getuid!()}`;

  it('makes the shared folder 0755 with a 0644 lock file for every CPU of the machine', () => {
    const folder = reachableFolder();
    expect(leaseFolder({ARBOR_CPU_LEASES: folder})).toBe(folder);
    expect(statSync(folder).mode & 0o7777).toBe(0o755);
    const files = readdirSync(folder).sort();
    expect(files).toEqual(Array.from({length: machineCpus()}, (_, k) => `cpu${k}.lock`).sort());
    for (const file of files) expect(statSync(path.join(folder, file)).mode & 0o7777).toBe(0o644);
  });

  it('does not trust a folder anyone may write (1777) or another uid owns: leases in its own, and says so', async () => {
    for (const [setup, why] of [
      [(folder: string) => chmodSync(folder, 0o1777), /is not trusted: writable by others \(mode 1777\)/],
      [(folder: string) => chownSync(folder, nobody, nobody), /is not trusted: owned by uid 65534, neither root nor this user/],
    ] as const) {
      const folder = reachableFolder(0o1777);
      mkdirSync(folder);
      setup(folder);
      const warnings: string[] = [];
      const lease = await leaseOneOf(folder, [0], {onWarning: (text) => warnings.push(text)});
      expect(lease.file).toBe(path.join(ownFolder(folder), 'cpu0.lock'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(why);
      expect(warnings[0]).toContain(`${folder} is not trusted`);
      expect(warnings[0]).toContain(`leasing in ${ownFolder(folder)} instead`);
      expect(readdirSync(folder)).toEqual([]);
      expect(statSync(ownFolder(folder)).mode & 0o7777).toBe(0o700);
      // Root's other evals lease in the same folder of its own.
      expect(await tryLease(ownFolder(folder), 0)).toBeUndefined();
      lease.release();
    }
  });

  it('uses no lease where its own folder is not trusted either (another uid made it first)', async () => {
    const folder = reachableFolder(0o1777);
    mkdirSync(folder);
    chmodSync(folder, 0o1777);
    mkdirSync(ownFolder(folder));
    chownSync(ownFolder(folder), nobody, nobody);
    const warnings: string[] = [];
    await expect(leaseOneOf(folder, [0], {onWarning: (text) => warnings.push(text)})).rejects.toThrow(
      new LeaseUntrusted(`${ownFolder(folder)} is not trusted: owned by uid 65534, neither root nor this user`),
    );
    expect(warnings).toHaveLength(1);
    expect(readdirSync(ownFolder(folder))).toEqual([]);
  });

  it('never follows a symlink planted as a lock file: its target is neither made nor changed', async () => {
    const folder = reachableFolder(0o1777);
    const outside = path.dirname(folder);
    // The audit's case: another user's link in a world-writable lease folder.
    mkdirSync(folder);
    chmodSync(folder, 0o1777);
    expect(spawnSync(asNobody[0]!, [...asNobody.slice(1), 'ln', '-s', path.join(outside, 'made-by-root'), path.join(folder, 'cpu0.lock')]).status).toBe(0);
    const warnings: string[] = [];
    const lease = await leaseOneOf(folder, [0], {onWarning: (text) => warnings.push(text)});
    expect(lease.file).toBe(path.join(ownFolder(folder), 'cpu0.lock'));
    expect(warnings.join('\n')).toMatch(/not trusted/);
    expect(existsSync(path.join(outside, 'made-by-root'))).toBe(false);
    lease.release();

    // A link in a folder that is trusted (root's, 0755): to a missing file and to an existing one.
    const trusted = path.join(outside, 'trusted');
    leaseFolder({ARBOR_CPU_LEASES: trusted});
    const kept = path.join(outside, 'kept');
    writeFileSync(kept, 'keep');
    chmodSync(kept, 0o600);
    utimesSync(kept, 1_000_000, 1_000_000);
    for (const [cpu, target] of [
      [0, path.join(outside, 'missing')],
      [1, kept],
    ] as const) {
      unlinkSync(path.join(trusted, `cpu${cpu}.lock`));
      symlinkSync(target, path.join(trusted, `cpu${cpu}.lock`));
      await expect(tryLease(trusted, cpu)).rejects.toThrow(new LeaseUntrusted(`${path.join(trusted, `cpu${cpu}.lock`)} is not trusted: a symlink`));
    }
    const seen: string[] = [];
    const own = await leaseOneOf(trusted, [0], {onWarning: (text) => seen.push(text)});
    expect(own.file).toBe(path.join(ownFolder(trusted), 'cpu0.lock'));
    expect(seen).toEqual([
      `CPU leases: ${path.join(trusted, 'cpu0.lock')} is not trusted: a symlink; leasing in ${ownFolder(trusted)} instead, which evals of other users do not see`,
    ]);
    own.release();
    expect(existsSync(path.join(outside, 'missing'))).toBe(false);
    expect(readFileSync(kept, 'utf8')).toBe('keep');
    expect(statSync(kept).mode & 0o7777).toBe(0o600);
    expect(statSync(kept).mtimeMs).toBe(1_000_000_000);
    // The folder itself a symlink (to a folder root trusts) is not used either.
    const link = path.join(outside, 'link');
    symlinkSync(ownFolder(trusted), link);
    await expect(tryLease(link, 0)).rejects.toThrow(`${link} is not trusted: a symlink`);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it('stops waiting after the bound when processes of another uid hold every CPU, naming the uid', async () => {
    const folder = reachableFolder();
    leaseFolder({ARBOR_CPU_LEASES: folder});
    const cpus = [0, 1];
    // Locked on inherited descriptors by a flock(1) that exits: /proc/locks names a pid gone, the holder is the shell's sleep.
    const files = cpus.map((cpu) => path.join(folder, `cpu${cpu}.lock`));
    spawnAsNobody(['sh', '-c', `exec 3<${files[0]} 4<${files[1]}; flock 3 && flock 4 && exec sleep 60`]);
    await untilAllHeld(folder, cpus);
    const started = Date.now();
    const waits: number[] = [];
    const error = await leaseOneOf(folder, cpus, {pollMs: 50, foreignWait: 1, onWait: (waited) => waits.push(waited)}).catch((failure) => failure);
    const waited = (Date.now() - started) / 1000;
    expect(error).toBeInstanceOf(CpusHeldByOthers);
    expect((error as CpusHeldByOthers).uids).toEqual([nobody]);
    expect(waited).toBeGreaterThanOrEqual(1);
    expect(waited).toBeLessThan(5);
    expect(waits.length).toBeGreaterThanOrEqual(1);
  });

  it('keeps waiting past the bound while an eval of its own uid holds a CPU', async () => {
    const folder = reachableFolder();
    leaseFolder({ARBOR_CPU_LEASES: folder});
    const own = (await tryLease(folder, 0))!;
    spawnAsNobody(['flock', path.join(folder, 'cpu1.lock'), 'sleep', '60']);
    await untilAllHeld(folder, [1]);
    let lease: CpuLease | Error | undefined;
    void leaseOneOf(folder, [0, 1], {pollMs: 50, foreignWait: 0.2}).then(
      (taken) => (lease = taken),
      (error: Error) => (lease = error),
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(lease).toBeUndefined();
    own.release();
    for (let tries = 0; tries < 100 && !lease; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect((lease as CpuLease).cpu).toBe(0);
    (lease as CpuLease).release();
  });

  it("lets another user lease in root's folder, read-only, and use a folder of its own where a lock file is missing", async () => {
    const folder = reachableFolder(0o1777);
    leaseFolder({ARBOR_CPU_LEASES: folder});
    const script = `import {leaseFolder, leaseOneOf} from ${JSON.stringify(cpuModule)};
      const warnings = [];
      const lease = await leaseOneOf(leaseFolder({ARBOR_CPU_LEASES: process.argv[1]}), [Number(process.argv[2])], {onWarning: (text) => warnings.push(text)});
      console.log(JSON.stringify({file: lease.file, warnings}));
      setInterval(() => {}, 1000);`;
    const leaseAsNobody = async (cpu: number) => {
      const child = spawnAsNobody([process.execPath, '--input-type=module', '-e', script, folder, String(cpu)]);
      return {
        child,
        said: JSON.parse(await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString())))) as {
          file: string;
          warnings: string[];
        },
      };
    };
    const {child, said} = await leaseAsNobody(0);
    expect(said).toEqual({file: path.join(folder, 'cpu0.lock'), warnings: []});
    // Root's eval sees that CPU leased: the same lock.
    expect(await tryLease(folder, 0)).toBeUndefined();
    process.kill(-child.pid!, 'SIGKILL');
    const lease = await leaseOneOf(folder, [0], {pollMs: 20});
    lease.release();

    unlinkSync(path.join(folder, 'cpu1.lock'));
    const missing = await leaseAsNobody(1);
    expect(missing.said.file).toBe(path.join(`${folder}-${nobody}`, 'cpu1.lock'));
    expect(missing.said.warnings).toEqual([
      `CPU leases: ${path.join(folder, 'cpu1.lock')} is missing, and only the folder's owner (uid 0) can make it; leasing in ${folder}-${nobody} instead, which evals of other users do not see`,
    ]);
  });

  it('runs `arbor benchmark eval` on: in its own folder where the shared one is not trusted, unleased once other uids held every CPU past the bound', async () => {
    const evalIn = (folder: string, env: NodeJS.ProcessEnv = {}) => {
      const report = path.join(path.dirname(folder), 'report.json');
      return new Promise<{code: number | null; stderr: string; cpu: string | undefined}>((resolve) => {
        const child = spawn(process.execPath, [cliPath, 'benchmark', 'eval', path.join(fixtures, 'eval/accuracy-abs'), 'dev', '--json-file', report], {
          env: {...process.env, ARBOR_CPU_LEASES: folder, NO_COLOR: '1', ...env},
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('exit', (code) => resolve({code, stderr, cpu: code === 0 ? JSON.parse(readFileSync(report, 'utf8')).cpu : undefined}));
      });
    };
    const open = reachableFolder(0o1777);
    mkdirSync(open);
    chmodSync(open, 0o1777);
    const first = await evalIn(open);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`warning: CPU leases: ${open} is not trusted: writable by others (mode 1777); leasing in ${ownFolder(open)} instead`);
    expect(first.cpu).toBeDefined();

    const shared = reachableFolder();
    leaseFolder({ARBOR_CPU_LEASES: shared});
    const cpus = Array.from({length: machineCpus()}, (_, k) => k);
    const command = cpus.flatMap((cpu) => ['flock', path.join(shared, `cpu${cpu}.lock`)]);
    spawnAsNobody([...command, 'sleep', '120']);
    await untilAllHeld(shared, cpus);
    const second = await evalIn(shared, {ARBOR_CPU_LEASE_FOREIGN_WAIT: '1'});
    expect(second.code).toBe(0);
    expect(second.stderr).toMatch(
      /warning: no CPU lease: every allowed CPU \([\d,-]+\) has been leased for over 1 s by processes of uid 65534, not this user's evals; going on without a lease on CPU \d+, the idlest: its times may be disturbed/,
    );
    expect(second.cpu).toBeDefined();
  }, 120_000);
});
