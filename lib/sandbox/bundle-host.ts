/**
 * Where a bundle's Python code runs: the generator, oracle and verifier of a
 * Python bundle (lib/bundle's host.py) are started here, in a bubblewrap
 * sandbox built as a solution's run is (sandbox.ts), whoever wrote them. An
 * imported AlgoTune task is the bundle's own code, written by a stranger, and
 * it runs at every make and verify (the eval's repetitions, `lock`, verify's
 * determinism check, `arbor bundle make`): nothing in a bundle tells a trusted
 * author from an untrusted one that the author could not forge or strip, so the
 * rule is one for every Python bundle. The host sees the system, its
 * interpreter, host.py and stream.py and the bundle's folder (read-only, its
 * cwd, at `/solution`), a private tmpfs `/tmp` and `HOME`; no network, no other
 * folder (the zoo's `.arbor/`, the salt, the user's HOME, the solution), and
 * the run's PID namespace ends every process it starts when it ends. It writes
 * nothing: the cases, expected answers and verdicts it computes cross its pipe
 * and arbor writes them.
 */
import {chmodSync, cpSync, lstatSync, mkdtempSync, readdirSync, rmSync} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {HarnessError} from '../errors.js';
import {
  bwrapArguments,
  dropCommand,
  findBwrap,
  resolvePython,
  runsAsRoot,
  runUid,
  sandboxProblem,
  seccompFd,
  type Confinement,
  type Launch,
} from './sandbox.js';
import {seccompProgram} from './seccomp.js';

/** The variable that runs bundle code unsandboxed, as the user: for a machine without bubblewrap and bundles one trusts. */
const unsandboxedBundlesVariable = 'ARBOR_UNSANDBOXED_BUNDLES';

/** The fix that runs without a sandbox, as every refusal here names it. */
const unsandboxed = `set ${unsandboxedBundlesVariable}=1 to run it as yourself (only a bundle you trust)`;

/** Where the bundle's folder and host.py appear inside the sandbox. */
const inside = {bundle: '/solution', host: '/arbor/runner.py', stream: '/arbor/stream.py'};

/** A bundle host's start: the launch, where a bundle file is seen inside, and why a sandbox would not start. */
export interface BundleHostLaunch extends Launch {
  /** Whether the host runs in the sandbox. */
  sandboxed: boolean;
  /** A file of the bundle's folder as the host sees it. */
  inside(file: string): string;
  /** Called once the host has ended: removes what its start made (a readable copy of the bundle's folder). */
  release(): void;
  /** Why the sandbox does not start here, as one line with the fix (asked only after a host failed to start: the trial costs a start). */
  problem(): string | undefined;
}

/** What a bundle host is started from: its interpreter (a path or a name on the PATH), the bundle's folder and host.py. */
export interface BundleHostSpec {
  python: string;
  bundleDir: string;
  host: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * The command that starts a bundle's Python host: sandboxed, unless the user
 * set ARBOR_UNSANDBOXED_BUNDLES=1. A HarnessError (one line, the fix) when
 * bubblewrap is not installed.
 */
export function bundleHostLaunch(spec: BundleHostSpec): BundleHostLaunch {
  const env = spec.env ?? process.env;
  if (env[unsandboxedBundlesVariable] === '1') return unsandboxedHost(spec, env);
  const bwrap = findBwrap(env);
  if (!bwrap) {
    throw new HarnessError(
      `bubblewrap (bwrap) is not installed: a bundle's Python code (generator, oracle, verifier) runs only in the sandbox; install bubblewrap (e.g. apt-get install bubblewrap), or ${unsandboxed}`,
      'no-sandbox',
    );
  }
  const python = resolvePython(spec.python);
  const confinement: Confinement = {
    seccomp: seccompProgram(python.executable),
    tmpfsBytes: 256 << 20,
    // A generator may use threads and a pool of processes, never hundreds.
    processes: 256,
    dropToOwnUid: runsAsRoot(),
  };
  const view = readableView(spec.bundleDir, confinement.dropToOwnUid);
  const mounts = {runner: spec.host, solutionDir: view.dir, entry: '', scratch: spec.bundleDir};
  const uid = confinement.dropToOwnUid ? runUid() : undefined;
  const sandbox = bwrapArguments(bwrap, python, mounts, confinement, undefined, uid);
  // host.py runs in the bundle's folder (its helper modules import from there), not in a run's HOME.
  sandbox[sandbox.indexOf('--chdir') + 1] = inside.bundle;
  const args = [
    ...sandbox,
    // host.py loads arbor's Stream from its own folder.
    '--ro-bind',
    path.join(path.dirname(spec.host), 'stream.py'),
    inside.stream,
    '--',
    ...dropCommand(confinement, uid, false),
    python.executable,
    '-I',
    '-B',
    inside.host,
  ];
  return {
    command: bwrap,
    args,
    env: {},
    cwd: spec.bundleDir,
    input: {fd: seccompFd, bytes: confinement.seccomp!},
    sandboxed: true,
    inside: (file) => path.join(inside.bundle, path.relative(spec.bundleDir, file)),
    release: view.remove,
    problem: () => {
      const why = sandboxProblem(bwrap, python, mounts, confinement);
      return why && `${why}: a bundle's Python code runs only in the sandbox; fix it (arbor doctor says what this machine lacks), or ${unsandboxed}`;
    },
  };
}

/** The host as the user, in the bundle's folder, with the user's environment: arbor's behaviour before bundles were sandboxed. */
function unsandboxedHost(spec: BundleHostSpec, env: NodeJS.ProcessEnv): BundleHostLaunch {
  return {
    command: spec.python,
    args: ['-I', '-B', spec.host],
    env,
    cwd: spec.bundleDir,
    sandboxed: false,
    inside: (file) => file,
    release: () => {},
    problem: () => undefined,
  };
}

/**
 * The bundle's folder as the host's own uid can read it. As root the host is a
 * fresh uid, which needs every folder open to all users: an eval without the
 * sandbox keeps its copy of the bundle 0700 (its solution runs as another uid),
 * so such a folder is copied, as is, into a private folder and its folders
 * opened (0755). Files keep their modes (a file only its owner reads stays so)
 * and links stay links, which resolve inside the sandbox, where nothing of the
 * machine's own files is mounted.
 */
function readableView(dir: string, ownUid: boolean): {dir: string; remove: () => void} {
  if (!ownUid || foldersOpen(dir)) return {dir, remove: () => {}};
  const parent = mkdtempSync(path.join(os.tmpdir(), 'arbor-bundle-host-'));
  const copy = path.join(parent, 'bundle');
  cpSync(dir, copy, {recursive: true, verbatimSymlinks: true});
  openFolders(copy);
  return {dir: copy, remove: () => rmSync(parent, {recursive: true, force: true})};
}

/** Whether `dir` and every folder below it can be listed and entered by any user (links are not followed). */
function foldersOpen(dir: string): boolean {
  if ((lstatSync(dir).mode & 0o005) !== 0o005) return false;
  return readdirSync(dir, {withFileTypes: true}).every((entry) => !entry.isDirectory() || foldersOpen(path.join(dir, entry.name)));
}

function openFolders(dir: string): void {
  chmodSync(dir, 0o755);
  for (const entry of readdirSync(dir, {withFileTypes: true})) if (entry.isDirectory()) openFolders(path.join(dir, entry.name));
}
