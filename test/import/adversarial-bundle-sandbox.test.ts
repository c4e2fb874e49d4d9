// An imported task's code is an attacker's, and it runs at every make and verify of its entry, not only at the
// import: test/fixtures/algotune-escape's task writes into HOME and the zoo's `.arbor/`, reads a root-only (0600)
// file into every problem it makes, and leaves a daemon behind, from its top-level code. Imported, then locked,
// verified (the determinism check's makes and the runnable rule's eval), evaluated and made through `arbor bundle`,
// none of it gets through: the bundle's Python host runs in the sandbox (lib/sandbox/bundle-host.ts).
import {spawnSync} from 'node:child_process';
import {randomBytes, randomInt} from 'node:crypto';
import {chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {parse} from 'smol-toml';
import {describe, expect, it, onTestFinished} from 'vitest';
import {canRunAsOrdinaryUser, type CliResult, fixtures, runCli, runCliAsOrdinaryUser, tempDir} from '../helpers/cli.js';

/** Every process whose command line is `sleep <seconds>`: the fixture's daemons, by their unique duration. */
function daemons(seconds: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `sleep\0${seconds}\0`) found.push(Number(pid));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** Every file under `dir`, for a search of its bytes. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, {recursive: true, encoding: 'utf8'})
    .map((name) => path.join(dir, name))
    .filter((file) => statSync(file).isFile());
}

/** The escape_artist task of a copy of the fixture checkout, aimed at this test's paths. */
function aimedCheckout(dir: string, targets: Record<string, string>): string {
  const from = path.join(dir, 'source');
  cpSync(path.join(fixtures, 'algotune-escape'), from, {recursive: true});
  const task = path.join(from, 'AlgoTuneTasks/escape_artist/escape_artist.py');
  writeFileSync(task, readFileSync(task, 'utf8').replace('__ARBOR_TARGETS__', JSON.stringify(targets)));
  return from;
}

/**
 * A zoo in a fresh folder, a copy of the fixture checkout aimed at it, and the watch on its escapes: `step` runs a
 * command (as root, or as an ordinary user) and lists, by step, a file written into HOME or `.arbor/` and a daemon
 * left running (killed once seen); `scan` lists a file or an output that holds the secret.
 */
function escapeWatch(run: (args: string[]) => CliResult) {
  const dir = tempDir();
  const home = path.join(dir, 'home');
  mkdirSync(home);
  const zoo = path.join(dir, 'zoo');
  const secretText = `arbor-secret-${randomBytes(12).toString('hex')}`;
  const secret = path.join(dir, 'secret');
  writeFileSync(secret, secretText);
  chmodSync(secret, 0o600);
  const sleep = `${randomInt(900_000, 999_999)}.25`;
  onTestFinished(() => {
    for (const pid of daemons(sleep)) process.kill(pid, 'SIGKILL');
  });
  const targets = {home: path.join(home, 'pwned-by-escape_artist'), ledger: path.join(zoo, '.arbor', 'pwned-by-escape_artist'), secret, sleep};
  const from = aimedCheckout(dir, targets);
  const outputs: CliResult[] = [];
  // Every escape found, by step: all of them are listed when one gets through.
  const escapes: string[] = [];
  const step = (name: string, args: string[]) => {
    const result = run(args);
    outputs.push(result);
    expect(result.code, `${name}: ${result.stderr}`).toBe(0);
    // (a) nothing written outside its sandbox; (c) no process of it outlives the call.
    for (const [what, file] of [
      ['HOME', targets.home],
      ['.arbor/', targets.ledger],
    ] as const) {
      if (existsSync(file)) escapes.push(`${name} wrote into ${what}`);
      rmSync(file, {force: true});
    }
    for (const pid of daemons(sleep)) {
      escapes.push(`${name} left a daemon running (pid ${pid})`);
      process.kill(pid, 'SIGKILL');
    }
    return result;
  };
  // (b) the secret is in no case, no verdict, no ledger row, no output.
  const scan = (folders: string[]) => {
    const reversed = [...secretText].reverse().join('');
    for (const file of folders.flatMap(filesUnder)) {
      const text = readFileSync(file).toString('latin1');
      if (text.includes(secretText) || text.includes(reversed)) escapes.push(`${path.relative(dir, file)} holds the secret file`);
    }
    for (const output of outputs) if ((output.stdout + output.stderr).includes(secretText)) escapes.push('an output holds the secret file');
    return escapes;
  };
  return {dir, home, zoo, from, entry: path.join(zoo, 'algotune_escape_artist'), step, scan};
}

/** `arbor bundle make` of the entry's first dev point, seeds 0-1, into `work`. */
function makeArgs(entry: string, work: string): string[] {
  const plan = parse(readFileSync(path.join(entry, 'plan.toml'), 'utf8')) as {dev: {points: Record<string, number>[]}};
  return ['bundle', path.join(entry, 'bundle'), 'make', work, '--point', JSON.stringify(plan.dev.points[0]), '--seeds', '0-1'];
}

/** Debian's python3, which an ordinary user can run (a pyenv under a 0700 /root cannot be), when it has numpy. */
const systemPython = spawnSync('/usr/bin/python3', ['-c', 'import numpy'], {cwd: '/'}).status === 0 ? '/usr/bin/python3' : undefined;

describe("an imported task's code runs only inside the sandbox", () => {
  it('writes nothing to HOME or .arbor/, carries no root-only file out in its cases and leaves no process, at import, lock, verify, eval and bundle make', () => {
    let home = '';
    const watch = escapeWatch((args) => runCli(args, {env: {HOME: home}}));
    home = watch.home;
    const {step, entry} = watch;
    step('import', ['benchmark', 'import', 'algotune', watch.from, watch.zoo, '--target-ms', '1', '--task', 'escape_artist']);
    step('lock', ['benchmark', 'lock', entry]);
    step('verify', ['benchmark', 'verify', entry]);
    const scored = step('eval', ['benchmark', 'eval', entry, 'dev']);
    expect(scored.stdout).toMatch(/^score: /m);
    const work = path.join(watch.dir, 'work');
    step('bundle make', makeArgs(entry, work));
    step('bundle verify', ['bundle', path.join(entry, 'bundle'), 'verify', work]);
    expect(watch.scan([watch.zoo, work])).toEqual([]);
  }, 300_000);

  it.skipIf(!canRunAsOrdinaryUser || !systemPython)(
    "as an ordinary user too: its make writes nothing to the user's HOME or .arbor/, carries none of the user's own 0600 files out, leaves no process",
    () => {
      let owned: string[] = [];
      const watch = escapeWatch((args) => runCliAsOrdinaryUser(args, owned, {env: {ARBOR_PYTHON: systemPython}}));
      // HOME is the first folder handed over; the whole test folder (the secret too) becomes the user's.
      owned = [watch.home, watch.dir];
      watch.step('import', ['benchmark', 'import', 'algotune', watch.from, watch.zoo, '--target-ms', '1', '--task', 'escape_artist']);
      const work = path.join(watch.dir, 'work');
      watch.step('bundle make', makeArgs(watch.entry, work));
      expect(watch.scan([watch.zoo, work])).toEqual([]);
    },
    180_000,
  );

  it('refuses with one line and exit 1 where no sandbox can start (no bwrap, or one that fails), naming the way to run a trusted bundle unsandboxed', () => {
    const dir = tempDir();
    const work = path.join(dir, 'work');
    const bundle = path.join(dir, 'bundle');
    cpSync(path.join(fixtures, '..', '..', 'zoo', 'modmatmul', 'bundle'), bundle, {recursive: true});
    const args = ['bundle', bundle, 'make', work, '--point', '{"M":8,"K":8,"N":8,"W":30}', '--seeds', '0'];
    const refused = runCli(args, {env: {ARBOR_BWRAP: path.join(dir, 'no-bwrap')}});
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(
      /bubblewrap \(bwrap\) is not installed: a bundle's Python code \(generator, oracle, verifier\) runs only in the sandbox; install bubblewrap .* or set ARBOR_UNSANDBOXED_BUNDLES=1/,
    );
    expect(existsSync(path.join(work, 'manifest.json'))).toBe(false);
    // A bwrap that cannot build a sandbox here (user namespaces off, say): its trial's reason, and the same fixes.
    const broken = runCli(args, {env: {ARBOR_BWRAP: '/bin/false'}});
    expect(broken.code).toBe(1);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(broken.stderr).toMatch(
      /bwrap cannot start a sandbox here \(.*\): a bundle's Python code runs only in the sandbox; .* or set ARBOR_UNSANDBOXED_BUNDLES=1/,
    );
    const trusted = runCli(args, {env: {ARBOR_BWRAP: path.join(dir, 'no-bwrap'), ARBOR_UNSANDBOXED_BUNDLES: '1'}});
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(existsSync(path.join(work, 'manifest.json'))).toBe(true);
  });
});
