import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {parseJson, decodeText, utf8DecodeError} from '../../lib/gate/json.js';
import {dumps, utf8EncodeError} from '../../lib/gate/dumps.js';
import {MersenneTwister, bootstrapCounts} from '../../lib/gate/mt.js';
import {compareCodePoints, exactMean, floatRepr, intToFloat, numbersEqual, pyCasefold, pySplit, pyStrip, repr, reprString} from '../../lib/gate/py.js';
import {fixtures} from '../helpers/cli.js';

// Known answers computed once by test/gate/gen-python-values.py.
const known = JSON.parse(readFileSync(path.join(fixtures, 'gate/python-values.json'), 'utf8')) as {
  floats: [string, string][];
  mt: {seed: string; words: number[]; below: Record<string, number[]>; after1300: number[]}[];
  means: {values: string[]; mean: string}[];
  int_to_float: [string, string][];
  casefold: [string, string][];
};

describe('float repr', () => {
  it('matches Python repr() on stored values', () => {
    for (const [text, expected] of known.floats) expect(floatRepr(Number(text))).toBe(expected);
  });
  it('writes the layouts of the port notes', () => {
    expect([1e16, 1234567890123456, 1e-5, 0.0001, 5e-324, 5, -0].map(floatRepr)).toEqual([
      '1e+16',
      '1234567890123456.0',
      '1e-05',
      '0.0001',
      '5e-324',
      '5.0',
      '-0.0',
    ]);
  });
  it('converts big ints to floats as Python does', () => {
    for (const [int, expected] of known.int_to_float) expect(floatRepr(intToFloat(BigInt(int)))).toBe(expected);
    expect(() => intToFloat(2n ** 1024n)).toThrow('int too large to convert to float');
  });
});

describe('MT19937 (random.Random)', () => {
  it('matches getrandbits(32) and _randbelow for int seeds of any size and sign', () => {
    for (const entry of known.mt) {
      const rng = new MersenneTwister(BigInt(entry.seed));
      expect(Array.from({length: 8}, () => rng.next())).toEqual(entry.words);
      for (const [n, values] of Object.entries(entry.below)) {
        const r = new MersenneTwister(BigInt(entry.seed));
        expect(Array.from({length: 12}, () => r.below(Number(n)))).toEqual(values);
      }
      const r = new MersenneTwister(BigInt(entry.seed));
      const words = Array.from({length: 1300}, () => r.next());
      expect(words.slice(-3)).toEqual(entry.after1300);
    }
  });
  it('the fast bootstrap draws the same sequence as choice()', () => {
    const differences = Int8Array.from([1, 0, -1, 1, 0]);
    const rng = new MersenneTwister(7n);
    const expected = new Uint32Array(11);
    for (let s = 0; s < 300; s++) {
      let sum = 0;
      for (let t = 0; t < 5; t++) sum += differences[rng.below(5)] as number;
      expected[sum + 5]! += 1;
    }
    expect(Array.from(bootstrapCounts(differences, 300, 7n))).toEqual(Array.from(expected));
  });
  it('the WebAssembly SIMD and JavaScript blocks agree with choice() for many n', () => {
    // Sizes around powers of two (shift changes) and samples that span many blocks.
    for (const n of [1, 2, 3, 4, 7, 8, 9, 31, 33, 255, 256, 257, 500, 1023, 1025, 5000]) {
      let state = n;
      const differences = Int8Array.from({length: n}, () => {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        return ((state >>> 16) % 3) - 1;
      });
      const samples = n > 1000 ? 40 : 700;
      const rng = new MersenneTwister(123456789012345678901234567890n);
      const expected = new Uint32Array(2 * n + 1);
      for (let s = 0; s < samples; s++) {
        let sum = 0;
        for (let t = 0; t < n; t++) sum += differences[rng.below(n)] as number;
        expected[sum + n]! += 1;
      }
      const seed = 123456789012345678901234567890n;
      expect(Array.from(bootstrapCounts(differences, samples, seed, true))).toEqual(Array.from(expected));
      expect(Array.from(bootstrapCounts(differences, samples, seed, false))).toEqual(Array.from(expected));
    }
  });
});

describe('statistics.mean', () => {
  it('is exactly rounded like Python', () => {
    for (const {values, mean} of known.means) expect(floatRepr(exactMean(values.map(Number)))).toBe(mean);
  });
  it('k/n means of 0/1 values are plain divisions', () => {
    for (let n = 1; n < 60; n++) for (let k = 0; k <= n; k++) expect(exactMean(Array.from({length: n}, (_, i) => (i < k ? 1 : 0)))).toBe(k / n);
  });
});

describe('strings', () => {
  it('casefolds fully', () => {
    for (const [ch, folded] of known.casefold) expect(pyCasefold(ch)).toBe(folded);
  });
  it('strips and splits on Python whitespace only', () => {
    expect(pyStrip('\x1c a \u3000')).toBe('a');
    expect(pyStrip('\ufeffa')).toBe('\ufeffa');
    expect(pySplit(' a\x85b\u200bc ')).toEqual(['a', 'b\u200bc']);
  });
  it('repr() quotes and escapes like Python', () => {
    expect(reprString("it's")).toBe('"it\'s"');
    expect(reprString('say "hi" it\'s')).toBe("'say \"hi\" it\\'s'");
    expect(reprString('a\tb\n\x07\x7f\u0378\ud800😀\u{e0001}é')).toBe("'a\\tb\\n\\x07\\x7f\\u0378\\ud800😀\\U000e0001é'");
    expect(repr([{tuple: ['case-1', 3n]}] as never)).toBe("[('case-1', 3)]");
  });
  it('orders by code point', () => {
    expect(['\uffff', '😀', 'a'].sort(compareCodePoints)).toEqual(['a', '\uffff', '😀']);
  });
  it('reports lone surrogates as the UTF-8 encoder does', () => {
    expect(utf8EncodeError('😀a\ud800')).toBe("'utf-8' codec can't encode character '\\ud800' in position 2: surrogates not allowed");
    expect(utf8EncodeError('\udc00\ud800x')).toBe("'utf-8' codec can't encode characters in position 0-1: surrogates not allowed");
    expect(utf8EncodeError('ok😀')).toBeUndefined();
  });
  it('compares ints and floats exactly', () => {
    expect(numbersEqual(30n, 30)).toBe(true);
    expect(numbersEqual(10n ** 16n, 1e16)).toBe(true);
    expect(numbersEqual(9007199254740993n, 9007199254740992)).toBe(false);
  });
});

describe('JSON reader', () => {
  const parse = (text: string) => parseJson(decodeText(new TextEncoder().encode(text)));
  it('keeps Python number types', () => {
    const value = parse('[30, 30.0, -0, -0.0, 1e400, 123456789012345678901234567890]') as unknown[];
    expect(value[0]).toBe(30n);
    expect(value[1]).toBe(30);
    expect(value[2]).toBe(0n);
    expect(Object.is(value[3], -0)).toBe(true);
    expect(value[4]).toBe(Infinity);
    expect(value[5]).toBe(123456789012345678901234567890n);
    expect(dumps(value as never)).toBe('[30,30.0,0,-0.0,Infinity,123456789012345678901234567890]');
  });
  it('gives Python error messages with code point positions', () => {
    expect(() => parse('')).toThrow('Expecting value: line 1 column 1 (char 0)');
    expect(() => parse('{"😀": 1,}')).toThrow('Expecting property name enclosed in double quotes: line 1 column 9 (char 8)');
    expect(() => parse('[1]\r\n x')).toThrow('Extra data: line 2 column 2 (char 5)');
    expect(() => parse('\ufeff{}')).toThrow('Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)');
    expect(() => parse('{"a": NaN}')).toThrow('JSON contains non-standard constant: NaN');
    expect(() => parse('{"a": {"b": 1, "b": 2}, "a": 3}')).toThrow('JSON contains duplicate key: b');
  });
  it('reports bad UTF-8 as CPython does', () => {
    expect(utf8DecodeError(Uint8Array.from([0x61, 0xff]))).toBe("'utf-8' codec can't decode byte 0xff in position 1: invalid start byte");
    expect(utf8DecodeError(Uint8Array.from([0xe2, 0x82]))).toBe("'utf-8' codec can't decode bytes in position 0-1: unexpected end of data");
    expect(utf8DecodeError(Uint8Array.from([0xf0, 0x9f, 0x98, 0x28]))).toBe("'utf-8' codec can't decode bytes in position 0-2: invalid continuation byte");
    expect(utf8DecodeError(Uint8Array.from([0xed, 0xa0, 0x80]))).toBe("'utf-8' codec can't decode byte 0xed in position 0: invalid continuation byte");
  });
});
