// The page cache is the machine's: a run that drops or loads pages of a shared file, and a later run that asks
// which are cached, would share bits across repetitions and evals. The seccomp filter refuses every primitive
// that drops, loads or asks without reading (helpers in ./adversaries.ts; page-cache.py says what it tries).
import {spawnSync} from 'node:child_process';
import {cpSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, tempDir} from '../helpers/cli.js';
import {canRunAsUser, evaluate, evaluateAsNobody, sandboxed, solutions} from './adversaries.js';

const refused = [
  'fadvise DONTNEED',
  'fadvise WILLNEED',
  'readahead',
  'mincore',
  'cachestat',
  'move_pages',
  'madvise PAGEOUT',
  'madvise COLD',
  'madvise PAGEOUT high bits',
  'process_madvise PAGEOUT',
  'preadv2 NOWAIT',
  'os.preadv NOWAIT',
  'pwritev2 NOWAIT',
  'aio NOWAIT',
];
const honest = ['pread', 'preadv2', 'madvise DONTNEED'];

/** What page-cache.py found, from the failure its init() raised. */
function found(failure: string): Record<string, string> {
  const json = /page cache: (\{.*?\})/.exec(failure)?.[1];
  expect(json, failure).toBeDefined();
  return JSON.parse(json!);
}

function expectRefused(probes: Record<string, string>): void {
  expect(Object.keys(probes).sort()).toEqual([...refused, ...honest].sort());
  for (const name of refused) expect([name, probes[name]]).toEqual([name, 'EPERM']);
  for (const name of honest) expect([name, probes[name]]).toEqual([name, 'ok']);
}

describe.skipIf(!sandboxed)('the page cache: no run can drop, load or ask about a cached page but by reading it', () => {
  it('every residency primitive fails with EPERM in the sandbox, an honest read works, and the eval prints one score line', () => {
    const {score, report} = evaluate('prefix-speed', 'page-cache.py');
    expect(score).toBe(0);
    expectRefused(found(report.failure));
  });

  it('outside the filter the same calls are not refused with EPERM: the EPERM above is the filter', () => {
    const python = process.env.ARBOR_PYTHON ?? 'python3';
    const open = spawnSync(python, ['-I', path.join(solutions, 'page-cache.py')], {encoding: 'utf8'});
    expect(open.stderr).toBe('');
    const probes: Record<string, string> = JSON.parse(open.stdout);
    // A kernel before 6.5 has no cachestat (ENOSYS); pwritev2 NOWAIT is EOPNOTSUPP where the file system cannot.
    // cachestat is the kernel's to refuse an ordinary user on a file it neither owns nor may write (os.py), as mincore's rule is.
    const kernelRefuses = process.getuid?.() !== 0 ? ['cachestat'] : [];
    for (const name of refused.filter((each) => !kernelRefuses.includes(each))) expect([name, probes[name]]).not.toEqual([name, 'EPERM']);
    for (const name of honest) expect([name, probes[name]]).toEqual([name, 'ok']);
  });
});

describe.skipIf(!canRunAsUser)('the page cache when an ordinary user runs arbor', () => {
  it('the same primitives fail with EPERM in a user namespace', () => {
    const dir = tempDir();
    const entry = path.join(dir, 'entry');
    cpSync(path.join(fixtures, 'eval/prefix-speed'), entry, {recursive: true});
    cpSync(path.join(solutions, 'page-cache.py'), path.join(entry, 'candidate.py'));
    const {stdout, stderr, report} = evaluateAsNobody(dir, entry);
    expect(stdout, stderr).toBe('score: 0.0\n');
    expect(report).toMatchObject({sandbox: 'bwrap', runUser: 'caller'});
    expectRefused(found(report.failure));
  });
});
