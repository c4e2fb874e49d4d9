// How a lock's difference reads: every changed, added and removed protected file, in one line, in a stable order.
import {describe, expect, it} from 'vitest';
import {formatLockChanges, lockChanges, lockDifference, lockNamesShown, type Lock} from '../../lib/benchmark/lock.js';

const lock = (...files: string[]): Lock => ({version: 1, files: Object.fromEntries(files.map((file) => [file, `sha-${file}`]))});
/** `lock` with `changed` given other digests. */
const edited = (base: Lock, ...changed: string[]): Lock => ({
  version: 1,
  files: {...base.files, ...Object.fromEntries(changed.map((file) => [file, 'other']))},
});

describe('lockDifference', () => {
  it('is undefined when nothing differs, and names a single difference as before', () => {
    const locked = lock('plan.toml', 'eval.sh');
    expect(lockDifference(locked, lock('eval.sh', 'plan.toml'))).toBeUndefined();
    expect(lockDifference(locked, edited(locked, 'plan.toml'))).toBe('plan.toml changed');
    expect(lockDifference(locked, lock('plan.toml'))).toBe('eval.sh removed');
    expect(lockDifference(locked, lock('plan.toml', 'eval.sh', 'data/x'))).toBe('data/x added');
  });

  it('names every file: changed, then added, then removed, each in path order whatever the order of the lock', () => {
    const locked = lock('reference.py', 'bundle/verify.mjs', 'bundle/oracle.mjs', 'bundle/generate.mjs', 'bundle/fherma.toml', 'plan.toml');
    const now = edited(
      lock('plan.toml', 'data/x', 'bundle/verify.mjs', 'bundle/oracle.mjs', 'bundle/generate.mjs', 'bundle/fherma.toml'),
      'bundle/oracle.mjs',
      'bundle/fherma.toml',
      'bundle/generate.mjs',
    );
    expect(lockChanges(locked, now)).toEqual({
      changed: ['bundle/fherma.toml', 'bundle/generate.mjs', 'bundle/oracle.mjs'],
      added: ['data/x'],
      removed: ['reference.py'],
    });
    expect(lockDifference(locked, now)).toBe('bundle/fherma.toml, bundle/generate.mjs, bundle/oracle.mjs changed; data/x added; reference.py removed');
  });

  it(`names the first ${lockNamesShown} files and counts the rest, kind by kind, in one line`, () => {
    expect(lockNamesShown).toBe(8);
    const data = Array.from({length: 12}, (_, i) => `data/${String(i).padStart(2, '0')}.bin`);
    const locked = lock(...data, 'plan.toml', 'reference.py');
    const now = edited(lock(...data, 'plan.toml', 'extra/a', 'extra/b'), ...data);
    const difference = lockDifference(locked, now)!;
    expect(difference).toBe(
      'data/00.bin, data/01.bin, data/02.bin, data/03.bin, data/04.bin, data/05.bin, data/06.bin, data/07.bin and 4 more changed; 2 files added; 1 file removed',
    );
    expect(difference).not.toContain('\n');
    // A kind the names reach in part ends in "and N more".
    expect(formatLockChanges({changed: ['a', 'b'], added: ['c', 'd', 'e'], removed: []}, 3)).toBe('a, b changed; c and 2 more added');
    expect(formatLockChanges({changed: [], added: [], removed: []})).toBeUndefined();
  });
});
