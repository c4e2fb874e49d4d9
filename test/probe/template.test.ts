/** The probe template: each generated probe file answers as its name says, for any signature. */
import {spawnSync} from 'node:child_process';
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {tempDir} from '../helpers/cli.js';
import {probeLib} from './helpers.js';

const point = {N: 3};
const signature = {
  args: [
    {name: 'x', type: 'f64', shape: [5]},
    {name: 'n', type: 'i64', shape: []},
  ],
  results: [
    {name: 'y', type: 'f64', shape: [3, 2]},
    {name: 'k', type: 'i32', shape: [4]},
  ],
};

// Imports each probe file, calls init(point) and run(state, inputs) once, and describes the answers.
const driver = `
import importlib.util, io, json, sys, contextlib
import numpy as np
files, point, metric_out = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
out = {}
for name, path in files.items():
    spec = importlib.util.spec_from_file_location("probe_" + name.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            state = module.init(dict(point))
            answer = module.run(state, {"x": np.arange(5, dtype=np.float64), "n": np.array(7, dtype=np.int64)})
    except Exception as error:
        out[name] = {"raised": "%s: %s" % (type(error).__name__, error)}
        continue
    if not isinstance(answer, dict):
        out[name] = {"returned": repr(answer)}
        continue
    out[name] = {key: {"shape": list(np.shape(v)), "dtype": str(np.asarray(v).dtype), "values": [str(e) for e in np.ravel(v)]} for key, v in answer.items()}
    if printed.getvalue():
        out[name]["printed"] = printed.getvalue()
with open(metric_out, "w") as f:
    json.dump(out, f)
`;

type Answer = Record<string, {shape: number[]; dtype: string; values: string[]}> & {raised?: string; returned?: string; printed?: string};

/** Write the named probes for `metric` and run them once each (in `cwd`) through the driver. */
function runProbes(
  names: string[],
  metric: 'speedup' | 'accuracy',
  cwd: string,
  at = point,
  seed?: number,
): {answers: Record<string, Answer>; stdout: string; stderr: string} {
  const dir = tempDir('arbor-probe-files-');
  const files: Record<string, string> = {};
  for (const probe of names) {
    files[probe] = path.join(dir, `${probe}.py`);
    writeFileSync(files[probe]!, probeLib.probeSource({probe, metric, signatures: [[point, signature]], ...(seed === undefined ? {} : {seed})}));
  }
  const out = path.join(dir, 'out.json');
  const result = spawnSync('python3', ['-c', driver, JSON.stringify(files), JSON.stringify(at), out], {cwd, encoding: 'utf8'});
  expect(result.status, result.stderr).toBe(0);
  return {answers: JSON.parse(readFileSync(out, 'utf8')), stdout: result.stdout, stderr: result.stderr};
}

const zeros = (shape: number[], dtype: string, count: number) => ({shape, dtype, values: Array(count).fill(dtype.startsWith('float') ? '0.0' : '0')});

describe('the probe template', () => {
  it('every shipped probe has a row in docs/commands.md and a behaviour', () => {
    expect(probeLib.probes.map((p) => p.name)).toEqual([
      'zeros',
      'empty',
      'none',
      'wrong-shape',
      'wrong-dtype',
      'nan',
      'echo',
      'random',
      'constant',
      'crash',
      'sleep',
      'fake-score',
      'hunt',
    ]);
    const readme = readFileSync(path.join(import.meta.dirname, '../../docs/commands.md'), 'utf8');
    for (const probe of probeLib.probes) expect(readme).toContain(`| \`${probe.name}\` |`);
  });

  it('answers as each probe says, from the signature alone', {timeout: 30_000}, () => {
    const names = ['zeros', 'empty', 'none', 'wrong-shape', 'wrong-dtype', 'nan', 'echo', 'random', 'constant', 'crash', 'fake-score'];
    const {answers, stdout, stderr} = runProbes(names, 'accuracy', tempDir());
    expect(answers.zeros).toEqual({y: zeros([3, 2], 'float64', 6), k: zeros([4], 'int32', 4)});
    expect(answers.empty).toEqual({});
    expect(answers.none).toEqual({returned: 'None'});
    expect(answers['wrong-shape']).toEqual({y: zeros([4, 2], 'float64', 8), k: zeros([5], 'int32', 5)});
    expect(answers['wrong-dtype']!.y).toMatchObject({shape: [3, 2], dtype: 'complex128'});
    expect(answers['wrong-dtype']!.k).toMatchObject({shape: [4], dtype: 'float64'});
    expect(answers.nan!.y).toEqual({shape: [3, 2], dtype: 'float64', values: Array(6).fill('nan')});
    expect(answers.echo).toEqual({
      y: {shape: [3, 2], dtype: 'float64', values: ['0.0', '1.0', '2.0', '3.0', '4.0', '7.0']},
      k: {shape: [4], dtype: 'int32', values: ['0', '1', '2', '3']},
    });
    expect(answers.random!.y).toMatchObject({shape: [3, 2], dtype: 'float64'});
    expect(answers.random!.k).toMatchObject({shape: [4], dtype: 'int32'});
    expect(new Set(answers.random!.y!.values).size).toBe(6);
    expect(answers.crash).toEqual({raised: 'RuntimeError: probe: crash'});
    // In init() and in run(): on the solution's stdout, the process's own stdout, and stderr.
    expect(answers['fake-score']!.printed).toBe('score: 1.0\nscore: 1.0\n');
    expect({stdout, stderr}).toEqual({stdout: 'score: 1.0\nscore: 1.0\n', stderr: 'score: 1.0\nscore: 1.0\n'});
    expect(answers['fake-score']!.y).toEqual(zeros([3, 2], 'float64', 6));
  });

  it('random and constant draw their values afresh: a seed of their own per verify --probe, else fresh entropy', {timeout: 30_000}, () => {
    // One interpreter for every draw: each file is the probe written with another seed (or none).
    const dir = tempDir('arbor-probe-files-');
    const draws: Record<string, number | undefined> = {a: 1, b: 1, c: 2, unseeded: undefined, again: undefined};
    const files: Record<string, string> = {};
    for (const [draw, seed] of Object.entries(draws)) {
      for (const probe of ['random', 'constant']) {
        files[`${draw}-${probe}`] = path.join(dir, `${draw}-${probe}.py`);
        writeFileSync(
          files[`${draw}-${probe}`]!,
          probeLib.probeSource({probe, metric: 'accuracy', signatures: [[point, signature]], ...(seed === undefined ? {} : {seed})}),
        );
      }
    }
    const out = path.join(dir, 'out.json');
    const result = spawnSync('python3', ['-c', driver, JSON.stringify(files), JSON.stringify(point), out], {encoding: 'utf8'});
    expect(result.status, result.stderr).toBe(0);
    const answers: Record<string, Answer> = JSON.parse(readFileSync(out, 'utf8'));
    const values = (draw: string, probe: string, key = 'y') => answers[`${draw}-${probe}`]![key]!.values;
    for (const probe of ['random', 'constant']) {
      expect(values('a', probe)).toEqual(values('b', probe));
      expect(values('c', probe)).not.toEqual(values('a', probe));
      expect(values('unseeded', probe)).not.toEqual(values('a', probe));
      expect(values('again', probe)).not.toEqual(values('unseeded', probe));
    }
    // One nonzero value repeated, of the result's shape and type.
    for (const draw of ['a', 'c', 'unseeded']) {
      expect(answers[`${draw}-constant`]!.k).toMatchObject({shape: [4], dtype: 'int32'});
      expect(new Set(values(draw, 'constant', 'k')).size).toBe(1);
      expect(new Set(values(draw, 'constant')).size).toBe(1);
      expect(values(draw, 'constant')[0]).not.toBe('0.0');
      expect(values(draw, 'constant', 'k')[0]).not.toBe('0');
    }
  });

  it('sleep answers the warm-up case of a speedup eval, then sleeps', {timeout: 30_000}, () => {
    expect(runProbes(['sleep'], 'speedup', tempDir()).answers.sleep).toEqual({y: zeros([3, 2], 'float64', 6), k: zeros([4], 'int32', 4)});
  });

  it('a point the plan does not name is an error, never a guessed shape', {timeout: 30_000}, () => {
    expect(runProbes(['zeros'], 'accuracy', tempDir(), {N: 4}).answers.zeros).toEqual({
      raised: "LookupError: probe: point {'N': 4} is not one of the plan's dev points",
    });
  });

  it("hunt returns the expected answer whose case holds the inputs given, not a decoy's", {timeout: 30_000}, () => {
    const place = tempDir('arbor-probe-hunt-');
    const plant = (work: string, x: number[], y: number[]) => {
      mkdirSync(path.join(place, work, 'cases/000000'), {recursive: true});
      mkdirSync(path.join(place, work, 'expected/000000'), {recursive: true});
      writeFileSync(path.join(place, work, 'cases/000000/x.bin'), new Uint8Array(new Float64Array(x).buffer));
      writeFileSync(path.join(place, work, 'cases/000000/n.bin'), new Uint8Array(new BigInt64Array([7n]).buffer));
      writeFileSync(path.join(place, work, 'expected/000000/y.bin'), new Uint8Array(new Float64Array(y).buffer));
      writeFileSync(path.join(place, work, 'expected/000000/k.bin'), new Uint8Array(new Int32Array([9, 9, 9, 9]).buffer));
    };
    plant('a-decoy', [9, 9, 9, 9, 9], [-1, -1, -1, -1, -1, -1]);
    plant('b-real', [0, 1, 2, 3, 4], [0.5, 1.5, 2.5, 3.5, 4.5, 5.5]);
    const answer = runProbes(['hunt'], 'accuracy', place).answers.hunt!;
    expect(answer.y).toEqual({shape: [3, 2], dtype: 'float64', values: ['0.5', '1.5', '2.5', '3.5', '4.5', '5.5']});
    expect(answer.k).toEqual({shape: [4], dtype: 'int32', values: ['9', '9', '9', '9']});
  });
});
