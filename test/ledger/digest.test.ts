import {describe, expect, it} from 'vitest';
import {solutionDigest} from '../../lib/ledger/index.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('solutionDigest', () => {
  it('matches the documented framing (value computed independently with Python hashlib)', () => {
    // sha256(b'arbor-solution-v1\n' + b'11 lib/util.py\n0\n' + b'11 solution.py\n9\nprint(1)\n')
    const files = [
      {path: 'solution.py', bytes: bytes('print(1)\n')},
      {path: 'lib/util.py', bytes: bytes('')},
    ];
    expect(solutionDigest(files)).toBe('9cd2c7d6c823f42bb3618dbaaaa69ae6084167d1d9270d10bd11b9de2c0fb8cf');
    expect(solutionDigest([])).toBe('39da587cca368debb6638c9adad5fdfbe1a9492a5450b23f32f9b983826bc3f7');
  });

  it('does not depend on the order the files are given in, nor on the path separator', () => {
    const a = {path: 'a.py', bytes: bytes('x')};
    const b = {path: 'sub/b.py', bytes: bytes('y')};
    expect(solutionDigest([a, b])).toBe(solutionDigest([b, a]));
    expect(solutionDigest([a, {path: 'sub\\b.py', bytes: b.bytes}])).toBe(solutionDigest([a, b]));
  });

  it('tells apart sets that would collide under naive concatenation', () => {
    const digests = [
      solutionDigest([{path: 'a', bytes: bytes('bc')}]),
      solutionDigest([{path: 'ab', bytes: bytes('c')}]),
      solutionDigest([
        {path: 'a', bytes: bytes('b')},
        {path: 'c', bytes: bytes('')},
      ]),
      solutionDigest([
        {path: 'a', bytes: bytes('')},
        {path: 'c', bytes: bytes('b')},
      ]),
      solutionDigest([{path: 'a', bytes: bytes('1 c\n0\n')}]),
      solutionDigest([{path: 'a', bytes: bytes('')}]),
      solutionDigest([]),
    ];
    expect(new Set(digests).size).toBe(digests.length);
  });

  it('changes with one byte of content', () => {
    expect(solutionDigest([{path: 's.py', bytes: bytes('return 1')}])).not.toBe(solutionDigest([{path: 's.py', bytes: bytes('return 2')}]));
  });

  it('refuses a path listed twice', () => {
    expect(() =>
      solutionDigest([
        {path: 'a', bytes: bytes('')},
        {path: 'a', bytes: bytes('x')},
      ]),
    ).toThrow(/listed twice/);
  });
});
