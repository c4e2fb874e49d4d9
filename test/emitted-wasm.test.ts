import {createHash} from 'node:crypto';
import {describe, expect, it} from 'vitest';
import {assemble} from '../dist/lib/bundle/sha256-simd.js';
import {moduleBytes} from '../dist/lib/gate/mt-simd.js';

// The hand-assembled WebAssembly modules are pinned by digest: a refactor of their emitters
// (loops or tables in place of straight-line code) must emit the very same bytes. The digests
// were taken from the emitters as they were before they were split (commit b8e5d1e).
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('the hand-assembled WebAssembly modules', () => {
  it("the stream's four-lane SHA-256 kernel emits the bytes it emitted before its split", () => {
    const bytes = assemble();
    expect(bytes.length).toBe(17348);
    expect(sha256(bytes)).toBe('53ab41652ed3a8f8e2e0c2e87897c3626352bc77f37153ea73b02e71c6d14a81');
  });

  it("the gate's MT19937 bootstrap module emits the bytes it emitted before its split", () => {
    const bytes = moduleBytes();
    expect(bytes.length).toBe(953);
    expect(sha256(bytes)).toBe('a3c5d0b585512fb541e68c0cb1128e0a4b59b383014c700af4c5906e951ee81f');
  });
});
