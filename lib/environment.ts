/**
 * The environment a score was measured in, and its fingerprint: two runs are
 * comparable only when their fingerprints are equal. Recorded in eval
 * reports, the run ledger and result packages (`environment_id`).
 */
import {execFile} from 'node:child_process';
import {createHash} from 'node:crypto';
import os from 'node:os';
import {readCachedPythonInfo, writeCachedPythonInfo} from './environment-cache.js';

/** What the given python says about itself, numpy and numpy's BLAS. */
export interface PythonInfo {
  /** The interpreter as given (machine-specific, not fingerprinted). */
  executable: string;
  /** e.g. `3.11.7`; null when the probe failed. */
  version: string | null;
  implementation: string | null;
  /** numpy's version, null when numpy is missing. */
  numpy: string | null;
  /** The BLAS numpy was built against (from `np.show_config(mode='dicts')`, numpy >= 1.26), when known. */
  blas: {name: string | null; version: string | null; config: string | null} | null;
  /** Why the probe failed, when it did. */
  error?: string;
}

/** The environment of a run. */
export interface Environment {
  cpuModel: string;
  /** Logical CPUs of the machine. */
  cores: number;
  /** CPUs this process may run on (affinity); not fingerprinted. */
  availableCores: number;
  os: {platform: string; release: string; arch: string};
  node: string;
  python: PythonInfo;
  /** The clock the eval timed with (e.g. `cpu-tree`), as the caller names it. */
  clock: string | null;
  /** `environmentFingerprint` of the fields above. */
  fingerprint: string;
}

/** Options of `describeEnvironment`. */
export interface EnvironmentOptions {
  /** The python the eval runs solutions with (default `python3`). */
  python?: string;
  clock?: string | null;
}

// Printed as one JSON line; never raises: each part that fails stays null.
const probeScript = String.raw`
import json, platform, sys
info = {"version": platform.python_version(), "implementation": platform.python_implementation(), "numpy": None, "blas": None}
try:
    import numpy as np
    info["numpy"] = np.__version__
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        info["blas"] = {"name": blas.get("name"), "version": blas.get("version"), "config": blas.get("openblas configuration")}
    except Exception:
        try:
            libs = np.__config__.get_info("blas_opt_info").get("libraries") or np.__config__.get_info("blas_opt").get("libraries")
            info["blas"] = {"name": ",".join(libs) if libs else None, "version": None, "config": None}
        except Exception:
            pass
except Exception:
    pass
info["path"] = [p for p in sys.path if p]
print(json.dumps(info))
`;

const probes = new Map<string, Promise<PythonInfo>>();

/**
 * The caller's environment with one thread for BLAS and OpenMP: the probe runs
 * while an eval times its runs, and numpy's import would otherwise start a
 * thread per core (a third of a CPU second, on the CPUs being timed).
 */
function oneThreadEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {...process.env};
  for (const name of ['OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS']) env[name] = '1';
  return env;
}

/**
 * Ask `python` (isolated: `-I`, so no user site or PYTHON* variables) for its
 * version, numpy's and the BLAS's. Started once per python path per process,
 * and not at all while the answer kept from an earlier process still holds
 * (environment-cache.ts); later calls share the answer. Never rejects: a
 * failure is in `error`.
 */
export function probePython(python = 'python3'): Promise<PythonInfo> {
  let probe = probes.get(python);
  if (!probe) {
    const cached = readCachedPythonInfo(python, probeScript);
    probe = cached ? Promise.resolve({executable: python, ...cached}) : askPython(python);
    probes.set(python, probe);
  }
  return probe;
}

function askPython(python: string): Promise<PythonInfo> {
  return new Promise((resolve) => {
    execFile(python, ['-I', '-c', probeScript], {timeout: 30_000, encoding: 'utf8', env: oneThreadEnvironment()}, (error, stdout, stderr) => {
      const failed = (reason: string): PythonInfo => ({executable: python, version: null, implementation: null, numpy: null, blas: null, error: reason});
      if (error) return resolve(failed((stderr.trim().split('\n').pop() || error.message).slice(0, 300)));
      let answer: Omit<PythonInfo, 'executable'> & {path?: unknown};
      try {
        answer = JSON.parse(stdout.trim().split('\n').pop() ?? '');
      } catch {
        return resolve(failed(`unreadable answer: ${stdout.slice(0, 200)}`));
      }
      const info = {version: answer.version, implementation: answer.implementation, numpy: answer.numpy, blas: answer.blas};
      writeCachedPythonInfo(python, probeScript, info, answer.path);
      resolve({executable: python, ...info});
    });
  });
}

/** Describe this machine, the given python and the clock, with the fingerprint. */
export async function describeEnvironment(options: EnvironmentOptions = {}): Promise<Environment> {
  const cpus = os.cpus();
  const fields: Omit<Environment, 'fingerprint'> = {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    availableCores: os.availableParallelism(),
    os: {platform: os.platform(), release: os.release(), arch: os.arch()},
    node: process.versions.node,
    python: await probePython(options.python),
    clock: options.clock ?? null,
  };
  return {...fields, fingerprint: environmentFingerprint(fields)};
}

/**
 * First 16 hex digits of SHA-256 over the canonical JSON (sorted keys) of the
 * fields that decide whether two timings are comparable: CPU model, cores, OS
 * (platform, release, arch), Python and numpy versions, BLAS, clock. Not the
 * host name, paths, time, Node's version or the CPUs this process may use.
 */
export function environmentFingerprint(environment: Omit<Environment, 'fingerprint'>): string {
  const {python} = environment;
  const key = {
    cpuModel: environment.cpuModel,
    cores: environment.cores,
    os: environment.os,
    python: {version: python.version, implementation: python.implementation, numpy: python.numpy, blas: python.blas},
    clock: environment.clock,
  };
  return createHash('sha256').update(canonicalJson(key)).digest('hex').slice(0, 16);
}

/** JSON with object keys sorted at every depth, so equal values always give equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, item]) => item !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
