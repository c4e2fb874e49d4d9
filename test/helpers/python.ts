// The evals of the suite start python3 hundreds of times. Where python3 is a version
// manager's shim (pyenv's is a chain of bash scripts), finding the interpreter through it costs
// about 0.7 s of CPU per eval, a sixth of the suite's time. Resolve it once for the whole run and
// hand it to every eval as ARBOR_PYTHON, the variable users set for the same reason; tests of
// the PATH lookup and of a missing or broken python3 set their own. Where python3 was a shim, the
// interpreter's folder also goes first on the PATH, so that the tests' and the bundles' own
// `python3` is that interpreter (about a hundred shim starts in a run, 60 s of CPU).
import {spawnSync} from 'node:child_process';
import {realpathSync} from 'node:fs';
import path from 'node:path';

export default function setup(): void {
  if (process.env.ARBOR_PYTHON) return;
  const found = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'});
  const executable = found.status === 0 ? found.stdout.trim() : '';
  if (!executable) return;
  process.env.ARBOR_PYTHON = executable;
  const onPath = spawnSync('sh', ['-c', 'command -v python3'], {encoding: 'utf8'}).stdout.trim();
  const real = (file: string) => {
    try {
      return realpathSync(file);
    } catch {
      return file;
    }
  };
  if (onPath && real(onPath) !== real(executable) && path.basename(executable).startsWith('python3')) {
    process.env.PATH = `${path.dirname(executable)}${path.delimiter}${process.env.PATH ?? ''}`;
  }
}
