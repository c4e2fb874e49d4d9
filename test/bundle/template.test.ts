import {spawnSync} from 'node:child_process';
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, tempDir} from '../helpers/cli.js';

/** A fresh scaffold named `name` (the bundle skeleton in `lang`). */
function scaffoldCopy(name: string, lang = 'js'): string {
  const dir = path.join(tempDir(), name);
  const result = runCli(['benchmark', 'scaffold', dir, '--bundle-lang', lang]);
  expect(result.code, result.stderr).toBe(0);
  return dir;
}

// A stand-in for the protected runner: import a solution module, run it over cases/, write out/.
const RUNNER = `
import importlib.util, json, os, sys
import numpy as np
sol, work = sys.argv[1], sys.argv[2]
spec = importlib.util.spec_from_file_location("solution", sol)
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
m = json.load(open(os.path.join(work, "manifest.json")))
state = mod.init(m["point"])
for i in range(m["cases"]):
    c = f"{i:06d}"
    x = np.fromfile(os.path.join(work, "cases", c, "x.bin"), dtype="<f8")
    y = np.asarray(mod.run(state, {"x": x})["y"], dtype="<f8")
    os.makedirs(os.path.join(work, "out", c), exist_ok=True)
    y.tofile(os.path.join(work, "out", c, "y.bin"))
`;

describe("the scaffold's bundle skeletons", () => {
  it.each(['js', 'py'])('%s: a working bundle with the right fingerprint', (lang) => {
    const entry = scaffoldCopy('demo_sort', lang);
    const info = runCli(['bundle', path.join(entry, 'bundle'), 'info']);
    expect(info.code, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout)).toMatchObject({spec: 'zoo/demo_sort@0.1.0', verifier: false});
    expect(runCli(['bundle', path.join(entry, 'bundle'), 'fingerprint', '--check']).code).toBe(0);
  });

  it('reference.py solves it and the placeholder solution.py does not', () => {
    const entry = scaffoldCopy('demo_sort');
    const plan = readFileSync(path.join(entry, 'plan.toml'), 'utf8');
    expect(plan).toMatch(/^metric = "speedup" +# /m);
    expect(plan).toMatch(/^reference = "reference.py"$/m);
    for (const [solution, passed] of [
      ['reference.py', true],
      ['solution.py', false],
    ] as const) {
      const work = path.join(tempDir(), 'w');
      expect(runCli(['bundle', path.join(entry, 'bundle'), 'make', work, '--point', '{"N": 1000}', '--seeds', '0-2']).code).toBe(0);
      const run = spawnSync('python3', ['-c', RUNNER, path.join(entry, solution), work], {encoding: 'utf8'});
      expect(run.status, run.stderr).toBe(0);
      expect(runCli(['bundle', path.join(entry, 'bundle'), 'verify', work]).code).toBe(0);
      const verdicts = JSON.parse(readFileSync(path.join(work, 'verdicts.json'), 'utf8'));
      expect(verdicts.cases.map((v: {passed: boolean}) => v.passed)).toEqual([passed, passed, passed]);
    }
  });
});
