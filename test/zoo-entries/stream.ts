/**
 * A standalone copy of the bundle random stream (DESIGN.md, "The bundle"), so the entries'
 * authored functions can be tested without the bundle runtime: block i is SHA-256 of the UTF-8
 * text `SPEC|seed|i`, blocks concatenated and consumed strictly in order.
 */
import {createHash} from 'node:crypto';

export class TestStream {
  private buffer = new Uint8Array(0);
  private offset = 0;
  private block = 0;

  constructor(
    readonly spec: string,
    readonly seed: number,
  ) {}

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      if (this.offset === this.buffer.length) {
        this.buffer = new Uint8Array(createHash('sha256').update(`${this.spec}|${this.seed}|${this.block}`, 'utf8').digest());
        this.block += 1;
        this.offset = 0;
      }
      const take = Math.min(n - filled, this.buffer.length - this.offset);
      out.set(this.buffer.subarray(this.offset, this.offset + take), filled);
      this.offset += take;
      filled += take;
    }
    return out;
  }

  bits(k: number): bigint {
    const raw = this.bytes(Math.ceil(k / 8));
    let value = 0n;
    for (let i = raw.length - 1; i >= 0; i -= 1) value = (value << 8n) | BigInt(raw[i]!);
    return value & ((1n << BigInt(k)) - 1n);
  }

  below(n: bigint | number): bigint {
    const bound = BigInt(n);
    if (bound <= 0n) throw new RangeError('below(n) needs n >= 1');
    return this.bits(bound.toString(2).length + 64) % bound;
  }
}
