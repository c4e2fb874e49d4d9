// The harness's end of the runner's channel (lib/sandbox/channel.ts): frames split across chunks in
// any way come out whole, and a frame read without keeping its payload still consumes exactly it.
import {PassThrough} from 'node:stream';
import {describe, expect, it} from 'vitest';
import {FrameReader} from '../../lib/sandbox/channel.js';

const sized = (header: Record<string, unknown>) => Number(header.size);

function frame(size: number, fill: number): Buffer {
  return Buffer.concat([Buffer.from(`${JSON.stringify({size})}\n`), Buffer.alloc(size, fill)]);
}

/** Write `bytes` in chunks of `step` bytes. */
function feed(stream: PassThrough, bytes: Buffer, step: number): void {
  for (let at = 0; at < bytes.length; at += step) stream.write(bytes.subarray(at, at + step));
}

describe('FrameReader', () => {
  it.each([1, 7, 1000, 1 << 20])('reads frames whole from chunks of %i byte(s), kept or not', async (step) => {
    const socket = new PassThrough();
    const reader = new FrameReader(socket);
    feed(socket, Buffer.concat([frame(3000, 1), frame(5000, 2), frame(10, 3)]), step);
    const first = await reader.next(sized);
    expect(first.payload).toEqual(Buffer.alloc(3000, 1));
    // Not kept: an empty payload, and exactly its 5000 bytes consumed.
    const second = await reader.next(sized, false);
    expect(second.header).toEqual({size: 5000});
    expect(second.payload.length).toBe(0);
    const third = await reader.next(sized);
    expect(third.payload).toEqual(Buffer.alloc(10, 3));
    expect(reader.pending).toBe(0);
  });

  it('times a frame no earlier than its last byte', async () => {
    const socket = new PassThrough();
    const reader = new FrameReader(socket);
    const next = reader.next(sized, false);
    const bytes = frame(100, 0);
    socket.write(bytes.subarray(0, 50));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = process.hrtime.bigint();
    socket.write(bytes.subarray(50));
    await next;
    expect(reader.lastAt).toBeGreaterThanOrEqual(before);
  });
});
