// The evals of the suite start python3 hundreds of times. Where python3 is a version
// manager's shim (pyenv's is a chain of bash scripts), finding the interpreter through it costs
// about 0.7 s of CPU per eval, a sixth of the suite's time. Resolve it once for the whole run and
// hand it to every eval as ARBOR_PYTHON, the variable users set for the same reason; tests of
// the PATH lookup and of a missing or broken python3 set their own.
import {spawnSync} from 'node:child_process';

export default function setup(): void {
  if (process.env.ARBOR_PYTHON) return;
  const found = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], {encoding: 'utf8'});
  const executable = found.status === 0 ? found.stdout.trim() : '';
  if (executable) process.env.ARBOR_PYTHON = executable;
}
