/** The coarse bucket a sealed result may say: the ratio's range, or `failed` when the candidate fails a case. */
import {describe, expect, it} from 'vitest';
import {bucketOf} from '../../lib/mcp/sealed-run.js';

describe('bucketOf', () => {
  it.each([
    [0.2, '<0.5x'],
    [0.5, '0.5-0.9x'],
    [0.95, '0.9-1.1x'],
    [1.1, '1.1-2x'],
    [3, '2-10x'],
    [10, '>=10x'],
    [250, '>=10x'],
  ])('ratio %d -> %s', (ratio, bucket) => {
    expect(bucketOf({ratio, correctness: []})).toBe(bucket);
  });

  it('says failed when the candidate fails a case (or both do), or no ratio exists; a failing baseline alone does not', () => {
    expect(bucketOf({ratio: 3, correctness: [{point: 0, i: 2, failing: 'candidate'}]})).toBe('failed');
    expect(bucketOf({ratio: 3, correctness: [{point: 0, i: 2, failing: 'both'}]})).toBe('failed');
    expect(bucketOf({ratio: null, correctness: []})).toBe('failed');
    expect(bucketOf({ratio: 3, correctness: [{point: 0, i: 2, failing: 'baseline'}]})).toBe('2-10x');
  });

  it("an accuracy entry: its ratio's bucket when cases fail on both sides of a partial-credit task; failed only where the candidate gave no scorable answer and the baseline did", () => {
    const row = (baseline: string, candidate: string) => ({baseline: {status: baseline}, candidate: {status: candidate}}) as never;
    const both = [
      {point: 0, i: 0, failing: 'both' as const},
      {point: 0, i: 1, failing: 'candidate' as const},
    ];
    expect(bucketOf({ratio: 1, correctness: both, cases: [row('failed', 'failed'), row('ok', 'failed')]}, 'accuracy')).toBe('0.9-1.1x');
    expect(bucketOf({ratio: 0.2, correctness: both, cases: [row('failed', 'failed')]}, 'accuracy')).toBe('<0.5x');
    expect(bucketOf({ratio: 0.9, correctness: both, cases: [row('ok', 'crashed'), row('ok', 'ok')]}, 'accuracy')).toBe('failed');
    expect(bucketOf({ratio: 0.9, correctness: both, cases: [row('timeout', 'no-answer')]}, 'accuracy')).toBe('0.9-1.1x');
    expect(bucketOf({ratio: null, correctness: [], cases: []}, 'accuracy')).toBe('failed');
    // The same report read as a speed entry's: a candidate failing a case is failed.
    expect(bucketOf({ratio: 1, correctness: both, cases: [row('failed', 'failed')]})).toBe('failed');
  });
});
