/**
 * Python entry points: `fherma.toml` may name `.py` files for generate, oracle
 * and verify. One `python3 -I host.py` process per make or verify (per
 * authored scope, see `withAuthored`), started lazily in the bundle's folder;
 * each call is one framed request over its stdin/stdout (host.py describes the
 * frames). The functions returned here stand in for the JavaScript default
 * exports, so the work directory code treats both languages alike.
 */
import {spawn, type ChildProcess, type ChildProcessByStdio} from 'node:child_process';
import {existsSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import type {Readable, Writable} from 'node:stream';
import {fileURLToPath} from 'node:url';
import {bindingShape, type Binding, type Bundle} from './bundle.js';
import {TENSOR_ARRAYS, tensorBytes, type ElementType, type Tensor} from './codec.js';
import {BundleError} from './errors.js';
import {onPath, pyenvTarget} from '../pyenv.js';

/** What a scope of authored code keeps: the Python host, started on first use. */
export interface PythonScope {
  bundle: Bundle;
  /** Stop the process between calls (authored.ts, AuthoredOptions). */
  stopBetweenCalls?: boolean;
  python?: Promise<PythonHost>;
  /** Called when the scope ends. */
  closers: (() => Promise<void>)[];
}

type Authored = (...args: unknown[]) => Promise<unknown>;

/** The function each role's module must define. */
const FUNCTIONS: Record<string, string> = {generator: 'generate', oracle: 'oracle', verifier: 'verify'};

/** host.py of this install (works from lib/ and from dist/lib/). */
function hostPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../../lib/bundle/host.py'), path.resolve(here, 'host.py')];
  const found = candidates.find((file) => existsSync(file));
  if (!found) throw new BundleError(`arbor's host.py is missing (looked in ${candidates.join(', ')}); reinstall arbor`);
  return found;
}

/** The Python entry point `file` as a function with the JavaScript contract. */
export async function importPython(scope: PythonScope, file: string, role: string): Promise<Authored> {
  const fn = FUNCTIONS[role] ?? role;
  const fail = (why: string): never => {
    throw new BundleError(`cannot load the ${role} ${file}: ${why}`);
  };
  // A scope may outlive its process (an eval's scope spans many makes): one that died is replaced by a fresh one.
  if (!scope.python || (await scope.python.then((host) => host.hasEnded()).catch(() => false))) {
    const starting = PythonHost.start(scope.bundle, scope.stopBetweenCalls === true);
    scope.python = starting;
    scope.closers.push(async () => (await starting.catch(() => undefined))?.close());
  }
  let host: PythonHost;
  try {
    host = await scope.python;
  } catch (error) {
    return fail((error as Error).message);
  }
  // The host may see the bundle's folder elsewhere (the sandbox binds it at /solution): its requests name the file as it sees it.
  const loaded = await host.request({op: 'load', file: host.inside(file), function: fn});
  if (!loaded.header.ok) fail(describePython(loaded.header.error));
  const bundle = scope.bundle;
  const seen = host.inside(file);
  const shapes = (bindings: Binding[], point: Record<string, number>) =>
    bindings.map((b) => ({name: b.name, type: b.type, shape: bindingShape(b, point).map(Number)}));
  const tensors = (group: string, bindings: Binding[], values: Record<string, Tensor>, point: Record<string, number>): Outgoing[] =>
    shapes(bindings, point).map((b) => ({group, ...b, array: values[b.name]!}));
  const reply = async (header: Record<string, unknown>, out: Outgoing[] = []) => {
    const answer = await host.request(header, out);
    if (!answer.header.ok) throw pythonError(answer.header.error);
    return answer;
  };
  const asTensors = (bindings: Binding[], answer: Reply) => Object.fromEntries(bindings.map((b, k) => [b.name, toTensor(b.type, answer.payloads[k]!)]));

  if (fn === 'generate') {
    return async (point, stream) => {
      const p = point as Record<string, number>;
      const s = stream as {spec: string; seed: number; position: number};
      const answer = await reply({op: 'generate', file: seen, point: p, spec: s.spec, seed: s.seed, position: s.position, bindings: shapes(bundle.args, p)});
      return asTensors(bundle.args, answer);
    };
  }
  if (fn === 'oracle') {
    return async (point, args) => {
      const p = point as Record<string, number>;
      const answer = await reply(
        {op: 'oracle', file: seen, point: p, bindings: shapes(bundle.results, p)},
        tensors('args', bundle.args, args as Record<string, Tensor>, p),
      );
      return asTensors(bundle.results, answer);
    };
  }
  return async (point, args, expected, actual, accept) => {
    const p = point as Record<string, number>;
    const out = [
      ...tensors('args', bundle.args, args as Record<string, Tensor>, p),
      ...tensors('expected', bundle.results, expected as Record<string, Tensor>, p),
      ...tensors('actual', bundle.results, actual as Record<string, Tensor>, p),
    ];
    const accepted = JSON.parse(JSON.stringify(accept ?? {}, (_key, v) => (typeof v === 'bigint' ? Number(v) : v)));
    return (await reply({op: 'verify', file: seen, point: p, accept: accepted}, out)).header.value;
  };
}

interface Outgoing {
  group: string;
  name: string;
  type: ElementType;
  shape: number[];
  array: Tensor;
}

interface Reply {
  header: {ok: boolean; error?: PythonFailure; value?: unknown; tensors?: {name: string; bytes: number}[]};
  payloads: Uint8Array[];
}

interface PythonFailure {
  type: string;
  message: string;
  where?: string | null;
}

function describePython(error: PythonFailure | undefined): string {
  if (!error) return 'no reply';
  return `${error.type}: ${error.message}${error.where ? ` (${error.where})` : ''}`;
}

/** A Python exception as a JavaScript error whose name is the Python type (describeThrown prints `Type: message`). */
function pythonError(error: PythonFailure | undefined): Error {
  const e = new Error(`${error?.message ?? 'no reply'}${error?.where ? ` (${error.where})` : ''}`);
  e.name = error?.type ?? 'Error';
  return e;
}

/** A typed array over the reply's bytes (each payload has its own aligned ArrayBuffer). */
function toTensor(type: ElementType, bytes: Uint8Array): Tensor {
  const Ctor = TENSOR_ARRAYS[type];
  const length = bytes.byteLength / Ctor.BYTES_PER_ELEMENT;
  const tensor = new Ctor(bytes.buffer as ArrayBuffer, bytes.byteOffset, length);
  // A big-endian host reads the little-endian bytes swapped: one swap in place.
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1 && Ctor.BYTES_PER_ELEMENT > 1)
    for (let o = 0; o < bytes.length; o += Ctor.BYTES_PER_ELEMENT) bytes.subarray(o, o + Ctor.BYTES_PER_ELEMENT).reverse();
  return tensor;
}

/** The interpreter `python` (a name looked up on the PATH, or a path) runs from `cwd`: a pyenv shim's target where it is certain, else `python` itself. */
function interpreterOf(python: string, cwd: string): string {
  const found = python.includes('/') ? path.resolve(cwd, python) : onPath(python, process.env, cwd);
  return (found && pyenvTarget(found, process.env, cwd)) ?? python;
}

/**
 * The host's stdin and stdout, asked for as pipes by its `stdio` (an array built at run time, so
 * spawn's overloads type the child as a plain ChildProcess): checked, then named.
 */
function piped(child: ChildProcess): ChildProcessByStdio<Writable, Readable, null> {
  if (!child.stdin || !child.stdout) throw new BundleError('the Python host started without its stdin and stdout pipes: report this as a bug');
  return child as ChildProcessByStdio<Writable, Readable, null>;
}

/** The Python process of one scope and its framed pipe. */
class PythonHost {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly input = new FrameInput();
  private ended: string | undefined;
  /** Whether the process is stopped (SIGSTOP) until the next request. */
  private stopped = false;

  private constructor(
    private readonly child: ChildProcessByStdio<Writable, Readable, null>,
    python: string,
    private readonly stopBetweenCalls: boolean,
    private readonly launch: {sandboxed: boolean; inside(file: string): string; release(): void},
  ) {
    // The host's start may have made a readable copy of the bundle's folder (bundle-host.ts): gone with the host.
    for (const event of ['close', 'error'] as const) child.on(event, () => launch.release());
    child.stdout.on('data', (chunk: Buffer) => this.input.push(chunk));
    child.stdin.on('error', () => {
      // EPIPE after the host died: reported by the 'exit' handler below.
    });
    const gone = (why: string) => {
      this.ended ??= why;
      this.input.fail(new BundleError(`the Python process of the bundle ${why}`));
    };
    child.on('error', (error: NodeJS.ErrnoException) =>
      gone(
        error.code === 'ENOENT'
          ? `could not start: ${python} not found (install Python 3 with numpy, or set ARBOR_PYTHON)`
          : `could not start: ${error.message}`,
      ),
    );
    child.on('close', (code, signal) => gone(`exited (${signal ?? `code ${code}`}) during a call`));
  }

  /** Start `python3 -I host.py` in the bundle's folder, in the sandbox (lib/sandbox's bundleHostLaunch), and check that numpy imports. */
  static async start(bundle: Bundle, stopBetweenCalls = false): Promise<PythonHost> {
    // The bundle's own interpreter (`[entry] python`, an importer's choice) first: it has the task's modules.
    const python = bundle.python ?? (process.env.ARBOR_PYTHON || 'python3');
    // Whose code may do what is the sandbox's decision, in one place; loaded only when a Python bundle runs (docs/architecture.md, rule b).
    const {bundleHostLaunch} = await import('../sandbox/index.js');
    // Behind a pyenv shim, its interpreter itself where that is certain: the shim's bash chain cost 0.3 s a start.
    const launch = bundleHostLaunch({python: interpreterOf(python, bundle.dir), bundleDir: bundle.dir, host: hostPath()});
    const stdio: ('pipe' | 'inherit' | 'ignore')[] = ['pipe', 'pipe', 'inherit'];
    if (launch.input) {
      while (stdio.length <= launch.input.fd) stdio.push('ignore');
      stdio[launch.input.fd] = 'pipe';
    }
    const spawned = spawn(launch.command, launch.args, {cwd: launch.cwd, env: launch.env, stdio});
    const child = piped(spawned);
    if (launch.input) {
      // bwrap reads the seccomp filter from this descriptor before it starts the host.
      const input = spawned.stdio[launch.input.fd];
      if (!input || !('write' in input)) throw new BundleError(`the sandbox's descriptor ${launch.input.fd} was not piped: report this as a bug`);
      input.on('error', () => {});
      input.end(launch.input.bytes);
    }
    const host = new PythonHost(child, python, stopBetweenCalls, launch);
    const hello = await host.request({op: 'hello'}).catch((error: Error) => {
      // A sandbox that cannot start here (user namespaces off, no libseccomp): say so, not that the host died.
      const problem = launch.sandboxed ? launch.problem() : undefined;
      throw problem ? new BundleError(problem) : error;
    });
    if (!hello.header.ok) {
      await host.close();
      const error = hello.header.error;
      if (error?.message.includes("No module named 'numpy'"))
        throw new Error(
          `numpy is not installed for ${python}: run '${python} -m pip install numpy' (or set ARBOR_PYTHON; arbor doctor says which python arbor picks)`,
        );
      throw new Error(describePython(error));
    }
    return host;
  }

  /** A file of the bundle's folder as the host sees it. */
  inside(file: string): string {
    return this.launch.inside(file);
  }

  /** Whether the process is gone (it exited or was closed): no request can be answered any more. */
  hasEnded(): boolean {
    return this.ended !== undefined;
  }

  /** One request and its reply; requests are answered in order, one at a time. */
  request(header: Record<string, unknown>, tensors: Outgoing[] = []): Promise<Reply> {
    const run = this.queue.then(async () => {
      this.signal(false);
      try {
        return await this.exchange(header, tensors);
      } finally {
        if (this.stopBetweenCalls) this.signal(true);
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Stop (SIGSTOP) or continue (SIGCONT) the process; nothing once it has ended. */
  private signal(stop: boolean): void {
    if (this.stopped === stop || this.ended || this.child.exitCode !== null || this.child.signalCode !== null) return;
    try {
      // A sandboxed host is bwrap's grandchild: every process of the tree is stopped, or the host would run on.
      const pids = this.launch.sandboxed && this.child.pid !== undefined ? processTree(this.child.pid) : [];
      if (pids.length === 0) this.child.kill(stop ? 'SIGSTOP' : 'SIGCONT');
      for (const pid of stop ? pids : pids.reverse()) signalPid(pid, stop ? 'SIGSTOP' : 'SIGCONT');
      this.stopped = stop;
    } catch {
      // Gone meanwhile: its 'close' handler reports it.
    }
  }

  private async exchange(header: Record<string, unknown>, tensors: Outgoing[]): Promise<Reply> {
    if (this.ended) throw new BundleError(`the Python process of the bundle ${this.ended}`);
    const bodies = tensors.map((t) => tensorBytes(t.array));
    const head = Buffer.from(
      JSON.stringify({...header, tensors: tensors.map((t, k) => ({group: t.group, name: t.name, type: t.type, shape: t.shape, bytes: bodies[k]!.byteLength}))}),
    );
    const length = Buffer.alloc(4);
    length.writeUInt32LE(head.length);
    for (const part of [length, head, ...bodies]) await this.write(part);
    const replyLength = new DataView((await this.input.read(4)).buffer).getUint32(0, true);
    const replyHeader = JSON.parse(Buffer.from(await this.input.read(replyLength)).toString('utf8')) as Reply['header'];
    const payloads: Uint8Array[] = [];
    for (const t of replyHeader.tensors ?? []) payloads.push(await this.input.read(t.bytes));
    return {header: replyHeader, payloads};
  }

  private async write(bytes: Uint8Array): Promise<void> {
    if (bytes.byteLength === 0) return;
    if (this.child.stdin.write(bytes)) return;
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        this.child.stdin.off('drain', done);
        this.input.offFail(stop);
        resolve();
      };
      const stop = (error: Error) => {
        this.child.stdin.off('drain', done);
        reject(error);
      };
      this.child.stdin.on('drain', done);
      this.input.onFail(stop);
    });
  }

  /** End the process: its stdin closes, it returns from its loop and exits; a sandboxed host's whole PID namespace with it. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null || this.ended) return;
    this.signal(false);
    this.ended = 'was closed';
    // bwrap exits as soon as its command does, while the namespace's first process is still killing what the
    // bundle left (a daemon of its own session): that process, found now while it lives, is waited for, so
    // nothing the bundle started outlives the call.
    const init = this.launch.sandboxed && this.child.pid !== undefined ? processTree(this.child.pid)[1] : undefined;
    await new Promise<void>((resolve) => {
      this.child.once('close', () => resolve());
      this.child.stdin.end();
    });
    if (init !== undefined) await exited(init);
  }
}

/** `pid` and every process below it, parents first (Linux's /proc children lists; none elsewhere). */
function processTree(pid: number): number[] {
  const found = [pid];
  for (let k = 0; k < found.length; k++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${found[k]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        for (const child of readFileSync(`/proc/${found[k]}/task/${task}/children`, 'utf8').split(' ')) if (child.trim()) found.push(Number(child));
      } catch {
        // Gone meanwhile.
      }
    }
  }
  return found;
}

/**
 * Until `pid` has exited (gone, or a zombie: a namespace's first process becomes one only after the kernel has
 * killed and released every other process of its namespace), for 5 s at most.
 */
async function exited(pid: number): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 5) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return;
    }
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    if (state === 'Z' || state === 'X') return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone meanwhile.
  }
}

/** Bytes from the host's stdout, read as exact-length pieces into fresh buffers (one copy). */
class FrameInput {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private pending: {into: Uint8Array; filled: number; resolve: (b: Uint8Array) => void; reject: (e: Error) => void} | undefined;
  private failure: Error | undefined;
  private failListeners = new Set<(error: Error) => void>();

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.drain();
  }

  fail(error: Error): void {
    this.failure ??= error;
    this.pending?.reject(this.failure);
    this.pending = undefined;
    for (const listener of this.failListeners) listener(this.failure);
  }

  onFail(listener: (error: Error) => void): void {
    if (this.failure) listener(this.failure);
    else this.failListeners.add(listener);
  }

  offFail(listener: (error: Error) => void): void {
    this.failListeners.delete(listener);
  }

  read(n: number): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      this.pending = {into: new Uint8Array(n), filled: 0, resolve, reject};
      this.drain();
      if (this.pending && this.failure) this.fail(this.failure);
    });
  }

  private drain(): void {
    const p = this.pending;
    if (!p) return;
    while (p.filled < p.into.length && this.chunks.length > 0) {
      const chunk = this.chunks[0]!;
      const take = Math.min(chunk.length, p.into.length - p.filled);
      p.into.set(chunk.subarray(0, take), p.filled);
      p.filled += take;
      this.buffered -= take;
      if (take === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(take);
    }
    if (p.filled === p.into.length) {
      this.pending = undefined;
      p.resolve(p.into);
    }
  }
}
