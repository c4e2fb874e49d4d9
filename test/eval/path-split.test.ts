// Path splits (split_kind = "path"): cases are made work directories under data/, not generated from seeds.
import {cpSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';
import {unsandboxedEnv} from './adversaries.js';

const fixture = path.join(fixtures, 'eval/prefix-path');
const adversaries = path.join(fixtures, 'eval/solutions');

function evalJson(args: string[], env: NodeJS.ProcessEnv = {}, quiet = true) {
  const json = path.join(tempDir(), 'report.json');
  const result = runCli(['benchmark', 'eval', ...args, '--json-file', json, ...(quiet ? ['--quiet'] : [])], {
    env: {ARBOR_LEDGER: path.join(tempDir(), 'runs.db'), ...env},
  });
  return {result, report: result.code === 0 ? JSON.parse(readFileSync(json, 'utf8')) : undefined};
}

describe('arbor benchmark eval of a path split', () => {
  it('runs, times and verifies every work directory of data/dev, each with its own point and case count', () => {
    const {result, report} = evalJson([fixture, 'dev']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^score: \d/);
    expect(report.seeds).toEqual({source: 'files', count: 4});
    // Work directories in name order, each point from its own manifest.
    expect(report.points.map((p: {point: unknown; folder: string; cases: unknown[]}) => [p.point, path.basename(p.folder), p.cases.length])).toEqual([
      [{N: 1500}, 'large', 2],
      [{N: 1000}, 'small', 2],
    ]);
    for (const point of report.points) for (const c of point.cases) expect(c).toMatchObject({status: 'ok', passed: true});
    expect(report.score).toBeGreaterThan(0);
  });

  it('never shows the expected answers to the solution: a solution hunting for expected/ scores 0.0', () => {
    const {result, report} = evalJson([fixture, 'dev', '--solution', path.join(adversaries, 'search-expected.py')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('score: 0.0\n');
    expect(report.points[0].cases[0].status).toBe('failed');
  });

  it("grades against the answers as they were before any run: a solution without a sandbox that zeroes the data folder's expected/ still fails", () => {
    const copy = path.join(tempDir(), 'bench');
    cpSync(fixture, copy, {recursive: true});
    const {result, report} = evalJson([copy, 'dev', '--solution', path.join(adversaries, 'rewrite-data.py')], {
      ARBOR_BWRAP: '/nonexistent/bwrap',
      ...unsandboxedEnv,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(report.sandbox).toBe('none');
    // Started by root, the run is a uid of its own, which cannot even reach the folder; started by its
    // owner, the attack happens: the benchmark's own expected answers are zeros now ...
    const zeroed = readFileSync(path.join(copy, 'data/dev/small/expected/000000/s.bin')).every((byte) => byte === 0);
    expect(zeroed).toBe(process.getuid?.() !== 0);
    // ... and it bought nothing: the eval graded against its private copy, taken before the run.
    expect(result.stdout).toBe('score: 0.0\n');
    expect(report.points[0].cases[0].status).toBe('failed');
  });

  it('scores a private copy of the test data given with --data or ARBOR_TEST_DATA, and says the salt does not apply', () => {
    const copy = tempDir();
    cpSync(path.join(fixture, 'data/test'), copy, {recursive: true});
    // The private copy holds a work directory the benchmark folder does not: another point, another count.
    cpSync(path.join(fixture, 'data/dev/small'), path.join(copy, 'extra'), {recursive: true});
    const viaOption = evalJson([fixture, 'test', '--data', copy], {ARBOR_TEST_SALT: 'secret'}, false);
    expect(viaOption.result.code, viaOption.result.stderr).toBe(0);
    expect(viaOption.report.seeds).toEqual({source: 'files', count: 5});
    expect(viaOption.report.points.map((p: {folder: string}) => path.basename(p.folder))).toEqual(['extra', 'held']);
    expect(viaOption.result.stderr).toContain("note: ARBOR_TEST_SALT does not apply to a path split's fixed files");
    const viaEnv = evalJson([fixture, 'test'], {ARBOR_TEST_DATA: copy});
    expect(viaEnv.report.seeds).toEqual({source: 'files', count: 5});
    // Without either, the plan's own data/test.
    expect(evalJson([fixture, 'test']).report.seeds).toEqual({source: 'files', count: 3});
  });

  it('names what is wrong with the data in one line (exit 1), and refuses --data for a seed split (exit 2)', () => {
    const empty = tempDir();
    let result = runCli(['benchmark', 'eval', fixture, 'dev', '--data', empty, '--quiet']);
    expect(result).toMatchObject({code: 1, stdout: ''});
    expect(result.stderr).toMatch(/^arbor: the dev data folder .* holds no work directory: make one per subfolder, e\.g\. arbor bundle <bundle> make /);

    const broken = tempDir();
    cpSync(path.join(fixture, 'data/dev/small'), path.join(broken, 'small'), {recursive: true});
    rmSync(path.join(broken, 'small/manifest.json'));
    result = runCli(['benchmark', 'eval', fixture, 'dev', '--data', broken, '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/small\/manifest\.json: missing: every subfolder of a data folder is a made work directory/);

    writeFileSync(path.join(broken, 'small/manifest.json'), '{"point": {"N": 1000}, "cases": 2}');
    rmSync(path.join(broken, 'small/expected'), {recursive: true});
    result = runCli(['benchmark', 'eval', fixture, 'dev', '--data', broken, '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/the work directory has no expected\/ folder/);

    // More cases claimed than the folder holds; a symbolic link where a case file should be.
    cpSync(path.join(fixture, 'data/dev/small'), path.join(broken, 'small'), {recursive: true, force: true});
    writeFileSync(path.join(broken, 'small/manifest.json'), '{"point": {"N": 1000}, "cases": 3}');
    result = runCli(['benchmark', 'eval', fixture, 'dev', '--data', broken, '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/small\/manifest\.json: "cases" is 3, but the work directory has no cases\/000002\/\n$/);
    writeFileSync(path.join(broken, 'small/manifest.json'), '{"point": {"N": 1000}, "cases": 2}');
    rmSync(path.join(broken, 'small/expected/000001/s.bin'));
    symlinkSync(path.join(fixture, 'data/dev/small/expected/000001/s.bin'), path.join(broken, 'small/expected/000001/s.bin'));
    result = runCli(['benchmark', 'eval', fixture, 'dev', '--data', broken, '--quiet']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/expected\/000001\/s\.bin: a symbolic link; a work directory of a path split holds plain files and folders only\n$/);

    result = runCli(['benchmark', 'eval', path.join(fixtures, 'eval/prefix-speed'), 'dev', '--data', empty, '--quiet']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^arbor: --data .*: eval_prefix generates its dev cases from seeds \(split_kind = "seed_range"\); --data is for benchmarks whose cases are files\n$/,
    );
  });

  it('refuses a data folder that every run can see (under a system or Python folder)', async () => {
    const {mountedRootOf, resolvePython} = await import('../../lib/sandbox/sandbox.js');
    const python = resolvePython('python3');
    expect(mountedRootOf('/usr/share/private-test', python)).toBe('/usr');
    // /etc and /opt are not bound whole: only the loader's and Python's files of /etc are.
    expect(mountedRootOf('/opt/data/test', python)).toBeUndefined();
    expect(mountedRootOf('/etc/ld.so.cache', python)).toBe('/etc/ld.so.cache');
    expect(mountedRootOf(tempDir(), python)).toBeUndefined();
  });
});
